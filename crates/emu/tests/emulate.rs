//! End-to-end checks of `airtcp-emulate` with real kernels. They need root
//! (CAP_NET_ADMIN), iperf3 and python3, as CI has; without CAP_NET_ADMIN
//! they say so and check only the refusal.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_airtcp-emulate");

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scenario() -> String {
    root().join("scenarios/emu-path.toml").to_string_lossy().into_owned()
}

/// A run's output directory, removed when the test passes (kept when it
/// fails, to be read), so test runs leave nothing behind in /tmp.
struct OutDir(PathBuf);

impl std::ops::Deref for OutDir {
    type Target = PathBuf;
    fn deref(&self) -> &PathBuf {
        &self.0
    }
}

impl AsRef<Path> for OutDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for OutDir {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

fn out_dir(name: &str) -> OutDir {
    let d = std::env::temp_dir().join(format!("airtcp-emu-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    OutDir(d)
}

fn emulate(args: &[&str]) -> Output {
    Command::new(BIN).args(args).stdin(Stdio::null()).output().expect("run airtcp-emulate")
}

fn summary(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).expect("summary.json")).unwrap()
}

fn namespaces_of(pid: u32) -> Vec<String> {
    let prefix = format!("airtcp-{pid}-");
    std::fs::read_dir("/run/netns")
        .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).filter(|n| n.starts_with(&prefix)).collect())
        .unwrap_or_default()
}

fn privileged() -> bool {
    let ok = airtcp_emu::netns::has_net_admin();
    if !ok {
        eprintln!("not root: the emulation checks need CAP_NET_ADMIN (CI runs them as root)");
    }
    ok
}

/// tshark's reading of the run's capture of link 0: the number of
/// full-sized segments, after checking no frame is malformed or has an
/// error-level finding (a bad checksum). `port`'s payload is decoded as
/// plain data. None when tshark is not installed.
fn clean_capture(dir: &Path, port: u16) -> Option<usize> {
    let pcap = dir.join("pcap/link0_snd-rcv.pcap");
    Command::new("tshark").arg("-v").output().ok()?;
    // One pass: every frame's payload length and whether it is malformed
    // or has an error-level finding (a bad checksum).
    let t = Command::new("tshark")
        .args(["-r", &pcap.to_string_lossy(), "-o", "tcp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE"])
        // iperf3's payload is random bytes: without this, tshark's
        // heuristic dissectors now and then take a segment for Thrift
        // and flag "varint too large" as an error (1 run in ~6).
        .args(["-d", &format!("tcp.port=={port},data")])
        .args(["-T", "fields", "-e", "tcp.len", "-e", "_ws.malformed", "-e", "_ws.expert.severity"])
        .output()
        .unwrap();
    assert!(t.status.success());
    let text = String::from_utf8_lossy(&t.stdout);
    let full = text.lines().filter(|l| l.split('\t').next().and_then(|n| n.parse::<u32>().ok()).is_some_and(|n| n > 1000)).count();
    // Severity 8388608 is PI_ERROR (epan/proto.h): bad checksums and the like.
    let bad: Vec<&str> = text
        .lines()
        .filter(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            f.get(1).is_some_and(|m| !m.is_empty()) || f.get(2).is_some_and(|s| s.contains("8388608"))
        })
        .collect();
    assert!(bad.is_empty(), "malformed or error frames: {:?}", &bad[..bad.len().min(5)]);
    Some(full)
}

