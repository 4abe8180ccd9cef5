//! Congestion control through Linux-shaped hooks.
//!
//! The endpoint keeps a [`TcpSock`] (the subset of Linux's `struct tcp_sock`
//! that congestion modules read and write, in packets) and calls the hooks of
//! [`CongestionOps`] where `net/ipv4/tcp_input.c` / `tcp_output.c` call the
//! `tcp_congestion_ops` members. An algorithm written against these hooks can be
//! compared line by line with its kernel counterpart.

pub mod bbr;
mod cubic;
pub mod kernel;
mod newreno;
mod params;
mod reno;
mod sock;
mod vegas;
mod veno;
mod westwood;

pub use bbr::{Bbr, BbrMode};
pub use cubic::{cubic_root, Cubic};
pub use newreno::NewReno;
pub use params::CcParams;
pub use reno::Reno;
pub use sock::{AckSample, CaEvent, CaState, RateSample, TcpSock, TCP_INFINITE_SSTHRESH};
pub use vegas::Vegas;
pub use veno::Veno;
pub use westwood::Westwood;

/// `in_ack_event` flags (Linux `enum tcp_ca_ack_event_flags`).
pub const CA_ACK_SLOWPATH: u32 = 1 << 0;
/// Set when the ACK updated the peer's receive window.
pub const CA_ACK_WIN_UPDATE: u32 = 1 << 1;
/// Set when the ACK carried ECN-Echo (RFC 3168 §6.1.2).
pub const CA_ACK_ECE: u32 = 1 << 2;

/// The `tcp_congestion_ops` hooks. Every method has the kernel's meaning and is
/// called at the kernel's point in ACK processing (see `endpoint` docs).
pub trait CongestionOps {
    /// Module name as in `/proc/sys/net/ipv4/tcp_available_congestion_control`.
    fn name(&self) -> &'static str;
    /// `init`: called when the connection becomes established.
    fn init(&mut self, _tp: &mut TcpSock) {}
    /// `ssthresh`: slow-start threshold on entering Recovery or Loss.
    fn ssthresh(&mut self, tp: &mut TcpSock) -> u32;
    /// `cong_avoid`: grow cwnd; only called when the flow is cwnd-limited and
    /// not in CWR/Recovery.
    fn cong_avoid(&mut self, tp: &mut TcpSock, ack: u32, acked: u32);
    /// `set_state`: before `tp.ca_state` changes to `new_state`.
    fn set_state(&mut self, _tp: &mut TcpSock, _new_state: CaState) {}
    /// `cwnd_event`.
    fn cwnd_event(&mut self, _tp: &mut TcpSock, _ev: CaEvent) {}
    /// `in_ack_event`, once per ACK before any other hook for that ACK.
    fn in_ack_event(&mut self, _tp: &mut TcpSock, _flags: u32) {}
    /// `pkts_acked`, once per ACK that acknowledges or SACKs data.
    fn pkts_acked(&mut self, _tp: &mut TcpSock, _sample: &AckSample) {}
    /// `undo_cwnd`: cwnd to restore when a reduction proves spurious.
    fn undo_cwnd(&mut self, tp: &mut TcpSock) -> u32;
    /// Whether [`CongestionOps::cong_control`] replaces cong_avoid and the
    /// PRR reduction (BBR).
    fn has_cong_control(&self) -> bool {
        false
    }
    /// `cong_control`, with the delivery-rate sample of this ACK.
    fn cong_control(&mut self, _tp: &mut TcpSock, _ack: u32, _flag: u32, _rs: &RateSample) {}
}

/// Built-in algorithms dispatched without a vtable, plus a boxed escape hatch
/// for algorithms written outside this crate.
pub enum CongestionControl {
    /// Linux `reno` (net/ipv4/tcp_cong.c).
    Reno(Reno),
    /// RFC 5681 NewReno as ns-3's `TcpNewReno` implements it.
    NewReno(NewReno),
    /// CUBIC with HyStart (net/ipv4/tcp_cubic.c, RFC 9438).
    Cubic(Cubic),
    /// Veno (net/ipv4/tcp_veno.c), the random-loss-aware Reno of seed 003.
    Veno(Veno),
    /// Westwood+ (net/ipv4/tcp_westwood.c), bandwidth-estimate ssthresh of seed 003.
    Westwood(Westwood),
    /// Vegas (net/ipv4/tcp_vegas.c), delay-based.
    Vegas(Vegas),
    /// BBR v1 (net/ipv4/tcp_bbr.c), model-based with pacing.
    Bbr(Bbr),
    /// An algorithm written outside this crate, called through a vtable.
    Custom(Box<dyn CongestionOps + Send>),
}

/// Names accepted by [`CcAlgorithm::from_name`] (aliases included).
pub const BUILTIN_NAMES: &[&str] =
    &["reno", "newreno", "cubic", "veno", "westwood", "westwood+", "westwoodplus", "vegas", "bbr"];

