//! One emulation: the scenario's network and agents run by the simulator's
//! engine ([`airtcp_sim::Driver`]) against the monotonic clock, with the
//! real hosts' kernels on TUN devices in their own namespaces.
//!
//! The loop: read every datagram the kernels have written (all TUNs, until
//! each is empty), inject each at the current time; run every event due by
//! now, then write what reached the real hosts to their TUNs (with
//! `--tun-offload rw` a flow's segments merged, [`crate::coalesce`]);
//! sleep until the next event is due or a TUN is readable. Each event's
//! lateness (when it ran against when it was due) is recorded.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::Instant as Mono;

use airtcp_core::{wire::WireError, Instant, Packet};
use airtcp_sim::realbytes::{Origin, RealBytes};
use airtcp_sim::{Driver, External, NoExternal, Scenario};

use crate::coalesce::Coalescer;
use crate::exec::{self, Running};
use crate::lateness::Lateness;
use crate::netns::{self, HostNs};
use crate::signals;

/// Which clock paces the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    /// Real time: event `t` runs when the monotonic clock reaches start + `t`.
    Real,
    /// As fast as possible (no real hosts): the simulator's own pace.
    Virtual,
}

pub struct Config {
    pub scenario: PathBuf,
    pub out: PathBuf,
    pub overrides: Vec<(String, String)>,
    pub seed: Option<u64>,
    pub real: Vec<String>,
    /// `(node, command)` run to completion in the node's namespace before the clock starts.
    pub setup: Vec<(String, String)>,
    /// Started before the clock; ended when the run ends.
    pub serve: Vec<(String, String)>,
    /// Started with the clock; the run ends once all have exited.
    pub exec: Vec<(String, String)>,
    pub pcap: bool,
    pub mtu: u32,
    pub clock: Clock,
    /// How the TUNs carry packets (`--tun-offload`).
    pub tun_offload: Offload,
}

/// How the TUNs carry packets (`--tun-offload off|read|rw`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offload {
    /// One datagram per read and per write, no virtio header.
    Off,
    /// `IFF_VNET_HDR` with TSO offered: reads bring the kernels'
    /// super-packets ([`crate::gso`]); writes one datagram each.
    Read,
    /// As `Read`, and the datagrams for one TUN due in the same wake are
    /// merged into GSO super-packets where the kernel's segmentation
    /// would cut them back out unchanged ([`crate::coalesce`]).
    ReadWrite,
}

impl Offload {
    pub fn name(self) -> &'static str {
        match self {
            Offload::Off => "off",
            Offload::Read => "read",
            Offload::ReadWrite => "rw",
        }
    }
}

/// Why a datagram from a kernel was not carried.
const DROP_REASONS: [&str; 6] = ["not_ipv4", "truncated", "bad_checksum", "unsupported", "malformed", "no_such_address"];

pub fn drop_reason(e: &WireError) -> usize {
    use WireError::*;
    match e {
        BadVersion { .. } => 0,
        Truncated { .. } | BadIhl { .. } | BadTotalLength { .. } | BadDataOffset { .. } | BadUdpLength { .. } => 1,
        BadIpChecksum { .. } | BadTcpChecksum { .. } | BadUdpChecksum { .. } | BadIcmpChecksum { .. } => 2,
        UnsupportedProtocol { .. } | UnsupportedIcmp { .. } | Fragmented { .. } | NestedTunnel { .. } => 3,
        _ => 4,
    }
}

#[derive(Default)]
struct WireCounters {
    from_kernel_packets: u64,
    from_kernel_bytes: u64,
    /// TUN reads that brought them (one each without offload).
    reads: u64,
    /// Datagrams and their bytes handed to the TUN writes.
    to_kernel_packets: u64,
    to_kernel_bytes: u64,
    /// TUN writes that carried them, and of those the super-packets.
    writes: u64,
    super_packets: u64,
    /// Datagrams in writes the kernel refused.
    write_errors: u64,
    /// How packets left toward the kernels ([`Origin`]): their own bytes,
    /// headers rewritten by an agent, or made by the network.
    left: [u64; 3],
    dropped: [u64; DROP_REASONS.len()],
}