/// A kernel bulk transfer through the emulated 10 Mb/s path: the bytes
/// arrive (iperf3's count), the capture holds the real packets with valid
/// checksums (tshark finds nothing malformed), the summary has the
/// lateness figures and the kernel counters, and nothing is left behind.
#[test]
fn kernel_transfer_crosses_the_emulated_path() {
    if !privileged() {
        return;
    }
    let _one = one_transfer_at_a_time();
    let dir = out_dir("bulk");
    let ds = dir.to_string_lossy().into_owned();
    let o = emulate(&[
        &scenario(), "--out", &ds, "--real", "snd,rcv", "--pcap",
        // iperf3 switches to -C's algorithm after connect(): a socket that
        // started as BBR (a host default) would stay paced (docs/emulate.md).
        "--setup", "snd: sysctl -qw net.ipv4.tcp_congestion_control=reno",
        "--serve", "rcv: iperf3 -s -1",
        "--exec", &format!("snd: sleep 0.3; iperf3 -c rcv -t 4 -C cubic -J > {ds}/iperf.json"),
    ]);
    assert!(matches!(o.status.code(), Some(0) | Some(3)), "{}", String::from_utf8_lossy(&o.stderr));
    let s = summary(&dir);
    let e = &s["emulation"];
    let ip: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("iperf.json")).unwrap()).unwrap();
    let got = ip["end"]["sum_received"]["bits_per_second"].as_f64().unwrap();
    // 10 Mb/s less IP/TCP headers (52 of 1500 bytes) and slow start.
    assert!(got > 7.0e6 && got < 10.0e6, "goodput {got}");
    // The short form of the kernel-against-model check (docs/emulate.md has
    // the long one): airtcp's Linux-behaving Cubic on the same path and
    // duration reaches the kernel's goodput within 5 %, and its mean smoothed
    // RTT is within 10 ms of the kernel's. The kernel's figure is iperf3's:
    // the mean of tcpi_rtt read once a second (four reads here, while the
    // queue fills), the model's the mean over every ACK; over 20 s the two
    // agree within 1.5 ms (docs/emulate.md), over 4 s only this well.
    let sc = airtcp_sim::Scenario::from_path(Path::new(&scenario()), &[("sim.duration".into(), "4s".into())]).unwrap();
    let model = airtcp_sim::run(&sc, Default::default()).unwrap();
    let mf = &model.summary["flows"][0];
    let mg = mf["goodput_bps"].as_f64().unwrap();
    assert!((got - mg).abs() < 0.05 * mg, "kernel {got} b/s, model {mg} b/s");
    let k_rtt = ip["end"]["streams"][0]["sender"]["mean_rtt"].as_f64().unwrap() / 1e3;
    let m_rtt = mf["srtt_mean_s"].as_f64().unwrap() * 1e3;
    assert!((k_rtt - m_rtt).abs() < 10.0, "mean srtt: kernel {k_rtt} ms, model {m_rtt} ms");
    assert!(e["wire"]["to_kernel_packets"].as_u64().unwrap() > 2000);
    assert_eq!(e["wire"]["left_synthesized"], 0, "every packet left with the kernel's bytes");
    assert!(e["lateness"]["events"].as_u64().unwrap() > 2000);
    assert!(e["lateness"]["max_us"].as_f64().unwrap() >= e["lateness"]["p99_us"].as_f64().unwrap() - 1.0);
    assert!(e["kernel_counters"]["snd"]["Tcp.OutSegs"].as_i64().unwrap() > 2000);
    if let Some(full) = clean_capture(&dir, 5201) {
        assert!(full > 1000, "{full} full-sized segments in the capture");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Datagrams the network cannot carry are counted with their reason:
/// a bad TCP checksum, a destination no node has, a protocol it has no
/// type for. The raw socket lets the sender namespace write them.
#[test]
fn bad_datagrams_are_counted_and_dropped() {
    if !privileged() {
        return;
    }
    let dir = out_dir("bad");
    let ds = dir.to_string_lossy().into_owned();
    let script = r#"
import socket, struct
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
def ip(dst, proto, payload):
    h = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(payload), 1, 0x4000, 64, proto, 0,
                    socket.inet_aton('10.0.0.1'), socket.inet_aton(dst))
    return h + payload
def csum(b):
    b += b'\0' * (len(b) % 2)
    t = sum(struct.unpack('!%dH' % (len(b) // 2), b))
    while t >> 16: t = (t & 0xffff) + (t >> 16)
    return ~t & 0xffff
def tcp(dst, good):
    t = struct.pack('!HHIIBBHHH', 1000, 2000, 1, 0, 0x50, 0x10, 1000, 0, 0)
    c = csum(socket.inet_aton('10.0.0.1') + socket.inet_aton(dst) + struct.pack('!BBH', 0, 6, len(t)) + t)
    return t[:16] + struct.pack('!H', c if good else c ^ 0x5555) + t[18:]
s.sendto(ip('10.0.0.2', 6, tcp('10.0.0.2', False)), ('10.0.0.2', 0))
s.sendto(ip('10.9.9.9', 6, tcp('10.9.9.9', True)), ('10.9.9.9', 0))
s.sendto(ip('10.0.0.2', 47, b'\0' * 8), ('10.0.0.2', 0))
"#;
    let o = emulate(&[&scenario(), "--out", &ds, "--real", "snd,rcv", "--exec", &format!("snd: python3 -c \"{script}\"; sleep 0.2")]);
    assert!(matches!(o.status.code(), Some(0) | Some(3)), "{}", String::from_utf8_lossy(&o.stderr));
    let d = &summary(&dir)["emulation"]["wire"]["dropped"];
    assert_eq!(d["bad_checksum"], 1, "{d}");
    assert_eq!(d["no_such_address"], 1, "{d}");
    assert_eq!(d["unsupported"], 1, "{d}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// SIGTERM ends a run as its normal end does (namespaces gone, exit 130);
/// after SIGKILL, the namespaces stay until the next start removes them.
#[test]
fn signals_clean_up_and_leftovers_are_removed() {
    if !privileged() {
        return;
    }
    let start = |name: &str| {
        let d = out_dir(name);
        let child = Command::new(BIN)
            .args([&scenario(), "--out", &d.to_string_lossy(), "--real", "snd,rcv", "--serve", "rcv: sleep 60"])
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let t = Instant::now();
        while namespaces_of(child.id()).len() < 2 {
            assert!(t.elapsed() < Duration::from_secs(10), "namespaces never appeared");
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(300));
        (child, d)
    };
    // Two at once, each with its own namespaces.
    let (term, _term_out) = start("term");
    let (mut kill, _kill_out) = start("kill");
    let term_pid = term.id();
    assert_eq!(namespaces_of(term_pid).len(), 2);
    assert_eq!(namespaces_of(kill.id()).len(), 2);
    // SAFETY: signalling the child this test started.
    unsafe { libc::kill(term_pid as i32, libc::SIGTERM) };
    let o = term.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(namespaces_of(term_pid).is_empty(), "SIGTERM left namespaces");
    kill.kill().unwrap();
    kill.wait().unwrap();
    let dead = kill.id();
    assert_eq!(namespaces_of(dead).len(), 2, "SIGKILL leaves its namespaces");
    let d = out_dir("after");
    let o = emulate(&[&scenario(), "--out", &d.to_string_lossy(), "--real", "snd", "--exec", "snd: true"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains(&format!("airtcp-{dead}-snd")), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(namespaces_of(dead).is_empty());
}

/// Without CAP_NET_ADMIN: one line, exit status 2.
#[test]
fn without_net_admin_one_line_and_exit_2() {
    let d = out_dir("nocap");
    let o = if airtcp_emu::netns::has_net_admin() {
        Command::new("capsh").args(["--drop=cap_net_admin", "--", "-c"]).arg(format!("{BIN} {} --out {} --real snd", scenario(), d.display())).output()
    } else {
        Command::new(BIN).args([&scenario(), "--out", &d.to_string_lossy(), "--real", "snd"]).output()
    }
    .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("CAP_NET_ADMIN"));
}

/// Options the kernel agreed to, from TCP_INFO (linux/tcp.h): the
/// `tcpi_options` byte and the send window-scale nibble, printed by the
/// test's Python ends as `tcpinfo <options> <snd_wscale> ...`.
const TCPINFO_PY: &str = "i = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104); opts, ws = i[5], i[6] & 15";
/// TCPI_OPT_TIMESTAMPS | TCPI_OPT_SACK | TCPI_OPT_WSCALE (linux/tcp.h).
const TS_SACK_WSCALE: u32 = 1 | 2 | 4;

/// The numbers after `tcpinfo` in a command's log.
fn tcpinfo_line(dir: &Path, log: &str) -> Vec<u64> {
    let text = std::fs::read_to_string(dir.join("exec").join(log)).unwrap();
    let line = text.lines().find(|l| l.starts_with("tcpinfo ")).unwrap_or_else(|| panic!("no tcpinfo line in {log}: {text}"));
    line.split_whitespace().skip(1).map(|x| x.parse().unwrap()).collect()
}

/// Held by the tests that run a transfer: the bulk test's smoothed-RTT
/// comparison is thrown off when other emulations share the two cores.
static ONE_TRANSFER_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_transfer_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_TRANSFER_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// A real sender, the scenario's simulated receiver, through TUNs with
/// TSO offload (`--tun-offload`): the kernel in `snd` connects to the simulated server's port (1024 + the flow's index) on
/// `rcv`, and does the handshake with airtcp's endpoint — timestamps, SACK
/// and window scaling agreed, as TCP_INFO shows — then sends 300,000
/// bytes over 2 % loss (the simulated receiver's SACKs drive the kernel's
/// recovery) and closes; the simulated server delivers every byte and
/// closes its side (the kernel reads its FIN).
#[test]
fn kernel_sender_to_simulated_receiver() {
    if !privileged() {
        return;
    }
    let _one = one_transfer_at_a_time();
    let dir = out_dir("ksim");
    let ds = dir.to_string_lossy().into_owned();
    let py = format!(
        "import socket; s = socket.create_connection(('rcv', 1024)); {TCPINFO_PY}; s.sendall(b'x' * 300000); \
         s.shutdown(socket.SHUT_WR); eof = s.recv(1); print('tcpinfo', opts, ws, len(eof))"
    );
    let o = emulate(&[
        &scenario(), "--out", &ds, "--real", "snd", "--pcap", "--set", "sim.duration=15s",
        "--set", "links.0.loss_ab.p=0.02",
        // The kernel's TSO super-packets, cut by the emulator, must make
        // the same byte stream.
        "--tun-offload", "read",
        "--exec", &format!("snd: python3 -c \"{py}\""),
    ]);
    assert!(matches!(o.status.code(), Some(0) | Some(3)), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("simulated receiver on rcv listens on 10.0.0.2:1024"));
    let s = summary(&dir);
    let e = &s["emulation"];
    assert_eq!(e["commands"][0]["exit"], 0, "{}", std::fs::read_to_string(dir.join("exec/exec0-snd.log")).unwrap_or_default());
    let [opts, ws, eof] = tcpinfo_line(&dir, "exec0-snd.log")[..] else { panic!() };
    assert_eq!(opts as u32 & TS_SACK_WSCALE, TS_SACK_WSCALE, "options the kernel agreed to: {opts:#x}");
    assert!(ws > 0, "the simulated receiver's window scale");
    assert_eq!(eof, 0, "the kernel read the simulated server's FIN");
    let end = &e["simulated_ends"][0];
    assert_eq!(end["simulated"], "server");
    assert_eq!(end["bytes_delivered"], 300_000);
    // The kernel ACKs the simulated server's FIN as it reads it, but the
    // emulation ends when the command exits: that last ACK may still be
    // crossing the path (seen under load), leaving the server in LAST-ACK.
    assert!(matches!(end["server_state"].as_str(), Some("Closed" | "LastAck")), "server state {}", end["server_state"]);
    // The kernel's segments entered with their bytes; the simulated
    // receiver's ACKs were made from its fields.
    let from = e["wire"]["from_kernel_packets"].as_u64().unwrap();
    assert!(from > 200);
    let reads = e["wire"]["reads"].as_u64().unwrap();
    assert!(reads > 0 && reads < from, "{reads} reads brought {from} datagrams");
    assert_eq!(e["wire"]["dropped"]["bad_checksum"], 0);
    assert!(e["wire"]["left_synthesized"].as_u64().unwrap() > 50);
    assert_eq!(e["kernel_counters"]["snd"]["Tcp.AttemptFails"], 0);
    assert_eq!(e["kernel_counters"]["snd"]["Tcp.OutRsts"], 0);
    clean_capture(&dir, 1024);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The scenario's simulated sender, a real receiver: airtcp's endpoint on
/// `snd` opens a connection to a kernel listening in `rcv` on the flow's
/// server port, sends a 500,000-byte transfer (zeros) and closes; the
/// kernel accepts the handshake and every segment (its application reads
/// exactly the transfer, then EOF) and acknowledges all of it.
#[test]
fn simulated_sender_to_kernel_receiver() {
    if !privileged() {
        return;
    }
    let _one = one_transfer_at_a_time();
    let dir = out_dir("simk");
    let ds = dir.to_string_lossy().into_owned();
    let py = format!(
        "import socket; l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); \
         l.bind(('0.0.0.0', 1024)); l.listen(1); s, _ = l.accept(); {TCPINFO_PY}; n = 0\n\
         while True:\n    b = s.recv(65536)\n    n += len(b)\n    if not b: break\n\
         print('tcpinfo', opts, ws, n, flush=True)"
    );
    // The listener is a --serve command: the clock starts once it listens
    // on the flow's port. The run lasts 3 s (the transfer takes about one).
    let o = emulate(&[
        &scenario(), "--out", &ds, "--real", "rcv", "--pcap", "--set", "sim.duration=3s",
        "--set", "flows.0.app=transfer", "--set", "flows.0.bytes=500000",
        "--serve", &format!("rcv: python3 -c \"{py}\""),
    ]);
    assert!(matches!(o.status.code(), Some(0) | Some(3)), "{}", String::from_utf8_lossy(&o.stderr));
    let s = summary(&dir);
    let e = &s["emulation"];
    assert_eq!(e["commands"][0]["exit"], 0, "{}", std::fs::read_to_string(dir.join("exec/serve0-rcv.log")).unwrap_or_default());
    let [opts, ws, n] = tcpinfo_line(&dir, "serve0-rcv.log")[..] else { panic!() };
    assert_eq!(opts as u32 & TS_SACK_WSCALE, TS_SACK_WSCALE, "options the kernel agreed to: {opts:#x}");
    assert!(ws > 0, "the simulated sender's window scale");
    assert_eq!(n, 500_000, "bytes the kernel's application read");
    let end = &e["simulated_ends"][0];
    assert_eq!(end["simulated"], "client");
    assert_eq!(end["bytes_acked_by_kernel"], 500_000);
    assert!(e["wire"]["left_synthesized"].as_u64().unwrap() > 300);
    assert_eq!(e["kernel_counters"]["rcv"]["Tcp.OutRsts"], 0);
    assert_eq!(e["kernel_counters"]["rcv"]["Tcp.InErrs"], 0, "every segment's checksum held");
    if let Some(full) = clean_capture(&dir, 1024) {
        assert!(full >= 300, "{full} full-sized segments");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The IPv4 datagrams of a raw-IP capture (link type 101; microsecond or
/// nanosecond pcap).
fn pcap_datagrams(path: &Path) -> Vec<Vec<u8>> {
    let b = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(u32::from_le_bytes(b[20..24].try_into().unwrap()), 101, "{}: raw IP", path.display());
    let (mut at, mut out) = (24, Vec::new());
    while at + 16 <= b.len() {
        let n = u32::from_le_bytes(b[at + 8..at + 12].try_into().unwrap()) as usize;
        assert!(at + 16 + n <= b.len(), "{}: the last record is cut short ({} of {n} bytes)", path.display(), b.len() - at - 16);
        out.push(b[at + 16..at + 16 + n].to_vec());
        at += 16 + n;
    }
    out
}

/// A TCP data segment toward `port`: (sequence number, IP ID, payload, and
/// the header fields segmentation copies: TOS, TTL, addresses, ports, ACK,
/// window and options).
fn data_toward(d: &[u8], port: u16) -> Option<(u32, u16, Vec<u8>, Vec<u8>)> {
    let ihl = usize::from(d[0] & 15) * 4;
    let thl = usize::from(d[ihl + 12] >> 4) * 4;
    if d[9] != 6 || u16::from_be_bytes([d[ihl + 2], d[ihl + 3]]) != port || d.len() == ihl + thl {
        return None;
    }
    let seq = u32::from_be_bytes(d[ihl + 4..ihl + 8].try_into().unwrap());
    let fields = [&d[1..2], &d[8..10], &d[12..20], &d[ihl..ihl + 4], &d[ihl + 8..ihl + 12], &d[ihl + 14..ihl + 16], &d[ihl + 20..ihl + thl]].concat();
    Some((seq, u16::from_be_bytes([d[4], d[5]]), d[ihl + thl..].to_vec(), fields))
}

/// Coalesced writes (`--tun-offload rw`) on a fast link: the segments of
/// the kernel's bulk transfer due together toward `rcv` leave as GSO
/// super-packets, and what `rcv`'s kernel receives (a capture on its TUN,
/// inside its namespace) is, packet by packet, the link's segments joined:
/// the same payload bytes, consecutive IP IDs, the same TCP and IP header
/// fields; tshark finds nothing malformed in it.
#[test]
fn coalesced_writes_reach_the_kernel_unchanged() {
    if !privileged() {
        return;
    }
    if Command::new("tcpdump").arg("--version").output().is_err() {
        eprintln!("tcpdump not found: the receiver's capture cannot be taken (scripts/test.sh installs it)");
        return;
    }
    let _one = one_transfer_at_a_time();
    let dir = out_dir("gso");
    let ds = dir.to_string_lossy().into_owned();
    let o = emulate(&[
        &scenario(), "--out", &ds, "--real", "snd,rcv", "--pcap", "--tun-offload", "rw",
        "--set", "links.0.rate=10Gbps", "--set", "links.0.delay=1ms", "--set", "links.0.queue_packets=1000",
        // -U: each packet written as it is captured, so the file is whole
        // long before the run stops tcpdump (buffered, its last block was
        // sometimes cut mid-record).
        "--serve", &format!("rcv: tcpdump -U -i eth0 -B 65536 -s 0 -w {ds}/rcv.pcap"),
        "--serve", "rcv: iperf3 -s -1",
        // The pauses let tcpdump start, and write everything before it is stopped.
        "--exec", "snd: sleep 0.5; iperf3 -c rcv -n 4M; sleep 1",
    ]);
    assert!(matches!(o.status.code(), Some(0) | Some(3)), "{}", String::from_utf8_lossy(&o.stderr));
    let e = &summary(&dir)["emulation"];
    assert_eq!(e["commands"][2]["exit"], 0, "the sender's iperf3");
    let w = &e["wire"];
    assert!(w["super_packets"].as_u64().unwrap() > 10, "{w}");
    assert!(w["writes"].as_u64().unwrap() * 2 < w["to_kernel_packets"].as_u64().unwrap(), "{w}");
    let link: Vec<_> = pcap_datagrams(&dir.join("pcap/link0_snd-rcv.pcap")).iter().filter_map(|d| data_toward(d, 5201)).collect();
    let got: Vec<_> = pcap_datagrams(&dir.join("rcv.pcap")).iter().filter_map(|d| data_toward(d, 5201)).collect();
    let mut by_seq = std::collections::HashMap::<u32, Vec<usize>>::new();
    for (i, s) in link.iter().enumerate() {
        by_seq.entry(s.0).or_default().push(i);
    }
    let mut merged = 0;
    for (seq, id, payload, fields) in &got {
        let (mut off, mut k) = (0, 0u16);
        while off < payload.len() {
            let next = by_seq.get(&seq.wrapping_add(off as u32)).into_iter().flatten().map(|&i| &link[i]).find(|s| {
                s.1 == id.wrapping_add(k) && &s.3 == fields && payload[off..].starts_with(&s.2)
            });
            let Some(s) = next else { panic!("the kernel received bytes at sequence {} no link segment carried", seq.wrapping_add(off as u32)) };
            off += s.2.len();
            k += 1;
        }
        merged += usize::from(k > 1);
    }
    assert!(merged > 10, "{merged} super-packets in the receiver's capture");
    let bytes = |v: &[(u32, u16, Vec<u8>, Vec<u8>)]| v.iter().map(|s| s.2.len()).sum::<usize>();
    assert_eq!(bytes(&got), bytes(&link), "payload bytes received against carried");
    // iperf3 -n stops counting once the sender has written its 4 MiB:
    // what is still in flight then is not received (1.87 to over 2.1 MB
    // arrive; the 2 MiB bound this had failed about one run in four).
    assert!(bytes(&got) > 1 << 20, "{} bytes", bytes(&got));
    // The capture's TCP checksums are the partial ones a GSO packet
    // carries (the device's to complete), so they are not checked here.
    let t = Command::new("tshark")
        .args(["-r", &format!("{ds}/rcv.pcap"), "-d", "tcp.port==5201,data", "-Y", "_ws.malformed or _ws.expert.severity == error"])
        .output();
    if let Ok(t) = t {
        assert!(t.status.success());
        assert!(t.stdout.is_empty(), "malformed or error frames: {}", String::from_utf8_lossy(&t.stdout));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
