//! Replays the fuzz corpora (`fuzz/corpus/<target>/`) and the inputs of
//! fixed fuzz findings (`fuzz/regressions/<target>/`) through the very
//! harness functions the `cargo fuzz` targets call (`fuzz/src/lib.rs`,
//! included below), on stable Rust: every file must go through without a
//! panic (errors are expected and ignored).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

#[allow(dead_code)]
#[path = "../../../../fuzz/src/lib.rs"]
mod harness;

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// Scenario seeds name their trace files relative to the fuzz directory
/// (origin "fuzz" resolves against the working directory), as when the
/// targets run under `cargo fuzz`; the lock keeps tests in this binary from
/// racing on the process-wide working directory.
static CWD: Mutex<()> = Mutex::new(());

fn replay(target: &str, f: fn(&[u8])) -> usize {
    let _g = CWD.lock().unwrap_or_else(|e| e.into_inner());
    let dir = fuzz_dir();
    std::env::set_current_dir(&dir).unwrap();
    let mut n = 0;
    for sub in ["corpus", "regressions"] {
        let Ok(rd) = std::fs::read_dir(dir.join(sub).join(target)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = rd
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        for p in files {
            let data = std::fs::read(&p).unwrap();
            eprintln!("{target}: {}", p.display());
            f(&data);
            n += 1;
        }
    }
    n
}

#[test]
fn wire_decode_corpus() {
    assert!(replay("wire_decode", harness::wire_decode) >= 20);
}

#[test]
fn pcap_read_corpus() {
    assert!(replay("pcap_read", harness::pcap_read) >= 5);
}

#[test]
fn analyze_capture_corpus() {
    assert!(replay("analyze_capture", harness::analyze_capture) >= 8);
}

#[test]
fn mahimahi_corpus() {
    assert!(replay("mahimahi", harness::mahimahi) >= 2);
}

#[test]
fn drive_ucc_corpus() {
    assert!(replay("drive_ucc", harness::drive_ucc) >= 1);
}

#[test]
fn drive_imc23_corpus() {
    assert!(replay("drive_imc23", harness::drive_imc23) >= 1);
}

#[test]
fn drive_feup_corpus() {
    assert!(replay("drive_feup", harness::drive_feup) >= 1);
}

#[test]
fn scenario_toml_corpus() {
    assert!(replay("scenario_toml", harness::scenario_toml) >= 5);
}

#[test]
fn scenario_json_corpus() {
    assert!(replay("scenario_json", harness::scenario_json) >= 5);
}

static SIMULATED: AtomicUsize = AtomicUsize::new(0);

#[test]
fn simulate_corpus() {
    let n = replay("simulate", |d| {
        if harness::simulate(d) {
            SIMULATED.fetch_add(1, Ordering::Relaxed);
        }
    });
    assert!(n >= 3);
    // The shipped scenarios fit the harness limits: they really run.
    assert!(
        SIMULATED.load(Ordering::Relaxed) >= 3,
        "{SIMULATED:?} of {n} ran"
    );
}

/// The harness must keep fuzzed scenarios away from files that never end.
#[test]
fn scenario_harness_refuses_device_trace_files() {
    let toml = "[sim]\nduration = \"1s\"\n[[nodes]]\nname = \"a\"\n[[nodes]]\nname = \"b\"\n\
                [[links]]\na = \"a\"\nb = \"b\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n\
                [links.trace]\nkind = \"mahimahi\"\nfile = \"/dev/zero\"\n";
    // Returns at once instead of reading /dev/zero forever.
    harness::scenario_toml(toml.as_bytes());
    harness::simulate(toml.as_bytes());
    let json =
        r#"{"nodes":[{"name":"a"}],"links":[{"trace":{"kind":"mahimahi","file":"/dev/zero"}}]}"#;
    harness::scenario_json(json.as_bytes());
}
