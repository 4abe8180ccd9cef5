//! Named endpoint profiles: a complete [`TcpConfig`] for each stack a study
//! may need to run (a Linux of a given era, ns-3, OPNET's 2003 model, the
//! RFCs as written), with the source of every value beside it. A scenario
//! picks one with `[flows.tcp] profile = "NAME"`; keys given beside it
//! override single fields. `linux` is the default.
//!
//! Profiles are data: one constructor per profile, in one file per family,
//! each listing every field (no `..Default::default()`), so a reader sees
//! the whole stack and where each number comes from. [`profile`] is the one
//! place a name is resolved; docs/tcp-profiles.md is generated from
//! [`ALL`] by a test.

mod linux;
mod ns3;
mod opnet;
mod rfc;
pub mod doc;

use crate::config::TcpConfig;

/// The profile a scenario gets when it names none.
pub const DEFAULT_PROFILE: &str = "linux";

/// A named stack: its configuration and what the docs say about it.
pub struct Profile {
    /// The name a scenario selects it by (e.g. `linux`, `linux-3.16`).
    pub name: &'static str,
    /// One line: which stack this is.
    pub title: &'static str,
    /// The complete configuration.
    pub config: fn() -> TcpConfig,
    /// (field, source) for the docs table's notes; every field whose value
    /// differs from another profile's has one.
    pub sources: &'static [(&'static str, &'static str)],
    /// What the stack has that this configuration cannot express.
    pub gaps: &'static [&'static str],
}

/// Every profile, in the docs table's column order.
pub const ALL: &[Profile] = &[linux::LINUX, linux::LINUX_4_4, linux::LINUX_3_16, ns3::NS3, opnet::OPNET_2003, rfc::RFC];

/// Names reserved for ns-2's one-way agents (`Agent/TCP`, `/Reno`,
/// `/Newreno`), which are a separate sender/sink pair, not an [`crate::Endpoint`]
/// configuration.
pub const NS2_NAMES: &[&str] = &["ns2-tahoe", "ns2-reno", "ns2-newreno"];

/// Looks a profile up by name. The error lists the known names.
pub fn profile(name: &str) -> Result<&'static Profile, String> {
    if let Some(p) = ALL.iter().find(|p| p.name == name) {
        return Ok(p);
    }
    if NS2_NAMES.contains(&name) {
        return Err(format!("profile \"{name}\" is an ns-2 agent, not an Endpoint configuration: see crate::ns2 (the scenario reader selects it)"));
    }
    let known: Vec<&str> = ALL.iter().map(|p| p.name).chain(NS2_NAMES.iter().copied()).collect();
    Err(format!("unknown profile \"{name}\" (known: {})", known.join(", ")))
}

/// The configuration of profile `name`.
pub fn config(name: &str) -> Result<TcpConfig, String> {
    profile(name).map(|p| (p.config)())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Recovery, RtoTimer};
    use airtcp_core::Duration;

    #[test]
    fn every_profile_validates() {
        for p in ALL {
            (p.config)().validate().unwrap_or_else(|e| panic!("profile {}: {e}", p.name));
        }
    }

    #[test]
    fn default_profile_is_linux_with_its_rto() {
        let c = config(DEFAULT_PROFILE).unwrap();
        assert_eq!((c.min_rto, c.initial_rto, c.max_rto), (Duration::from_millis(200), Duration::from_secs(1), Duration::from_secs(120)));
        assert_eq!(c.rto_timer, RtoTimer::Linux);
        assert_eq!((c.delack_timeout, c.initial_quickacks), (Duration::from_millis(40), 16));
        assert!(c.rcv_buf_autotune && c.snd_buf_autotune && c.rack && c.tlp && c.frto && c.undo);
    }

    #[test]
    fn ns3_profile_is_the_ns3_behaviour_set_with_newreno() {
        let want = TcpConfig { profile: "ns3", cc: crate::cc::CcAlgorithm::NewReno, ..TcpConfig::ns3() };
        assert_eq!(config("ns3").unwrap(), want);
        assert_eq!(want.recovery, Recovery::Ns3Prr);
    }

    #[test]
    fn ns2_names_are_reserved_with_a_clear_error() {
        let e = config("ns2-reno").unwrap_err();
        assert!(e.contains("is an ns-2 agent, not an Endpoint configuration"), "{e}");
    }

    #[test]
    fn unknown_profile_lists_the_known_names() {
        let e = config("linux-2.2").unwrap_err();
        assert_eq!(e, "unknown profile \"linux-2.2\" (known: linux, linux-4.4, linux-3.16, ns3, opnet-2003, rfc, ns2-tahoe, ns2-reno, ns2-newreno)");
    }

    #[test]
    fn each_profile_records_its_name() {
        for p in ALL {
            assert_eq!((p.config)().profile, p.name);
        }
    }

    #[test]
    fn names_are_unique() {
        for (i, p) in ALL.iter().enumerate() {
            assert!(ALL[i + 1..].iter().all(|q| q.name != p.name), "{} twice", p.name);
        }
    }
}
