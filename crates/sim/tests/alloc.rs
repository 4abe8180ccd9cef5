//! The hot path allocates nothing per event in steady state: a counting
//! global allocator shows that the allocations made inside the run loop do
//! not grow with simulated time beyond the amortised doubling of the output
//! logs (segment log, event log: O(log n) reallocations).
//!
//! The counter is per thread, so tests running in parallel in this binary
//! do not disturb each other. The run loop is isolated with the progress
//! callback: a snapshot at the first report at or after 10 % of the run (past
//! slow start and the warm-up of every queue's capacity) and one at 100 %
//! (the loop has ended; reporting has not begun).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::PathBuf;

use airtcp_sim::{run, RunOptions, Scenario};

struct Counting;

thread_local! {
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
}

fn bump() {
    // `try_with`: the allocator may run while the thread-local is being torn down.
    let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        bump();
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        bump();
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        bump();
        System.realloc(ptr, layout, new_size)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocs() -> u64 {
    ALLOCS.with(|c| c.get())
}

/// Allocation figures of one run.
#[derive(Debug)]
struct Figures {
    /// Allocations of the whole `run` call (setup, loop, report).
    total: u64,
    /// Allocations between the 10 % and the 100 % progress reports.
    in_loop: u64,
    events: u64,
    log_events: usize,
    /// Data segments in the segment log (it grows by doubling); printed only.
    #[allow(dead_code)]
    segments: usize,
}

fn measure(sets: &[(&str, &str)], duration: &str, series: &str) -> Figures {
    let mut sets: Vec<(&str, &str)> = sets.to_vec();
    sets.push(("links.1.loss_ab.p", "0.01"));
    measure_file("bulk-lossy.toml", &sets, duration, series)
}

fn measure_file(file: &str, sets: &[(&str, &str)], duration: &str, series: &str) -> Figures {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(file);
    let mut sets: Vec<(String, String)> = sets.iter().map(|(p, v)| (p.to_string(), v.to_string())).collect();
    sets.push(("sim.duration".into(), duration.into()));
    sets.push(("sim.series_interval".into(), series.into()));
    let s = Scenario::from_path(&path, &sets).unwrap();
    let mut from: Option<u64> = None;
    let mut to = 0;
    let mut cb = |f: f64| {
        let n = allocs();
        if f >= 0.1 && from.is_none() {
            from = Some(n);
        }
        if f >= 1.0 {
            to = n;
        }
    };
    let before = allocs();
    let o = run(&s, RunOptions { seed: Some(1), progress: Some(&mut cb), ..Default::default() }).unwrap();
    let total = allocs() - before;
    let in_loop = to - from.expect("a progress report at 10 %");
    if series == "0s" {
        assert!(o.series[0].t_s.is_empty(), "series_interval 0s disables the series");
    }
    Figures { total, in_loop, events: o.events_executed, log_events: o.events.len(), segments: o.segments[0].t_s.len() }
}

/// Runs 60 s and 600 s and checks that the extra simulated time costs less
/// than one allocation per 1000 extra events inside the loop.
///
/// Outside the loop, reporting formats each event-log entry into two
/// `String`s (about 4 allocations with the formatting); that grows with the
/// number of log entries, not of events, and is bounded separately.
fn check(name: &str, sets: &[(&str, &str)], series: &str) {
    check_file(name, None, sets, series, ("60s", "600s"))
}

fn check_file(name: &str, file: Option<&str>, sets: &[(&str, &str)], series: &str, durations: (&str, &str)) {
    let m = |d: &str| match file {
        Some(f) => measure_file(f, sets, d, series),
        None => measure(sets, d, series),
    };
    let short = m(durations.0);
    let long = m(durations.1);
    let d_events = long.events - short.events;
    let d_loop = long.in_loop as i64 - short.in_loop as i64;
    eprintln!("{name}: {} {short:?}", durations.0);
    eprintln!("{name}: {} {long:?}", durations.1);
    let d_total = long.total as i64 - short.total as i64;
    let d_log = (long.log_events - short.log_events) as i64;
    eprintln!("{name}: +{d_events} events, +{d_loop} allocations in the loop, +{d_total} in the whole run (+{d_log} log entries)");
    assert!(d_events > 100_000, "{name}: the long run must do real work ({d_events})");
    assert!(d_loop * 1000 < d_events as i64, "{name}: {d_loop} loop allocations for {d_events} extra events");
    // Even the whole loop of the long run stays in the O(log n) regime.
    assert!(long.in_loop * 1000 < long.events, "{name}: {} loop allocations for {} events", long.in_loop, long.events);
    assert!(
        d_total < 5 * d_log + d_events as i64 / 1000,
        "{name}: {d_total} more allocations in the whole run for {d_log} more log entries"
    );
}

/// Linux's behaviour instead of ns-3's (see the scenario's header).
const LINUX: &[(&str, &str)] = &[
    ("flows.0.tcp.recovery", "prr"),
    ("flows.0.tcp.reno_sacks", "reset"),
    ("flows.0.tcp.rto_ssthresh", "once-per-window"),
    ("flows.0.tcp.loss_exit_growth", "all-acked"),
    ("flows.0.tcp.partial_ack_rto", "every"),
    ("flows.0.tcp.initial_quickacks", "0"),
];

fn with(extra: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
    LINUX.iter().chain(extra).copied().collect()
}

#[test]
fn newreno_ns3_run_loop_does_not_allocate_per_event() {
    check("newreno-ns3", &[], "0s");
}

#[test]
fn newreno_sack_run_loop_does_not_allocate_per_event() {
    check("newreno-sack", &with(&[("flows.0.tcp.sack", "true")]), "0s");
}

#[test]
fn cubic_sack_run_loop_does_not_allocate_per_event() {
    check("cubic-sack", &with(&[("flows.0.tcp.sack", "true"), ("flows.0.tcp.cc", "cubic")]), "0s");
}

#[test]
fn bbr_sack_run_loop_does_not_allocate_per_event() {
    check("bbr-sack", &with(&[("flows.0.tcp.sack", "true"), ("flows.0.tcp.cc", "bbr")]), "0s");
}

/// The time series is sized at build time from the duration: sampling
/// (the sender's probe, nine pushes a row) stays allocation-free too.
#[test]
fn sampling_the_series_does_not_allocate() {
    check("newreno-ns3-series", &[], "10ms");
}

/// A TCP download over an 802.11a hop with frame errors (MAC retries,
/// beacons, the medium's own event heap): the wireless path allocates
/// nothing per event either.
#[test]
fn wifi_run_loop_does_not_allocate_per_event() {
    check_file("wifi-tcp", Some("wifi-tcp.toml"), &[("wifi_errors.0.fer", "0.1")], "0s", ("20s", "200s"));
}
