//! Radio captures: a run with `pcap_dir` writes one radiotap + 802.11 pcap
//! per radio, with every frame kind of a handoff, which tshark decodes with
//! good frame check sequences (skipped with a note when tshark is absent).

use std::process::Command;

use airtcp_sim::{run, RunOptions, Scenario};

fn tshark() -> bool {
    Command::new("tshark").arg("--version").output().is_ok_and(|o| o.status.success())
}

#[test]
fn roaming_station_capture_decodes_in_tshark() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/wifi-roaming.toml");
    let s = Scenario::from_path(&path, &[("sim.duration".into(), "15s".into())]).unwrap();
    let dir = std::env::temp_dir().join(format!("airtcp-wifi-capture-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    run(&s, RunOptions { pcap_dir: Some(dir.clone()), ..Default::default() }).unwrap();
    let sta = dir.join("radio3_sta.pcap");
    let bytes = std::fs::read(&sta).unwrap();
    // Global header: magic (ns), link type 127 (IEEE802_11_RADIOTAP).
    assert_eq!(u32::from_le_bytes(bytes[20..24].try_into().unwrap()), 127);
    for name in ["radio0_ap1.pcap", "radio1_ap2.pcap", "radio2_ap3.pcap", "link0_server-sw.pcap"] {
        assert!(dir.join(name).exists(), "{name}");
    }
    if !tshark() {
        eprintln!("note: tshark not found; decoding not checked");
        return;
    }
    let out = Command::new("tshark")
        .args(["-r", sta.to_str().unwrap(), "-o", "wlan.check_checksum:TRUE", "-T", "fields", "-e", "wlan.fc.type_subtype", "-e", "wlan.fcs.status", "-e", "_ws.malformed"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let mut kinds = std::collections::BTreeSet::new();
    for line in text.lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        assert_eq!(cols.get(1).copied(), Some("1"), "bad FCS or undecoded: {line}");
        assert!(cols.get(2).is_none_or(|m| m.is_empty()), "malformed: {line}");
        kinds.insert(cols[0].to_string());
    }
    // beacon, probe request/response, authentication, reassociation
    // request/response, data, ACK.
    for k in ["0x0008", "0x0004", "0x0005", "0x000b", "0x0002", "0x0003", "0x0020", "0x001d"] {
        assert!(kinds.contains(k), "no frame of type/subtype {k} in {kinds:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
