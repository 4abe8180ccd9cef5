//! Network namespaces of the real hosts: one per host, named after the run
//! (`airtcp-<pid>-<node>`), each with one TUN per interface of its node
//! carrying that node's address, a default route, and an `/etc/hosts` (as
//! `ip netns exec` mounts `/etc/netns/<ns>/hosts`) naming every node of the
//! scenario. Set up with the `ip` command (iproute2): a handful of calls at
//! start and end, none on the packet path.
//!
//! The pid in the name lets a later start find what a killed run left
//! (namespaces outlive their creator; TUNs do not, they die with its file
//! descriptors) and lets two emulations run at once.

use std::io;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use airtcp_sim::IfaceInfo;

use crate::tun::Tun;


/// Prefix of every namespace an emulation creates.
pub const NS_PREFIX: &str = "airtcp-";
/// The binary's name as `/proc/<pid>/comm` shows it.
const COMM: &str = "airtcp-emulate";

pub struct HostNs {
    pub node: usize,
    pub ns: String,
    /// One TUN per interface of the node, in the node's interface order.
    pub tuns: Vec<Tun>,
}

/// Run `ip ARGS`, failing with its stderr.
pub fn ip(args: &[&str]) -> io::Result<()> {
    let out = Command::new("ip").args(args).stdin(Stdio::null()).output()?;
    if !out.status.success() {
        return Err(io::Error::other(format!("ip {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim())));
    }
    Ok(())
}

/// A node name as it may appear in a namespace name (a file name): letters,
/// digits, '-' and '_' kept, the rest '_'.
fn clean(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect()
}

pub fn ns_name(pid: u32, node: &str) -> String {
    format!("{NS_PREFIX}{pid}-{}", clean(node))
}

/// Create the namespace of `node` (the `k`-th real host) with its TUNs.
/// `hosts` is the `/etc/hosts` text every namespace gets.
#[allow(clippy::too_many_arguments)]
pub fn create(pid: u32, k: usize, node: usize, node_name: &str, ifaces: &[IfaceInfo], mtu: u32, hosts: &str, offload: bool) -> io::Result<HostNs> {
    let ns = ns_name(pid, node_name);
    ip(&["netns", "add", &ns])?;
    let mut h = HostNs { node, ns: ns.clone(), tuns: Vec::new() };
    let r = (|| {
        ip(&["-n", &ns, "link", "set", "lo", "up"])?;
        let dir = PathBuf::from("/etc/netns").join(&ns);
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join("hosts"), hosts)?;
        for (i, f) in ifaces.iter().enumerate() {
            let tmp = format!("at{pid}n{k}i{i}");
            let tun = Tun::create(&tmp, offload)?;
            let inner = format!("eth{i}");
            ip(&["link", "set", &tmp, "netns", &ns])?;
            ip(&["-n", &ns, "link", "set", &tmp, "name", &inner])?;
            let a = f.addr;
            let cidr = format!("{}.{}.{}.{}/{}", a[0], a[1], a[2], a[3], f.prefix_len);
            ip(&["-n", &ns, "addr", "add", &cidr, "dev", &inner])?;
            ip(&["-n", &ns, "link", "set", &inner, "mtu", &mtu.to_string(), "up"])?;
            let mut tun = tun;
            tun.name = inner;
            h.tuns.push(tun);
        }
        if !ifaces.is_empty() {
            // Every destination through the first interface: the simulated
            // node's own forwarding table then picks the way out.
            ip(&["-n", &ns, "route", "add", "default", "dev", "eth0"])?;
        }
        Ok::<(), io::Error>(())
    })();
    match r {
        Ok(()) => Ok(h),
        Err(e) => {
            remove(&ns);
            Err(e)
        }
    }
}

/// Kill what runs in namespace `ns`, delete it and its `/etc/netns` entry.
/// Best effort: a part already gone is not an error.
pub fn remove(ns: &str) {
    if let Ok(out) = Command::new("ip").args(["netns", "pids", ns]).stderr(Stdio::null()).output() {
        for pid in String::from_utf8_lossy(&out.stdout).split_whitespace().filter_map(|p| p.parse::<i32>().ok()) {
            // SAFETY: kill(2) on a pid the kernel listed in the namespace.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
    let _ = Command::new("ip").args(["netns", "del", ns]).stderr(Stdio::null()).status();
    let _ = std::fs::remove_dir_all(PathBuf::from("/etc/netns").join(ns));
}

/// Whether process `pid` is a live emulator.
fn emulator_alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() == COMM)
}

/// Remove the namespaces (and `/etc/netns` entries) of emulations that are
/// no longer running: what `kill -9` left. Returns their names.
pub fn remove_leftovers() -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for dir in ["/run/netns", "/etc/netns"] {
        if let Ok(rd) = std::fs::read_dir(dir) {
            names.extend(rd.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()));
        }
    }
    names.sort();
    names.dedup();
    let mut removed = Vec::new();
    for n in names {
        let Some(rest) = n.strip_prefix(NS_PREFIX) else { continue };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else { continue };
        if !emulator_alive(pid) {
            remove(&n);
            removed.push(n);
        }
    }
    removed
}

/// Whether this process may configure networking (CAP_NET_ADMIN, bit 12
/// of the effective capability set).
pub fn has_net_admin() -> bool {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else { return false };
    status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
        .is_some_and(|caps| caps & (1 << 12) != 0)
}

/// Whether process `pid` runs in namespace `ns` and a TCP socket there
/// listens on `port`: read from `/proc/<pid>/net/tcp`, which is the table
/// of the process's network namespace (the namespace is checked by the
/// inode of `/proc/<pid>/ns/net` against `/run/netns/<ns>`, since an
/// `ip netns exec` child is in the host's namespace until it has entered).
pub fn listening(pid: u32, ns: &str, port: u16) -> bool {
    use std::os::unix::fs::MetadataExt;
    let ino = |p: String| std::fs::metadata(p).map(|m| m.ino()).ok();
    let (Some(a), Some(b)) = (ino(format!("/proc/{pid}/ns/net")), ino(format!("/run/netns/{ns}"))) else { return false };
    if a != b {
        return false;
    }
    let Ok(table) = std::fs::read_to_string(format!("/proc/{pid}/net/tcp")) else { return false };
    // "sl local_address rem_address st ...": local "0100007F:0400", st 0A = LISTEN.
    let want = format!(":{port:04X}");
    table.lines().skip(1).any(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        f.len() > 3 && f[1].ends_with(&want) && f[3] == "0A"
    })
}
