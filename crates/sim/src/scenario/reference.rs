//! The key tables of docs/scenario-reference.md, generated from the
//! sections' declarations ([`super::keys`]). The page keeps its prose; each
//! region between `<!-- keys: NAME -->` and `<!-- /keys -->` is the table
//! of section NAME, rewritten by [`refresh`]. The test
//! `reference_page_is_current` fails when the committed page is stale and
//! rewrites it with `AIRTCP_BLESS=1`.

use std::fmt::Write;

use serde_json::Value;

use super::keys::Section;

/// The command that regenerates the page (printed by the staleness test).
pub const REGENERATE: &str = "AIRTCP_BLESS=1 cargo test -p airtcp-sim --lib reference_page_is_current";

/// A value as a scenario file writes it, for a default column.
fn toml_text(v: &Value) -> String {
    match v {
        Value::Array(items) => format!("[{}]", items.iter().map(toml_text).collect::<Vec<_>>().join(", ")),
        other => other.to_string(),
    }
}

/// Markdown table cells cannot hold a bare `|`.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// The table of `section`: key, value type, one column per named default
/// (the resolved value of that configuration) or, without any, the keys'
/// own default text, and what the key does.
fn table<T>(section: &Section<T>, defaults: &[(&str, &T)]) -> String {
    let mut s = String::from("| key | value |");
    for (name, _) in defaults {
        let _ = write!(s, " {name} |");
    }
    if defaults.is_empty() {
        s.push_str(" default |");
    }
    s.push_str(" what it does |\n|---|---|");
    s.push_str(&"---|".repeat(defaults.len().max(1)));
    s.push_str("---|\n");
    for k in section.keys {
        let _ = write!(s, "| `{}` | {} |", k.name, cell(k.ty));
        for (_, d) in defaults {
            match (k.write)(d) {
                Some(v) => {
                    let _ = write!(s, " `{}` |", cell(&toml_text(&v)));
                }
                None => s.push_str(" — |"),
            }
        }
        if defaults.is_empty() {
            let _ = write!(s, " {} |", cell(k.default));
        }
        let _ = writeln!(s, " {} |", cell(k.doc));
    }
    s
}

/// Every generated region: (marker name, its Markdown).
pub fn regions() -> Vec<(&'static str, String)> {
    let linux = super::tcp::tcp_default();
    let ns3 = airtcp_tcp::profiles::config("ns3").expect("built-in profile");
    let ns2 = airtcp_tcp::ns2::Ns2Config::new(airtcp_tcp::ns2::Ns2Variant::Reno, airtcp_tcp::ns2::Ns2SinkKind::TcpSink);
    let red = crate::link::aqm::RedParams::default();
    let flows = super::flows::flow_keys();
    let nodes = super::run::node_keys();
    let agent_head = super::agent_head::head_keys();
    let peg = super::agents::peg_keys();
    let snoop = super::agents::snoop_keys();
    let itcp = super::agents::itcp_keys();
    let mtcp = super::agents::mtcp_keys();
    let home_agent = super::mobileip::home_agent_keys();
    let foreign_agent = super::mobileip::foreign_agent_keys();
    let mobile_node = super::mobileip::mobile_node_keys();
    let correspondent = super::mobileip::correspondent_keys();
    let wifi_errors = super::wifi_errors::wifi_error_keys();
    let udp_flows = super::udp_keys::udp_flow_keys();
    let radios = super::radio_keys::radio_keys();
    let sdn = super::sdn::sdn_keys();
    let sdn_channels = super::sdn::channel_keys();
    let mesh = super::mesh_keys::mesh_keys();
    vec![
        ("top-level", super::assemble::reference_table()),
        ("sim", table(&super::run::SIM, &[])),
        ("nodes", table(&Section { path: "nodes", keys: &nodes }, &[])),
        ("links", super::link_keys::reference_table()),
        ("links.loss", super::link_tables::loss_reference_table()),
        ("links.trace", super::trace_keys::reference_table()),
        ("links.red", table(&super::link_tables::RED, &[("default", &red)])),
        ("links.reorder", table(&super::link_tables::REORDER, &[])),
        ("agents", table(&Section { path: "agents", keys: &agent_head }, &[])),
        ("agents.peg", table(&Section { path: "agents", keys: &peg }, &[])),
        ("agents.snoop", table(&Section { path: "agents", keys: &snoop }, &[])),
        ("agents.itcp", table(&Section { path: "agents", keys: &itcp }, &[])),
        ("agents.mtcp", table(&Section { path: "agents", keys: &mtcp }, &[])),
        ("agents.home_agent", table(&Section { path: "agents", keys: &home_agent }, &[])),
        ("agents.foreign_agent", table(&Section { path: "agents", keys: &foreign_agent }, &[])),
        ("agents.mobile_node", table(&Section { path: "agents", keys: &mobile_node }, &[])),
        ("agents.correspondent", table(&Section { path: "agents", keys: &correspondent }, &[])),
        ("wifi", table(&super::wifi_medium::WIFI, &[])),
        ("radios", table(&Section { path: "radios", keys: &radios }, &[])),
        ("radios.random_waypoint", table(&super::radio_keys::RANDOM_WAYPOINT, &[])),
        ("wifi_errors", table(&Section { path: "wifi_errors", keys: &wifi_errors }, &[])),
        ("flows", table(&Section { path: "flows", keys: &flows }, &[])),
        ("flows.tcp", table(&super::tcp::TCP, &[("`linux` (default)", &linux), ("`ns3`", &ns3)])),
        ("flows.tcp.ns2", table(&super::ns2::NS2, &[("default (`ns2-reno`)", &ns2)])),
        ("route_changes", super::routes::reference_table()),
        ("udp_flows", table(&Section { path: "udp_flows", keys: &udp_flows }, &[])),
        ("sdn", table(&Section { path: "sdn", keys: &sdn }, &[])),
        ("sdn.channels", table(&Section { path: "sdn.channels", keys: &sdn_channels }, &[])),
        ("mesh", table(&Section { path: "mesh", keys: &mesh }, &[])),
    ]
}

