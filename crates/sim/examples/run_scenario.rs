//! Run a scenario file and print its summary (a debugging aid for the
//! Rust side without the Python CLI): `run_scenario FILE [key=value ...]`
//! (`OUT_DIR=dir` writes the output files too).
fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: run_scenario FILE [key=value ...]");
        std::process::exit(2);
    };
    let overrides: Vec<(String, String)> = args.filter_map(|a| a.split_once('=').map(|(k, v)| (k.to_string(), v.to_string()))).collect();
    let s = match airtcp_sim::Scenario::from_path(std::path::Path::new(&path), &overrides) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    // PCAP_DIR=dir also writes the captures there.
    let opts = airtcp_sim::RunOptions { pcap_dir: std::env::var_os("PCAP_DIR").map(Into::into), ..Default::default() };
    match airtcp_sim::run(&s, opts) {
        Ok(o) => {
            // OUT_DIR=dir also writes every output file there (summary.json
            // with the resolved scenario, the series, events.jsonl).
            if let Some(dir) = std::env::var_os("OUT_DIR") {
                if let Err(e) = airtcp_sim::write_outputs(&o, std::path::Path::new(&dir)) {
                    eprintln!("{e}");
                    std::process::exit(1);
                }
            }
            let mut sum = o.summary.clone();
            sum.as_object_mut().map(|m| m.remove("scenario"));
            println!("{}", serde_json::to_string_pretty(&sum).unwrap());
            // EVENTS=all prints every event (default: the first 40).
            let n = if std::env::var("EVENTS").is_ok_and(|v| v == "all") { usize::MAX } else { 40 };
            for e in o.events.iter().take(n) {
                eprintln!("{e:?}");
            }
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