/// Which built-in algorithm a configuration runs: the name is read once
/// (when the scenario or the code builds the [`crate::TcpConfig`]) and
/// every endpoint builds its instance from this value, with no string
/// lookup per connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CcAlgorithm {
    /// Linux's tcp_reno (per-segment growth).
    Reno,
    /// RFC 5681's per-ACK growth as ns-3's TcpNewReno does it (`newreno.rs`).
    NewReno,
    /// Linux's CUBIC (RFC 9438), the default since 2.6.19.
    Cubic,
    /// Linux's TCP Veno (Fu and Liew 2003).
    Veno,
    /// Linux's `westwood` module, which is Westwood+ (`westwood+` and
    /// `westwoodplus` name it too).
    Westwood,
    /// Linux's TCP Vegas (Brakmo and Peterson 1995).
    Vegas,
    /// Linux's BBR (v1).
    Bbr,
}

impl CcAlgorithm {
    /// The algorithm a name selects; the error lists every accepted name.
    pub fn from_name(name: &str) -> Result<Self, String> {
        Ok(match name {
            "reno" => CcAlgorithm::Reno,
            "newreno" => CcAlgorithm::NewReno,
            "cubic" => CcAlgorithm::Cubic,
            "veno" => CcAlgorithm::Veno,
            "westwood" | "westwood+" | "westwoodplus" => CcAlgorithm::Westwood,
            "vegas" => CcAlgorithm::Vegas,
            "bbr" => CcAlgorithm::Bbr,
            other => return Err(format!("unknown congestion control '{other}' (known: {})", BUILTIN_NAMES.join(", "))),
        })
    }

    /// The canonical name (what summary.json records).
    pub fn name(self) -> &'static str {
        match self {
            CcAlgorithm::Reno => "reno",
            CcAlgorithm::NewReno => "newreno",
            CcAlgorithm::Cubic => "cubic",
            CcAlgorithm::Veno => "veno",
            CcAlgorithm::Westwood => "westwood",
            CcAlgorithm::Vegas => "vegas",
            CcAlgorithm::Bbr => "bbr",
        }
    }
}

/// Expands `$body` with `$c` bound to the concrete algorithm (static dispatch).
macro_rules! dispatch {
    ($self:expr, $c:ident => $body:expr) => {
        match $self {
            CongestionControl::Reno($c) => $body,
            CongestionControl::NewReno($c) => $body,
            CongestionControl::Cubic($c) => $body,
            CongestionControl::Veno($c) => $body,
            CongestionControl::Westwood($c) => $body,
            CongestionControl::Vegas($c) => $body,
            CongestionControl::Bbr($c) => $body,
            CongestionControl::Custom($c) => $body,
        }
    };
}

impl CongestionControl {
    /// Build an algorithm by name with the kernel's default module
    /// parameters. `reno` is Linux's tcp_reno (per-segment growth);
    /// `newreno` is RFC 5681's per-ACK growth as ns-3's TcpNewReno does it
    /// (see `newreno.rs`); loss recovery is chosen separately
    /// (`TcpConfig::recovery`). `westwood+` and `westwoodplus` name Linux's
    /// `westwood` module, which is Westwood+.
    pub fn from_name(name: &str) -> Result<Self, String> {
        Self::new(CcAlgorithm::from_name(name)?, &CcParams::default())
    }

    /// Build an algorithm by name with module parameters; parameters of
    /// other algorithms are ignored.
    pub fn from_name_with(name: &str, params: &CcParams) -> Result<Self, String> {
        Self::new(CcAlgorithm::from_name(name)?, params)
    }

    /// Build `algorithm` with module parameters (those of other algorithms
    /// are ignored). Fails only on parameters out of range.
    pub fn new(algorithm: CcAlgorithm, params: &CcParams) -> Result<Self, String> {
        Ok(match algorithm {
            CcAlgorithm::Reno => CongestionControl::Reno(Reno),
            CcAlgorithm::NewReno => CongestionControl::NewReno(NewReno::default()),
            CcAlgorithm::Cubic => CongestionControl::Cubic(Cubic::new(params)?),
            CcAlgorithm::Veno => CongestionControl::Veno(Veno::default()),
            CcAlgorithm::Westwood => CongestionControl::Westwood(Westwood::default()),
            CcAlgorithm::Vegas => CongestionControl::Vegas(Vegas::new(params)),
            CcAlgorithm::Bbr => CongestionControl::Bbr(Bbr::new(params)),
        })
    }
}

impl CongestionControl {
    /// Replaces the stream a randomised module draws from (BBR); the
    /// deterministic modules ignore it.
    pub fn set_rng(&mut self, rng: airtcp_core::RngStream) {
        if let CongestionControl::Bbr(b) = self {
            b.set_rng(rng);
        }
    }