/// The emulator's side of the engine: the real hosts' TUNs and the clock.
struct Real {
    t0: Mono,
    lat: Lateness,
    hosts: Vec<HostNs>,
    /// Scenario node -> index in `hosts`.
    slot: Vec<Option<usize>>,
    /// Every TUN as (host, interface); the coalescer's TUN numbers index it.
    who: Vec<(usize, usize)>,
    /// Index in `who` of each host's first TUN.
    first_tun: Vec<usize>,
    /// With `--tun-offload rw`: the pending super-packets.
    coalesce: Option<Coalescer>,
    rb: Rc<RefCell<RealBytes>>,
    out: Vec<u8>,
    wire: WireCounters,
}

/// One write of `segs` datagrams (`bytes`, virtio header first) into TUN
/// `who[tun]`.
fn write_tun(hosts: &[HostNs], who: &[(usize, usize)], wire: &mut WireCounters, tun: usize, bytes: &[u8], segs: u32) {
    let (h, t) = who[tun];
    wire.writes += 1;
    wire.super_packets += u64::from(segs > 1);
    if hosts[h].tuns[t].send_raw(bytes).is_err() {
        wire.write_errors += u64::from(segs);
    }
}

impl Real {
    #[inline]
    fn now(&self) -> Instant {
        Instant(self.t0.elapsed().as_nanos() as u64)
    }

    /// Write the super-packets still pending (the end of a wake).
    fn flush(&mut self) {
        let Real { coalesce, hosts, who, wire, .. } = self;
        if let Some(c) = coalesce {
            c.flush(&mut |tun, bytes, segs| write_tun(hosts, who, wire, tun, bytes, segs));
        }
    }
}

impl External for Real {
    const ACTIVE: bool = true;

    #[inline]
    fn event(&mut self, due: Instant) {
        let now = self.now();
        self.lat.record(now.0.saturating_sub(due.0));
    }

    fn deliver(&mut self, _now: Instant, node: u32, iface: u32, pkt: &Packet) {
        let Some(h) = self.slot.get(node as usize).copied().flatten() else { return };
        let n_tuns = self.hosts[h].tuns.len();
        if n_tuns == 0 {
            return;
        }
        let t = if (iface as usize) < n_tuns { iface as usize } else { 0 };
        let origin = self.rb.borrow().materialize(pkt, &mut self.out);
        self.wire.left[origin as usize] += 1;
        self.wire.to_kernel_packets += 1;
        self.wire.to_kernel_bytes += self.out.len() as u64;
        let Real { coalesce, hosts, who, wire, out, first_tun, .. } = self;
        match coalesce {
            Some(c) => c.push(first_tun[h] + t, out, &mut |tun, bytes, segs| write_tun(hosts, who, wire, tun, bytes, segs)),
            None => {
                wire.writes += 1;
                if hosts[h].tuns[t].send(out).is_err() {
                    wire.write_errors += 1;
                }
            }
        }
    }
}

/// Namespaces and commands, removed however the run ends (an error
/// returned early included).
struct Cleanup {
    ns: Vec<String>,
    cmds: Vec<Running>,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        for c in &mut self.cmds {
            c.stop();
        }
        for n in &self.ns {
            netns::remove(n);
        }
    }
}

/// What a finished emulation reports to the command line.
pub struct Outcome {
    pub overloaded: bool,
    pub lateness: serde_json::Value,
    pub interrupted: bool,
}

/// The flows with one simulated end, with what that end counted: the
/// bytes the kernel acknowledged (a simulated sender) or the bytes it
/// delivered (a simulated receiver). The flow's own entry in `flows` has
/// the simulated end's figures; those of its real end are the kernel's,
/// in `kernel_counters`.
fn simulated_ends(mixed: &[airtcp_sim::MixedFlow], summary: &serde_json::Value) -> serde_json::Value {
    mixed
        .iter()
        .map(|m| {
            let f = &summary["flows"][m.flow];
            let mut e = serde_json::json!({
                "flow": m.flow,
                "simulated": if m.simulated_client { "client" } else { "server" },
                "server": format!("{}:{}", dotted(m.server_addr), m.server_port),
            });
            if m.simulated_client {
                e["bytes_acked_by_kernel"] = f["sender"]["bytes_acked"].clone();
                e["client_state"] = f["client_state"].clone();
            } else {
                e["bytes_delivered"] = f["bytes_delivered"].clone();
                e["server_state"] = f["server_state"].clone();
            }
            e
        })
        .collect()
}

