//! Run a scenario and write every output (summary.json with the resolved
//! scenario, series, segment logs, events, one pcap per link) into a
//! directory, with `run.run_wall_s` zeroed so two runs compare byte for
//! byte: `dump_run FILE OUT_DIR [key=value ...]`. A bad scenario prints
//! its error on stderr and exits 2 (the key-table conversions' baselines
//! are made with it).
fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(path), Some(dir)) = (args.next(), args.next()) else {
        eprintln!("usage: dump_run FILE OUT_DIR [key=value ...]");
        std::process::exit(2);
    };
    let overrides: Vec<(String, String)> = args.filter_map(|a| a.split_once('=').map(|(k, v)| (k.to_string(), v.to_string()))).collect();
    let s = match airtcp_sim::Scenario::from_path(std::path::Path::new(&path), &overrides) {
        Ok(s) => s,
        Err(e) => {
            eprint!("{e}");
            std::process::exit(2);
        }
    };
    let dir = std::path::PathBuf::from(dir);
    let opts = airtcp_sim::RunOptions { pcap_dir: Some(dir.join("pcap")), ..Default::default() };
    std::fs::create_dir_all(dir.join("pcap")).expect("create the pcap dir");
    let mut out = match airtcp_sim::run(&s, opts) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    out.run_wall_s = 0.0;
    if let Some(r) = out.summary.get_mut("run").and_then(|r| r.as_object_mut()) {
        r.insert("run_wall_s".into(), serde_json::json!(0.0));
    }
    airtcp_sim::write_outputs(&out, &dir).expect("write the outputs");
}
