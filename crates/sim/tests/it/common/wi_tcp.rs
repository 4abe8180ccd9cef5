//! Overrides of the Wi-TCP scenarios (`scenarios/wi-tcp-*.toml`) shared by
//! the Mobile IP tests. Agents: 0 correspondent (fh), 1 home agent, 2 fa1,
//! 3 fa2, 4 mobile.

/// Plain Mobile IP: no route optimisation, no smooth handoff.
pub const NO_RO: &[(&str, &str)] = &[
    ("agents.1.route_optimization", "false"),
    ("agents.2.route_optimization", "false"),
    ("agents.3.route_optimization", "false"),
    ("agents.4.smooth_handoff", "false"),
];

/// Wi-TCP off at the agents and the sender.
pub const NO_WITCP: &[(&str, &str)] = &[
    ("agents.1.witcp", "false"),
    ("agents.2.witcp", "false"),
    ("agents.3.witcp", "false"),
    ("flows.0.tcp.witcp", "false"),
];