fn dotted(a: [u8; 4]) -> String {
    format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3])
}

/// What the user's commands must do for a flow with one simulated end.
fn mixed_flow_line(sc: &Scenario, m: &airtcp_sim::MixedFlow) -> String {
    let f = &sc.flows[m.flow];
    let (from, to) = (&sc.nodes[f.from].name, &sc.nodes[f.to].name);
    let server = format!("{}:{}", dotted(m.server_addr), m.server_port);
    if m.simulated_client {
        format!("flow {} ({from} -> {to}): the simulated sender on {from} connects to {server}: listen there in {to}", m.flow)
    } else {
        format!("flow {} ({from} -> {to}): the simulated receiver on {to} listens on {server}: connect to it from {from}", m.flow)
    }
}

/// How long the clock waits for the `--serve` commands' listeners.
const LISTEN_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Before the clock starts, wait until a `--serve` command of the real
/// host behind each simulated client's flow listens on the flow's port:
/// a simulated client's SYN that finds no listener is reset and the flow
/// is over, and how soon a program listens is not known (a Python
/// program under load takes over a second). Hosts without a `--serve`
/// command are not waited for (their listener comes with `--exec`, with
/// the clock).
fn wait_for_listeners(sc: &Scenario, mixed: &[airtcp_sim::MixedFlow], ns_names: &[Option<String>], serve: &[Running]) -> Result<(), String> {
    let t = Mono::now();
    for m in mixed.iter().filter(|m| m.simulated_client) {
        let node = sc.flows[m.flow].to;
        let Some(ns) = &ns_names[node] else { continue };
        let name = &sc.nodes[node].name;
        let pids: Vec<u32> = serve.iter().filter(|c| &c.node == name).map(|c| c.child.id()).collect();
        if pids.is_empty() {
            continue;
        }
        while !pids.iter().any(|&p| netns::listening(p, ns, m.server_port)) {
            if t.elapsed() > LISTEN_WAIT || signals::stop_requested() {
                return Err(format!(
                    "flow {}: nothing listens on port {} in {name} after {} s (the simulated sender connects there)",
                    m.flow, m.server_port, LISTEN_WAIT.as_secs()
                ));
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
    Ok(())
}

/// `/etc/hosts` text naming every node by its first address.
fn hosts_file(sc: &Scenario, driver: &Driver) -> String {
    let mut s = String::from("127.0.0.1 localhost\n");
    for (i, n) in sc.nodes.iter().enumerate() {
        if let Some(f) = driver.ifaces(i).first() {
            let a = f.addr;
            s.push_str(&format!("{}.{}.{}.{} {}\n", a[0], a[1], a[2], a[3], n.name));
        }
    }
    s
}

/// `Tcp`/`TcpExt`/`Ip` counters of a namespace (`/proc/net/snmp` and
/// `/proc/net/netstat` are per network namespace), keyed `Group.Name`.
fn kernel_counters(ns: &str) -> serde_json::Value {
    let out = std::process::Command::new("ip")
        .args(["netns", "exec", ns, "cat", "/proc/net/snmp", "/proc/net/netstat"])
        .output();
    let mut map = serde_json::Map::new();
    if let Ok(o) = out {
        let text = String::from_utf8_lossy(&o.stdout);
        let lines: Vec<&str> = text.lines().collect();
        for pair in lines.chunks(2) {
            let [head, vals] = pair else { continue };
            let (Some((g, names)), Some((_, values))) = (head.split_once(':'), vals.split_once(':')) else { continue };
            if !matches!(g, "Tcp" | "TcpExt" | "Ip" | "IpExt") {
                continue;
            }
            for (n, v) in names.split_whitespace().zip(values.split_whitespace()) {
                if let Ok(v) = v.parse::<i64>() {
                    map.insert(format!("{g}.{n}"), v.into());
                }
            }
        }
    }
    serde_json::Value::Object(map)
}

fn node_of(sc: &Scenario, name: &str, what: &str) -> Result<usize, String> {
    sc.node_index(name).ok_or_else(|| {
        let names: Vec<&str> = sc.nodes.iter().map(|n| n.name.as_str()).collect();
        format!("{what}: no node \"{name}\" in the scenario (nodes: {})", names.join(", "))
    })
}

/// Run one emulation and write its outputs into `cfg.out`.
pub fn run(cfg: &Config) -> Result<Outcome, String> {
    let mut sc = Scenario::from_path(&cfg.scenario, &cfg.overrides).map_err(|e| e.to_string())?;
    let mut real_nodes = Vec::new();
    for name in &cfg.real {
        real_nodes.push(node_of(&sc, name, "--real")?);
    }
    for (node, _) in cfg.setup.iter().chain(&cfg.serve).chain(&cfg.exec) {
        let i = node_of(&sc, node, "command")?;
        if !real_nodes.contains(&i) {
            return Err(format!("command for \"{node}\", which is not a real host (add it to --real)"));
        }
    }
    if cfg.clock == Clock::Virtual && !real_nodes.is_empty() {
        return Err("--clock virtual runs without real hosts: a kernel cannot follow a virtual clock".into());
    }
    // A flow between two real hosts is the kernels' business. A flow with
    // one real end keeps its simulated end, which talks to the kernel
    // (`Driver::mixed_flows`); the real end's own endpoint stays idle.
    sc.flows.retain(|f| !(real_nodes.contains(&f.from) && real_nodes.contains(&f.to)));
    std::fs::create_dir_all(&cfg.out).map_err(|e| format!("{}: {e}", cfg.out.display()))?;
    let rb = Rc::new(RefCell::new(RealBytes::new(64 << 20)));
    let pcap = cfg.pcap.then(|| cfg.out.join("pcap"));
    let mut driver = Driver::new(&sc, cfg.seed, pcap, &real_nodes, rb.clone()).map_err(|e| e.to_string())?;

    if cfg.clock == Clock::Virtual {
        let t = Mono::now();
        driver.run_until(driver.end(), &mut NoExternal);
        let end = driver.end();
        let out = driver.finish(end, t.elapsed().as_secs_f64()).map_err(|e| e.to_string())?;
        airtcp_sim::write_outputs(&out, &cfg.out).map_err(|e| e.to_string())?;
        return Ok(Outcome { overloaded: false, lateness: serde_json::Value::Null, interrupted: false });
    }

    let mixed = driver.mixed_flows();
    for m in &mixed {
        eprintln!("{}", mixed_flow_line(&sc, m));
    }
    let removed = netns::remove_leftovers();
    if !removed.is_empty() {
        eprintln!("removed what stopped emulations left: {}", removed.join(", "));
    }
    let pid = std::process::id();
    let hosts_text = hosts_file(&sc, &driver);
    let mut guard = Cleanup { ns: Vec::new(), cmds: Vec::new() };
    let mut hosts = Vec::new();
    let mut slot = vec![None; sc.nodes.len()];
    for (k, &n) in real_nodes.iter().enumerate() {
        let ifaces = driver.ifaces(n);
        let name = &sc.nodes[n].name;
        guard.ns.push(netns::ns_name(pid, name));
        let h = netns::create(pid, k, n, name, &ifaces, cfg.mtu, &hosts_text, cfg.tun_offload != Offload::Off).map_err(|e| format!("namespace of {name}: {e}"))?;
        exec::setup(&h.ns, "sysctl -qw net.ipv6.conf.all.disable_ipv6=1").map_err(|e| e.to_string())?;
        slot[n] = Some(hosts.len());
        hosts.push(h);
    }
    let ns_names: Vec<Option<String>> = slot.iter().map(|s| s.map(|h: usize| hosts[h].ns.clone())).collect();
    let ns_of = |node: &str| ns_names[sc.node_index(node).expect("checked")].clone().expect("a real host");
    for (node, cmd) in &cfg.setup {
        exec::setup(&ns_of(node), cmd).map_err(|e| e.to_string())?;
    }
    let logs = cfg.out.join("exec");
    std::fs::create_dir_all(&logs).map_err(|e| format!("{}: {e}", logs.display()))?;
    for (i, (node, cmd)) in cfg.serve.iter().enumerate() {
        let log = logs.join(format!("serve{i}-{node}.log"));
        guard.cmds.push(exec::spawn(&ns_of(node), node, cmd, &log).map_err(|e| format!("{cmd}: {e}"))?);
    }
    let n_serve = guard.cmds.len();
    signals::install();
    wait_for_listeners(&sc, &mixed, &ns_names, &guard.cmds)?;
    let realtime = pace_in_real_time();

    let who: Vec<(usize, usize)> = hosts.iter().enumerate().flat_map(|(h, x)| (0..x.tuns.len()).map(move |t| (h, t))).collect();
    let first_tun = hosts.iter().scan(0, |n, x| Some(std::mem::replace(n, *n + x.tuns.len()))).collect();
    let coalesce = (cfg.tun_offload == Offload::ReadWrite).then(|| Coalescer::new(who.len()));
    let mut real = Real {
        t0: Mono::now(),
        lat: Lateness::default(),
        hosts,
        slot,
        who,
        first_tun,
        coalesce,
        rb: rb.clone(),
        out: Vec::with_capacity(65_536),
        wire: WireCounters::default(),
    };
    for (i, (node, cmd)) in cfg.exec.iter().enumerate() {
        let log = logs.join(format!("exec{i}-{node}.log"));
        guard.cmds.push(exec::spawn(&ns_of(node), node, cmd, &log).map_err(|e| format!("{cmd}: {e}"))?);
    }
    let (stop, interrupted) = real_time_loop(&mut driver, &mut real, &mut guard.cmds[n_serve..], !cfg.exec.is_empty());
    let wall = real.t0.elapsed().as_secs_f64();
    for c in &mut guard.cmds {
        c.stop();
    }
    let counters: BTreeMap<String, serde_json::Value> =
        real.hosts.iter().map(|h| (sc.nodes[h.node].name.clone(), kernel_counters(&h.ns))).collect();

    let mut out = driver.finish(stop, wall).map_err(|e| e.to_string())?;
    let lateness = real.lat.to_json();
    let overloaded = real.lat.overloaded();
    let w = &real.wire;
    let dropped: serde_json::Map<String, serde_json::Value> =
        DROP_REASONS.iter().zip(w.dropped).map(|(r, n)| (r.to_string(), n.into())).collect();
    let rbs = rb.borrow().stats;
    let emu = serde_json::json!({
        "clock": "real",
        "sched_fifo": realtime,
        "stopped_at_s": airtcp_sim::secs(stop.0),
        "interrupted": interrupted,
        "overloaded": overloaded,
        "lateness": lateness,
        "real_hosts": real.hosts.iter().map(|h| serde_json::json!({
            "node": sc.nodes[h.node].name, "namespace": h.ns,
            "interfaces": h.tuns.iter().map(|t| t.name.clone()).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "commands": guard.cmds.iter().map(|c| serde_json::json!({"node": c.node, "cmd": c.cmd, "exit": c.status})).collect::<Vec<_>>(),
        "kernel_counters": counters,
        "simulated_ends": simulated_ends(&mixed, &out.summary),
        "wire": {
            "from_kernel_packets": w.from_kernel_packets, "from_kernel_bytes": w.from_kernel_bytes,
            "tun_offload": cfg.tun_offload.name(), "reads": w.reads,
            "to_kernel_packets": w.to_kernel_packets, "to_kernel_bytes": w.to_kernel_bytes,
            "writes": w.writes, "super_packets": w.super_packets,
            "write_errors": w.write_errors, "dropped": dropped,
            "left_original": w.left[Origin::Original as usize], "left_rewritten": w.left[Origin::Rewritten as usize],
            "left_synthesized": w.left[Origin::Synthesized as usize], "ring_overwrites": rbs.evicted,
        },
    });
    if let Some(o) = out.summary.as_object_mut() {
        o.insert("emulation".into(), emu);
    }
    airtcp_sim::write_outputs(&out, &cfg.out).map_err(|e| e.to_string())?;
    drop(guard);
    Ok(Outcome { overloaded, lateness, interrupted })
}

/// Ask for what a paced loop needs from the scheduler: wake-ups on time
/// even when other processes keep both cores busy (SCHED_FIFO, priority
/// 10 of 99: above every normal process, below the kernel's own real-time
/// threads; the kernel's RT throttling still leaves others 5 % of each
/// second) and no timer slack (the default 50 µs would be added to every
/// sleep). Best effort: returns whether SCHED_FIFO was granted.
fn pace_in_real_time() -> bool {
    // SAFETY: plain syscalls on this thread with valid arguments.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong);
        let p = libc::sched_param { sched_priority: 10 };
        // SCHED_RESET_ON_FORK: the --exec commands started after this run
        // with the normal policy, as the kernels' applications would.
        libc::sched_setscheduler(0, libc::SCHED_FIFO | libc::SCHED_RESET_ON_FORK, &p) == 0
    }
}

/// Datagrams read from one TUN per turn before the others get theirs.
const READ_BATCH: usize = 64;

/// One datagram from a kernel, stamped `now`: admitted (its bytes kept)
/// and injected at `node`, or counted with why it was dropped.
#[inline]
fn take(driver: &mut Driver, real: &mut Real, node: usize, now: Instant, d: &[u8]) {
    real.wire.from_kernel_packets += 1;
    real.wire.from_kernel_bytes += d.len() as u64;
    let admitted = real.rb.borrow_mut().admit(d);
    match admitted {
        Ok(pkt) if driver.owns(pkt.net_header().dst) => driver.inject(now, node, pkt, real),
        Ok(_) => real.wire.dropped[5] += 1,
        Err(e) => real.wire.dropped[drop_reason(&e)] += 1,
    }
}

/// Run every event due by `t`, then write what they left pending: the
/// datagrams merged in this wake were all due by `t`, so none is written
/// before its time.
#[inline]
fn advance(driver: &mut Driver, real: &mut Real, t: Instant) {
    driver.run_until(t, real);
    real.flush();
}

/// The paced loop; returns the simulated time it stopped at and whether a
/// signal stopped it.
fn real_time_loop(driver: &mut Driver, real: &mut Real, cmds: &mut [Running], wait_cmds: bool) -> (Instant, bool) {
    // A read is at most a 64 KiB datagram, plus the virtio header.
    let mut buf = vec![0u8; 65_536 + crate::gso::VNET_HDR_LEN];
    let mut scratch = Vec::with_capacity(65_536);
    let mut fds: Vec<libc::pollfd> = real
        .hosts
        .iter()
        .flat_map(|h| h.tuns.iter().map(|t| libc::pollfd { fd: t.raw_fd(), events: libc::POLLIN, revents: 0 }))
        .collect();
    let who = real.who.clone();
    let end = driver.end();
    let mut next_check = Instant::ZERO;
    loop {
        let now = real.now();
        if now >= end {
            advance(driver, real, end);
            return (end, false);
        }
        if now >= next_check {
            next_check = now + airtcp_core::Duration::from_millis(20);
            if signals::stop_requested() {
                return (now, true);
            }
            if wait_cmds && cmds.iter_mut().all(|c| c.poll()) {
                advance(driver, real, now);
                return (now, false);
            }
        }
        // Everything the kernels wrote, stamped with the time it is read.
        let mut any = false;
        for &(h, t) in &who {
            for _ in 0..READ_BATCH {
                let n = match real.hosts[h].tuns[t].recv(&mut buf) {
                    Ok(Some(n)) => n,
                    Ok(None) | Err(_) => break,
                };
                any = true;
                let now = real.now();
                advance(driver, real, now);
                real.wire.reads += 1;
                if real.hosts[h].tuns[t].offload {
                    let node = real.hosts[h].node;
                    let r = crate::gso::split(&buf[..n], &mut scratch, |d| take(driver, real, node, now, d));
                    if r.is_err() {
                        real.wire.dropped[4] += 1;
                    }
                } else {
                    take(driver, real, real.hosts[h].node, now, &buf[..n]);
                }
            }
        }
        let now = real.now();
        advance(driver, real, now);
        if any {
            continue;
        }
        // Sleep until the next event or a readable TUN; the last few
        // microseconds are spun (a wake-up from poll costs about that much).
        let due = driver.next_due().unwrap_or(end).min(next_check);
        let now = real.now();
        let wait = due.0.saturating_sub(now.0);
        if wait > 30_000 {
            let ts = libc::timespec { tv_sec: ((wait - 20_000) / 1_000_000_000) as _, tv_nsec: ((wait - 20_000) % 1_000_000_000) as _ };
            // SAFETY: fds is a valid array of pollfd for its length.
            unsafe { libc::ppoll(fds.as_mut_ptr(), fds.len() as _, &ts, std::ptr::null()) };
        }
    }
}
