//! Issue 7 buffer keys in scenarios: receive / send buffer autotuning and
//! the SO_RCVBUF / SO_SNDBUF lock, Nagle, slow start after idle — their
//! profile defaults, explicit keys, errors, and an end-to-end run where
//! the autotuned window passes the old fixed 128 KiB.

use std::path::PathBuf;

use airtcp_sim::{run, RunOptions, Scenario};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn sets(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(p, v)| (p.to_string(), v.to_string())).collect()
}

/// fat-pipe.toml (100 Mb/s, 100 ms RTT, Linux profile, 64 MiB buffers
/// given explicitly) with `sets` applied.
fn fat(pairs: &[(&str, &str)]) -> Scenario {
    Scenario::from_path(&repo().join("scenarios/fat-pipe.toml"), &sets(pairs)).unwrap()
}

fn fat_without_buffers(pairs: &[(&str, &str)]) -> Scenario {
    let text = std::fs::read_to_string(repo().join("scenarios/fat-pipe.toml")).unwrap();
    let text: String = text.lines().filter(|l| !l.starts_with("rcv_buf") && !l.starts_with("snd_buf")).collect::<Vec<_>>().join("\n");
    assert!(!text.contains("\nrcv_buf"));
    Scenario::from_toml_str(&text, "fat.toml", &sets(pairs)).unwrap()
}

#[test]
fn explicit_buffers_lock_them_like_so_rcvbuf() {
    let t = &fat(&[]).flows[0].tcp;
    assert!(!t.rcv_buf_autotune && !t.snd_buf_autotune);
    assert_eq!(t.rcv_buf, 64 << 20);
    // Linux profile defaults for the rest.
    assert!(!t.nodelay && t.slow_start_after_idle);
}

#[test]
fn linux_profile_autotunes_when_buffers_are_not_given() {
    let t = &fat_without_buffers(&[]).flows[0].tcp;
    assert!(t.rcv_buf_autotune && t.snd_buf_autotune);
    assert_eq!(t.tcp_rmem, [4096, 131_072, 6_291_456]);
    assert_eq!(t.tcp_wmem, [4096, 16_384, 4_194_304]);
    // An explicit key wins over the lock.
    let t = &fat(&[("flows.0.tcp.rcv_buf_autotune", "true")]).flows[0].tcp;
    assert!(t.rcv_buf_autotune && !t.snd_buf_autotune);
    let t = &fat_without_buffers(&[("flows.0.tcp.tcp_rmem", "[8192, \"64KiB\", \"1MiB\"]")]).flows[0].tcp;
    assert_eq!(t.tcp_rmem, [8192, 65_536, 1 << 20]);
}

#[test]
fn ns3_profile_is_fixed_nodelay_no_restart() {
    let s = Scenario::from_path(&repo().join("scenarios/bulk-lossy.toml"), &[]).unwrap();
    let t = &s.flows[0].tcp;
    assert!(!t.rcv_buf_autotune && !t.snd_buf_autotune);
    assert!(t.nodelay && !t.slow_start_after_idle);
    let s = Scenario::from_path(
        &repo().join("scenarios/bulk-lossy.toml"),
        &sets(&[("flows.0.tcp.nodelay", "false"), ("flows.0.tcp.slow_start_after_idle", "true")]),
    )
    .unwrap();
    let t = &s.flows[0].tcp;
    assert!(!t.nodelay && t.slow_start_after_idle);
}

#[test]
fn bad_buffer_keys_name_the_key() {
    let text = std::fs::read_to_string(repo().join("scenarios/fat-pipe.toml")).unwrap();
    let e = Scenario::from_toml_str(&text, "fat.toml", &sets(&[("flows.0.tcp.tcp_rmem", "[4096, 131072]")]))
        .unwrap_err()
        .to_string();
    assert!(e.contains("tcp_rmem") && e.contains("3 sizes"), "{e}");
    let e = Scenario::from_toml_str(&text, "fat.toml", &sets(&[("flows.0.tcp.tcp_wmem", "[4096, 65536, 16384]")]))
        .unwrap_err()
        .to_string();
    assert!(e.contains("tcp_wmem"), "{e}");
    let e = Scenario::from_toml_str(&text, "fat.toml", &sets(&[("flows.0.tcp.nodelay", "1")])).unwrap_err().to_string();
    assert!(e.contains("nodelay"), "{e}");
}

/// 100 Mb/s x 100 ms = 1.25 MB in flight at full rate. With a fixed 128 KiB
/// buffer the window caps the flow at 128 KiB per RTT (10.5 Mb/s); the
/// autotuned Linux receiver grows its window past that within a few RTTs.
#[test]
fn autotuned_window_passes_128kib_on_a_fat_pipe() {
    let short = [("sim.duration", "10s"), ("links.1.loss_ab.p", "0")];
    let o = run(&fat_without_buffers(&short), RunOptions::default()).unwrap();
    let f = &o.summary["flows"][0];
    let wnd = f["receiver"]["rcv_wnd_max"].as_u64().unwrap();
    assert!(wnd > 1 << 20, "window {wnd}");
    assert!(f["receiver"]["rcvbuf_grows"].as_u64().unwrap() > 0);
    assert!(f["sender"]["sndbuf_max"].as_u64().unwrap() > 131_072);
    let auto = f["goodput_bps"].as_f64().unwrap();
    let mut locked = short.to_vec();
    locked.extend([("flows.0.tcp.rcv_buf", "131072"), ("flows.0.tcp.snd_buf", "131072")]);
    let o = run(&fat(&locked), RunOptions::default()).unwrap();
    let f = &o.summary["flows"][0];
    assert!(f["receiver"]["rcv_wnd_max"].as_u64().unwrap() <= 131_072);
    let fixed = f["goodput_bps"].as_f64().unwrap();
    assert!(fixed < 10.5e6, "{fixed}");
    assert!(auto > 4.0 * fixed, "autotuned {auto} vs fixed {fixed}");
    assert_eq!(f["recv_order_errors"], 0);
}
