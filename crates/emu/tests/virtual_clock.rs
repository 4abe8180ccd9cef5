//! One engine, two clocks: with the virtual clock the emulator's driver is
//! the simulator's run, output for output.

use std::path::Path;

use airtcp_emu::emulate::{self, Clock, Config, Offload};

fn strip_wall(mut v: serde_json::Value) -> serde_json::Value {
    v["run"].as_object_mut().unwrap().remove("run_wall_s");
    v
}

#[test]
fn virtual_clock_gives_the_simulators_outputs() {
    let scen = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/emu-path.toml");
    let overrides = vec![("sim.duration".to_string(), "3s".to_string()), ("links.0.loss_ab.p".to_string(), "0.02".to_string())];
    let base = std::env::temp_dir().join(format!("airtcp-emu-virtual-{}", std::process::id()));
    let (a, b) = (base.join("emu"), base.join("sim"));
    let cfg = Config {
        scenario: scen.clone(),
        out: a.clone(),
        overrides: overrides.clone(),
        seed: Some(7),
        real: vec![],
        setup: vec![],
        serve: vec![],
        exec: vec![],
        pcap: false,
        mtu: 1500,
        clock: Clock::Virtual,
        tun_offload: Offload::Off,
    };
    emulate::run(&cfg).unwrap();
    let sc = airtcp_sim::Scenario::from_path(&scen, &overrides).unwrap();
    let out = airtcp_sim::run(&sc, airtcp_sim::RunOptions { seed: Some(7), ..Default::default() }).unwrap();
    airtcp_sim::write_outputs(&out, &b).unwrap();
    let read = |d: &Path, f: &str| std::fs::read_to_string(d.join(f)).unwrap();
    let sa: serde_json::Value = serde_json::from_str(&read(&a, "summary.json")).unwrap();
    let sb: serde_json::Value = serde_json::from_str(&read(&b, "summary.json")).unwrap();
    assert!(sa["flows"][0]["retransmissions"].as_u64().unwrap() > 0, "the loss must show");
    assert_eq!(strip_wall(sa), strip_wall(sb));
    assert_eq!(read(&a, "events.jsonl"), read(&b, "events.jsonl"));
    let _ = std::fs::remove_dir_all(&base);
}
