//! Delivery interruptions of a run with a Wi-Fi handoff: summary.json's
//! `analysis.interruptions` (the client socket's segments through
//! `airtcp-analyze`) and `airtcp analyze` of the capture of the sender's
//! own link list the same gaps, shifted only by where each was seen.

use std::path::PathBuf;

use airtcp_analyze::model::Collect;
use airtcp_analyze::{analyze_reader, Options};
use airtcp_sim::{run, RunOptions, Scenario};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn handoff_interruptions_agree_between_run_and_its_capture() {
    // sdn-zwa: cn sends to the station mn, which roams from ap1 to ap2 at
    // 10 s (scripted, 2 s); 20 s is enough for the handoff and recovery.
    let path = repo().join("scenarios/sdn-zwa.toml");
    let sc = Scenario::from_path(&path, &[("sim.duration".into(), "20s".into())]).unwrap();
    let dir = std::env::temp_dir().join(format!("airtcp-interruptions-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out = run(&sc, RunOptions { pcap_dir: Some(dir.clone()), ..Default::default() }).unwrap();
    let f = &out.summary["flows"][0];
    assert_eq!(f["from"], "cn");
    let run_gaps: Vec<(i64, Option<i64>)> = f["analysis"]["interruptions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["start_ns"].as_i64().unwrap(), i["end_ns"].as_i64()))
        .collect();
    // The capture of cn's only link (cn-attach, 80 ms): data stamped when
    // its transmission starts, ACKs when s2 starts sending them, 80 ms
    // (plus a 10 Mb/s ACK's serialization) before cn has them.
    let (i, _) = out.summary["links"].as_array().unwrap().iter().enumerate().find(|(_, l)| l["a"] == "cn").unwrap();
    let cap = dir.join(format!("link{i}_cn-s2.pcap"));
    let mut sink = Collect::default();
    analyze_reader(std::io::BufReader::new(std::fs::File::open(&cap).unwrap()), &Options::default(), &mut sink).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let d = &sink.connections[0].fwd;
    let cap_gaps: Vec<(i64, Option<i64>)> = d.interruptions.iter().map(|i| (i.start_ns, i.end_ns)).collect();
    eprintln!("run {run_gaps:?}\ncapture {cap_gaps:?}");
    // The handoff interrupts delivery: a gap starts during the roam (10 s to
    // 12 s; the last ACKs sent before it reach cn up to an RTT later) and
    // ends after it.
    assert!(run_gaps.iter().any(|&(s, e)| (10_000_000_000..12_000_000_000).contains(&s) && e.is_some_and(|e| e > 12_000_000_000)), "{run_gaps:?}");
    assert_eq!(run_gaps.len(), cap_gaps.len(), "run {run_gaps:?} capture {cap_gaps:?}");
    let lead = |socket: i64, capture: i64| {
        let ahead = socket - capture;
        // 80 ms propagation + a 66-byte ACK at 10 Mb/s (53 us), within 1 ms.
        (80_000_000..=81_000_000).contains(&ahead)
    };
    for (&(rs, re), &(cs, ce)) in run_gaps.iter().zip(&cap_gaps) {
        assert!(lead(rs, cs), "start: socket {rs} capture {cs}");
        match (re, ce) {
            (Some(re), Some(ce)) => assert!(lead(re, ce), "end: socket {re} capture {ce}"),
            (None, None) => {}
            other => panic!("one open, one closed: {other:?}"),
        }
    }
    assert_eq!(d.timeouts, f["analysis"]["timeouts"].as_u64().unwrap());
}