    /// ssthresh in bytes: `snd_ssthresh` segments plus the sub-segment part
    /// a byte-counting module keeps (`newreno`); for the others exactly
    /// `snd_ssthresh · mss_cache`.
    pub fn ssthresh_bytes(&self, tp: &TcpSock) -> u64 {
        match self {
            CongestionControl::NewReno(c) => c.ssthresh_bytes(tp),
            _ => tp.snd_ssthresh as u64 * tp.mss_cache as u64,
        }
    }
}

impl CongestionOps for CongestionControl {
    fn name(&self) -> &'static str {
        dispatch!(self, c => c.name())
    }
    fn init(&mut self, tp: &mut TcpSock) {
        dispatch!(self, c => c.init(tp))
    }
    fn ssthresh(&mut self, tp: &mut TcpSock) -> u32 {
        dispatch!(self, c => c.ssthresh(tp))
    }
    fn cong_avoid(&mut self, tp: &mut TcpSock, ack: u32, acked: u32) {
        dispatch!(self, c => c.cong_avoid(tp, ack, acked))
    }
    fn set_state(&mut self, tp: &mut TcpSock, s: CaState) {
        dispatch!(self, c => c.set_state(tp, s))
    }
    fn cwnd_event(&mut self, tp: &mut TcpSock, ev: CaEvent) {
        dispatch!(self, c => c.cwnd_event(tp, ev))
    }
    fn in_ack_event(&mut self, tp: &mut TcpSock, flags: u32) {
        dispatch!(self, c => c.in_ack_event(tp, flags))
    }
    fn pkts_acked(&mut self, tp: &mut TcpSock, s: &AckSample) {
        dispatch!(self, c => c.pkts_acked(tp, s))
    }
    fn undo_cwnd(&mut self, tp: &mut TcpSock) -> u32 {
        dispatch!(self, c => c.undo_cwnd(tp))
    }
    fn has_cong_control(&self) -> bool {
        dispatch!(self, c => c.has_cong_control())
    }
    fn cong_control(&mut self, tp: &mut TcpSock, ack: u32, flag: u32, rs: &RateSample) {
        dispatch!(self, c => c.cong_control(tp, ack, flag, rs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_name_builds_its_kernel_module() {
        let expect = [
            ("reno", "reno"),
            ("newreno", "newreno"),
            ("cubic", "cubic"),
            ("veno", "veno"),
            ("westwood", "westwood"),
            ("westwood+", "westwood"),
            ("westwoodplus", "westwood"),
            ("vegas", "vegas"),
            ("bbr", "bbr"),
        ];
        assert_eq!(expect.len(), BUILTIN_NAMES.len());
        for (name, module) in expect {
            assert!(BUILTIN_NAMES.contains(&name));
            let cc = CongestionControl::from_name(name).unwrap();
            assert_eq!(cc.name(), module);
            assert_eq!(cc.has_cong_control(), module == "bbr", "{name}");
            // The configuration's algorithm records the module's name,
            // which reads back to the same algorithm.
            let algorithm = CcAlgorithm::from_name(name).unwrap();
            assert_eq!(algorithm.name(), module);
            assert_eq!(CcAlgorithm::from_name(module), Ok(algorithm));
        }
    }

    #[test]
    fn unknown_name_lists_the_known_ones() {
        let err = CongestionControl::from_name("hybla").err().unwrap();
        assert_eq!(
            err,
            "unknown congestion control 'hybla' (known: reno, newreno, cubic, veno, westwood, westwood+, westwoodplus, vegas, bbr)"
        );
    }

    #[test]
    fn from_name_with_passes_module_parameters() {
        let p = CcParams { cubic_beta: Some(512), ..Default::default() };
        let mut cc = CongestionControl::from_name_with("cubic", &p).unwrap();
        let mut tp = TcpSock { snd_cwnd: 100, ..Default::default() };
        // beta 512/1024: ssthresh = 100*512/1024 = 50 (default 717 gives 70).
        assert_eq!(cc.ssthresh(&mut tp), 50);
        let err = CongestionControl::from_name_with("cubic", &CcParams { cubic_beta: Some(0), ..Default::default() })
            .err()
            .unwrap();
        assert_eq!(err, "cubic beta must be in 1..=1023 (scaled by 1024), got 0");
        // Parameters of other modules are ignored.
        assert!(CongestionControl::from_name_with("reno", &p).is_ok());
    }

    #[test]
    fn enum_dispatch_reaches_the_algorithm() {
        let mut cc = CongestionControl::from_name("bbr").unwrap();
        let mut tp = TcpSock { snd_cwnd: 10, srtt_us: 100_000 << 3, mss_cache: 1000, ..Default::default() };
        cc.init(&mut tp);
        assert!(tp.pacing_requested);
        assert_eq!(tp.pacing_rate, 285_662);
    }
}