/// `page` with every `<!-- keys: NAME -->` region replaced by the current
/// table of NAME. Fails on an unknown name, an unclosed region, or a
/// section without a region (so every table is published).
pub fn refresh(page: &str) -> Result<String, String> {
    let regions = regions();
    let mut seen = vec![false; regions.len()];
    let mut out = String::with_capacity(page.len());
    let mut rest = page;
    while let Some(start) = rest.find("<!-- keys: ") {
        let open_end = start + rest[start..].find("-->").ok_or("unclosed <!-- keys: marker")? + 3;
        let name = rest[start + "<!-- keys: ".len()..open_end - 3].trim();
        let close = rest[open_end..].find("<!-- /keys -->").ok_or_else(|| format!("region {name} has no <!-- /keys -->"))? + open_end;
        let i = regions.iter().position(|(n, _)| *n == name).ok_or_else(|| format!("no key table named {name}"))?;
        seen[i] = true;
        out.push_str(&rest[..open_end]);
        out.push('\n');
        out.push_str(&regions[i].1);
        rest = &rest[close..];
    }
    out.push_str(rest);
    if let Some(i) = seen.iter().position(|s| !s) {
        return Err(format!("the page has no region <!-- keys: {} -->", regions[i].0));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_page_is_current() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/scenario-reference.md");
        let page = std::fs::read_to_string(&path).expect("docs/scenario-reference.md");
        let want = refresh(&page).unwrap_or_else(|e| panic!("docs/scenario-reference.md: {e}"));
        if want != page {
            if std::env::var_os("AIRTCP_BLESS").is_some() {
                std::fs::write(&path, &want).expect("write the page");
                return;
            }
            panic!("docs/scenario-reference.md is stale: its key tables differ from the declarations in crates/sim/src/scenario; regenerate with\n  {REGENERATE}");
        }
    }

    #[test]
    fn refresh_replaces_only_the_regions() {
        let page = "# t\n<!-- keys: flows.tcp -->\nSTALE-ROW\n<!-- /keys -->\nprose\n<!-- keys: top-level --><!-- /keys --><!-- keys: sim --><!-- /keys --><!-- keys: nodes --><!-- /keys --><!-- keys: links --><!-- /keys --><!-- keys: links.loss --><!-- /keys --><!-- keys: links.trace --><!-- /keys --><!-- keys: links.red --><!-- /keys --><!-- keys: links.reorder --><!-- /keys --><!-- keys: flows -->\n<!-- /keys -->\n<!-- keys: flows.tcp.ns2 -->\n<!-- /keys -->\n<!-- keys: wifi -->\n<!-- /keys -->\n<!-- keys: agents --><!-- /keys --><!-- keys: agents.peg -->\n<!-- /keys -->\n<!-- keys: agents.snoop -->\n<!-- /keys -->\n<!-- keys: agents.itcp -->\n<!-- /keys -->\n<!-- keys: agents.mtcp --><!-- /keys --><!-- keys: agents.home_agent --><!-- /keys --><!-- keys: agents.foreign_agent --><!-- /keys --><!-- keys: agents.mobile_node --><!-- /keys --><!-- keys: agents.correspondent --><!-- /keys -->\n<!-- keys: wifi_errors -->\n<!-- /keys -->\n<!-- keys: radios --><!-- /keys --><!-- keys: radios.random_waypoint --><!-- /keys --><!-- keys: route_changes --><!-- /keys --><!-- keys: udp_flows --><!-- /keys --><!-- keys: sdn --><!-- /keys --><!-- keys: sdn.channels --><!-- /keys --><!-- keys: mesh --><!-- /keys -->\n";
        let out = refresh(page).unwrap();
        assert!(out.starts_with("# t\n<!-- keys: flows.tcp -->\n| key | value |"), "{out}");
        assert!(out.contains("| `min_rto` | duration | `\"200ms\"` | `\"1s\"` |"), "{out}");
        assert!(!out.contains("STALE-ROW"));
        assert!(out.contains("<!-- /keys -->\nprose\n"));
        assert_eq!(refresh(&out).unwrap(), out);
        assert_eq!(refresh("<!-- keys: flows.udp -->\n<!-- /keys -->").unwrap_err(), "no key table named flows.udp");
        assert_eq!(refresh("<!-- keys: flows.tcp -->\n<!-- /keys -->").unwrap_err(), "the page has no region <!-- keys: top-level -->");
        assert_eq!(refresh("<!-- keys: flows -->\n").unwrap_err(), "region flows has no <!-- /keys -->");
    }

    /// The defaults a table states as a literal (`` `"10ms"` ``) are what a
    /// scenario without that key resolves to.
    #[test]
    fn stated_defaults_are_the_resolved_ones() {
        let text = "[sim]\nduration = \"1s\"\n[[nodes]]\nname = \"a\"\n[[nodes]]\nname = \"b\"\n[[links]]\na = \"a\"\nb = \"b\"\nrate = \"1Mbps\"\n[[flows]]\nfrom = \"a\"\nto = \"b\"\n\
                    [[agents]]\nnode = \"a\"\nkind = \"peg\"\n[[agents]]\nnode = \"a\"\nkind = \"snoop\"\nwireless = \"a-b\"\n\
                    [[agents]]\nnode = \"a\"\nkind = \"itcp\"\nwireless = \"a-b\"\n\
                    [[agents]]\nnode = \"a\"\nkind = \"mtcp\"\nwireless = \"a-b\"\n\
                    [[agents]]\nnode = \"a\"\nkind = \"home_agent\"\nhome = \"a-b\"\n\
                    [[agents]]\nnode = \"b\"\nkind = \"foreign_agent\"\nwireless = \"a-b\"\n\
                    [[agents]]\nnode = \"b\"\nkind = \"mobile_node\"\nwireless = \"a-b\"\nhome_agent = \"a\"\n\
                    [[agents]]\nnode = \"a\"\nkind = \"correspondent\"\n";
        let j = crate::Scenario::from_toml_str(text, "t.toml", &[]).unwrap().to_json();
        let flows = super::super::flows::flow_keys();
        let nodes = super::super::run::node_keys();
        let peg = super::super::agents::peg_keys();
        let snoop = super::super::agents::snoop_keys();
        let itcp = super::super::agents::itcp_keys();
        let mtcp = super::super::agents::mtcp_keys();
        let home = super::super::mobileip::home_agent_keys();
        let foreign = super::super::mobileip::foreign_agent_keys();
        let mobile = super::super::mobileip::mobile_node_keys();
        let correspondent = super::super::mobileip::correspondent_keys();
        let sections: [(&[(&str, &str)], &Value); 11] = [
            (&super::super::run::SIM.keys.iter().map(|k| (k.name, k.default)).collect::<Vec<_>>(), &j["sim"]),
            (&nodes.iter().map(|k| (k.name, k.default)).collect::<Vec<_>>(), &j["nodes"][0]),
            (&flows.iter().map(|k| (k.name, k.default)).collect::<Vec<_>>(), &j["flows"][0]),
            (&peg.iter().map(|k| (k.name, k.default)).collect::<Vec<_>>(), &j["agents"][0]),
            (&snoop.iter().map(|k| (k.name, k.default)).collect::<Vec<_>>(), &j["agents"][1]),
            (&itcp.iter().map(|k| (k.name, k.default)).collect::<Vec<_>>(), &j["agents"][2]),
            (&mtcp.iter().map(|k| (k.name, k.default)).collect::<Vec<_>>(), &j["agents"][3]),
            (&home.iter().map(|k| (k.name, k.default)).collect::<Vec<_>>(), &j["agents"][4]),
            (&foreign.iter().map(|k| (k.name, k.default)).collect::<Vec<_>>(), &j["agents"][5]),
            (&mobile.iter().map(|k| (k.name, k.default)).collect::<Vec<_>>(), &j["agents"][6]),
            (&correspondent.iter().map(|k| (k.name, k.default)).collect::<Vec<_>>(), &j["agents"][7]),
        ];
        let mut checked = 0;
        for (keys, resolved) in sections {
            for (name, default) in keys {
                let Some(literal) = default.strip_prefix('`').and_then(|d| d.strip_suffix('`')).filter(|d| !d.contains('`')) else { continue };
                match resolved.get(name) {
                    Some(v) => assert_eq!(toml_text(v), literal, "{name}"),
                    None => assert_eq!(literal, "false", "{name} is not recorded"),
                }
                checked += 1;
            }
        }
        // seed, series_interval, learn_hosts, start, app, recv_rate,
        // recv_interval; peg's two rates and data_only; snoop's timer and
        // cache_packets; itcp's relay_bytes; mtcp's peers; the Mobile IP
        // kinds' lifetimes, intervals, flags and TTLs (6 + 8 + 6 + 2).
        assert_eq!(checked, 36);
    }
}
