//! Writes `corpus/scenario_json`: each TOML scenario given, validated and
//! written back as JSON with `Scenario::to_json`.
//!
//!   cargo run --example gen_scenario_json -- corpus/scenario_json corpus/scenario_toml/*.toml

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args
        .next()
        .expect("usage: gen_scenario_json DIR FILE.toml...");
    for f in args {
        let text = std::fs::read_to_string(&f).unwrap();
        match airtcp_sim::Scenario::from_toml_str(&text, "fuzz", &[]) {
            Ok(s) => {
                let stem = std::path::Path::new(&f)
                    .file_stem()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                let json = serde_json::to_string_pretty(&s.to_json()).unwrap();
                std::fs::write(format!("{dir}/{stem}.json"), json).unwrap();
            }
            Err(e) => eprintln!("{f}: skipped: {e}"),
        }
    }
}
