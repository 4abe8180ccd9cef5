//! The command line of `airtcp-emulate` (also `airtcp emulate`).

use std::path::PathBuf;

use crate::emulate::{Clock, Config, Offload};

pub const USAGE: &str = "usage: airtcp-emulate SCENARIO --out DIR [--real NODE,NODE...]
       [--setup 'NODE: CMD']... [--serve 'NODE: CMD']... [--exec 'NODE: CMD']...
       [--set KEY=VALUE]... [--seed N] [--pcap] [--mtu BYTES] [--clock real|virtual]
       [--tun-offload off|read|rw]

  --real      scenario nodes whose stack is the kernel's: each gets a network
              namespace airtcp-<pid>-<node> with one TUN (eth0, eth1, ...) per
              interface, the node's addresses, a default route and /etc/hosts
  --setup     run to completion in NODE's namespace before the clock starts
              (sysctl -w net.ipv4.tcp_sack=0, ip route change default dev eth0 initcwnd 1)
  --serve     start in NODE's namespace before the clock (a server); ended at the end
  --exec      start in NODE's namespace with the clock; the run ends when every
              --exec command has exited, or at the scenario's duration
  --pcap      write one capture per link into DIR/pcap, with the real bytes
  --clock     virtual: no real hosts, as fast as possible (the simulator's run)
  --tun-offload  rw (default): TUNs with a virtio header and TSO; a read brings
              up to 64 KiB of a kernel's segments, cut into datagrams by the
              emulator, and the segments of one flow due together toward a
              TUN are written as one super-packet; read: reads only, one
              write per datagram; off: one datagram per read and per write

exit status: 0 done, 1 error, 2 no CAP_NET_ADMIN, 3 overloaded (more than 1 %
of events ran more than 1 ms late), 130 interrupted";

/// What `--tun-offload` is when not given (see docs/emulate.md, Speed).
pub const DEFAULT_OFFLOAD: Offload = Offload::ReadWrite;

/// `NODE: CMD` of --setup/--serve/--exec.
fn node_cmd(flag: &str, v: &str) -> Result<(String, String), String> {
    let (n, c) = v.split_once(':').ok_or_else(|| format!("{flag} {v:?}: expected 'NODE: COMMAND'"))?;
    let (n, c) = (n.trim(), c.trim());
    if n.is_empty() || c.is_empty() {
        return Err(format!("{flag} {v:?}: expected 'NODE: COMMAND'"));
    }
    Ok((n.to_string(), c.to_string()))
}

pub fn parse(args: &[String]) -> Result<Config, String> {
    let mut scenario = None;
    let mut cfg = Config {
        scenario: PathBuf::new(),
        out: PathBuf::new(),
        overrides: Vec::new(),
        seed: None,
        real: Vec::new(),
        setup: Vec::new(),
        serve: Vec::new(),
        exec: Vec::new(),
        pcap: false,
        mtu: 1500,
        clock: Clock::Real,
        tun_offload: DEFAULT_OFFLOAD,
    };
    let mut out = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut val = |flag: &str| it.next().cloned().ok_or_else(|| format!("{flag} needs a value"));
        match a.as_str() {
            "--out" => out = Some(PathBuf::from(val("--out")?)),
            "--real" => cfg.real.extend(val("--real")?.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty())),
            "--setup" => cfg.setup.push(node_cmd("--setup", &val("--setup")?)?),
            "--serve" => cfg.serve.push(node_cmd("--serve", &val("--serve")?)?),
            "--exec" => cfg.exec.push(node_cmd("--exec", &val("--exec")?)?),
            "--set" => {
                let v = val("--set")?;
                let (k, x) = v.split_once('=').ok_or_else(|| format!("--set {v:?}: expected KEY=VALUE"))?;
                cfg.overrides.push((k.to_string(), x.to_string()));
            }
            "--seed" => {
                let v = val("--seed")?;
                cfg.seed = Some(v.parse().map_err(|_| format!("--seed {v:?}: not an unsigned integer"))?);
            }
            "--mtu" => {
                let v = val("--mtu")?;
                cfg.mtu = v.parse().ok().filter(|m| (576..=65_535).contains(m)).ok_or_else(|| format!("--mtu {v:?}: expected 576..65535"))?;
            }
            "--clock" => {
                cfg.clock = match val("--clock")?.as_str() {
                    "real" => Clock::Real,
                    "virtual" => Clock::Virtual,
                    v => return Err(format!("--clock {v:?}: expected real or virtual")),
                }
            }
            "--pcap" => cfg.pcap = true,
            "--tun-offload" => {
                cfg.tun_offload = match val("--tun-offload")?.as_str() {
                    "off" => Offload::Off,
                    "read" => Offload::Read,
                    "rw" => Offload::ReadWrite,
                    v => return Err(format!("--tun-offload {v:?}: expected off, read or rw")),
                }
            }
            s if s.starts_with('-') => return Err(format!("unknown option {s}")),
            s => {
                if scenario.replace(PathBuf::from(s)).is_some() {
                    return Err(format!("one scenario only (second: {s})"));
                }
            }
        }
    }
    cfg.scenario = scenario.ok_or("missing SCENARIO")?;
    cfg.out = out.ok_or("missing --out DIR")?;
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn full_command_line_parses() {
        let c = parse(&args(&["s.toml", "--out", "o", "--real", "cn,mn", "--serve", "cn: iperf3 -s", "--exec", "mn: iperf3 -c cn -t 30", "--pcap"])).unwrap();
        assert_eq!(c.real, ["cn", "mn"]);
        assert_eq!(c.serve, [("cn".to_string(), "iperf3 -s".to_string())]);
        assert_eq!(c.exec[0].1, "iperf3 -c cn -t 30");
        assert!(c.pcap);
        assert_eq!(c.tun_offload, DEFAULT_OFFLOAD);
        let c = parse(&args(&["s.toml", "--out", "o", "--tun-offload", "off"])).unwrap();
        assert_eq!(c.tun_offload, Offload::Off);
        let e = parse(&args(&["s.toml", "--out", "o", "--tun-offload", "--pcap"])).err().unwrap();
        assert_eq!(e, "--tun-offload \"--pcap\": expected off, read or rw");
    }

    #[test]
    fn command_without_node_is_an_error() {
        let e = parse(&args(&["s.toml", "--out", "o", "--exec", "iperf3 -s"])).err().unwrap();
        assert!(e.contains("expected 'NODE: COMMAND'"), "{e}");
        assert_eq!(parse(&args(&["--out", "o"])).err().unwrap(), "missing SCENARIO");
    }
}
