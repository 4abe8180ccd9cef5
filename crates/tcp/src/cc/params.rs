//! Module parameters of the congestion-control algorithms, mirroring the
//! kernel's `module_param`s (`/sys/module/tcp_cubic/parameters/...`). Every
//! field is optional; `None` means the kernel default named in its doc.

/// Parameters for [`super::CongestionControl::from_name_with`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CcParams {
    /// tcp_cubic `beta`, scaled by 1024 (default 717, i.e. 0.7).
    pub cubic_beta: Option<u32>,
    /// tcp_cubic `bic_scale` (default 41, C = 41/1024 * 10 = 0.4 with the
    /// 100 ms reference RTT folded into `cube_factor`).
    pub cubic_bic_scale: Option<u32>,
    /// tcp_cubic `fast_convergence` (default on).
    pub cubic_fast_convergence: Option<bool>,
    /// tcp_cubic `tcp_friendliness` (default on).
    pub cubic_tcp_friendliness: Option<bool>,
    /// tcp_cubic `initial_ssthresh` (default 0 = untouched; only applied when
    /// HyStart is off, as in `cubictcp_init`).
    pub cubic_initial_ssthresh: Option<u32>,
    /// tcp_cubic `hystart` (default on).
    pub cubic_hystart: Option<bool>,
    /// tcp_cubic `hystart_detect`: 1 ack train, 2 delay, 3 both (default 3).
    pub cubic_hystart_detect: Option<u32>,
    /// tcp_cubic `hystart_low_window` in packets (default 16).
    pub cubic_hystart_low_window: Option<u32>,
    /// tcp_cubic `hystart_ack_delta_us` (default 2000).
    pub cubic_hystart_ack_delta_us: Option<u32>,
    /// `sk_gso_max_size` in bytes, used by CUBIC's `hystart_ack_delay`
    /// cushion. Default 0: the simulated stack has no GSO/TSO, so the cushion
    /// is 0 (a Linux host with GSO has 65536 here).
    pub gso_max_size: Option<u32>,
    /// tcp_vegas `alpha` in packets (default 2).
    pub vegas_alpha: Option<u32>,
    /// tcp_vegas `beta` in packets (default 4).
    pub vegas_beta: Option<u32>,
    /// tcp_vegas `gamma` in packets (default 1).
    pub vegas_gamma: Option<u32>,
    /// Seed of the random stream BBR uses for its initial PROBE_BW phase
    /// (`get_random_u32_below(bbr_cycle_rand)`); default 0. Give each flow its
    /// own seed (e.g. derived from the scenario seed and flow id).
    pub rng_seed: Option<u64>,
}
