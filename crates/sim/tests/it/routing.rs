//! Route changes during a run: a link going down reroutes a flow over the
//! other path of a square; with no other path the flow stalls until the link
//! comes back; static routes and their errors.

use airtcp_sim::{run, RunOptions, RunOutput, Scenario};

/// snd - r1 - rcv (links a, b: 10 Mb/s, 5 ms) and snd - r2 - rcv (links c,
/// d: 10 Mb/s, 20 ms): hop count ties, so the first-listed path (via r1) wins.
fn square_toml(extra: &str) -> String {
    format!(
        r#"
[sim]
duration = "6s"
series_interval = "0s"
[[nodes]]
name = "snd"
[[nodes]]
name = "r1"
[[nodes]]
name = "r2"
[[nodes]]
name = "rcv"
[[links]]
name = "a"
a = "snd"
b = "r1"
rate = "10Mbps"
delay = "5ms"
[[links]]
name = "b"
a = "r1"
b = "rcv"
rate = "10Mbps"
delay = "5ms"
[[links]]
name = "c"
a = "snd"
b = "r2"
rate = "10Mbps"
delay = "20ms"
[[links]]
name = "d"
a = "r2"
b = "rcv"
rate = "10Mbps"
delay = "20ms"
[[flows]]
from = "snd"
to = "rcv"
[flows.tcp]
min_rto = "200ms"
{extra}
"#
    )
}

fn square(extra: &str) -> Scenario {
    Scenario::from_toml_str(&square_toml(extra), "square.toml", &[]).unwrap()
}

fn frames(o: &RunOutput, link: usize, dir: &str) -> u64 {
    o.summary["links"][link][dir]["frames_sent"].as_u64().unwrap()
}

#[test]
fn link_down_reroutes_the_flow_over_the_other_path() {
    let o = run(&square(""), RunOptions::default()).unwrap();
    assert_eq!(frames(&o, 2, "ab"), 0, "without a change the longer path stays idle");
    let base = o.summary["flows"][0]["bytes_delivered"].as_u64().unwrap();

    // r1's interface on b goes down at 2 s: routes are recomputed around it.
    let o = run(&square("[[route_changes]]\nat = \"2s\"\nnode = \"r1\"\naction = \"down\"\nlink = \"b\"\n"), RunOptions::default()).unwrap();
    assert!(frames(&o, 2, "ab") > 1000, "data now crosses c: {}", frames(&o, 2, "ab"));
    assert!(frames(&o, 3, "ba") > 500, "and ACKs come back over d");
    let got = o.summary["flows"][0]["bytes_delivered"].as_u64().unwrap();
    assert!(got > base / 2 && got < base, "{got} vs {base}");
    assert_eq!(o.summary["flows"][0]["recv_order_errors"], 0);
    let ev: Vec<_> = o.events.iter().filter(|e| e.kind == "route_change").collect();
    assert_eq!(ev.len(), 1);
    assert_eq!((ev[0].t_s, ev[0].detail.as_str()), (2.0, "r1 down b"));
    assert_eq!(o.summary["scenario"]["route_changes"][0]["link"], "b");
}

#[test]
fn without_another_path_the_flow_stalls_until_the_link_is_up_again() {
    // Both paths cut at 2 s, the first restored at 4 s.
    let down_both = "[[route_changes]]\nat = \"2s\"\nnode = \"r1\"\naction = \"down\"\nlink = \"b\"\n\
                     [[route_changes]]\nat = \"2s\"\nnode = \"r2\"\naction = \"down\"\nlink = \"d\"\n\
                     [[route_changes]]\nat = \"4s\"\nnode = \"r1\"\naction = \"up\"\nlink = \"b\"\n";
    let o = run(&square(down_both), RunOptions::default()).unwrap();
    assert!(o.summary["run"]["no_route_drops"].as_u64().unwrap() > 0, "packets had nowhere to go");
    let f = &o.summary["flows"][0];
    assert!(f["timeouts"].as_u64().unwrap() >= 1, "the sender backed off during the cut");
    assert!(f["bytes_delivered"].as_u64().unwrap() > 0);
    assert_eq!(f["recv_order_errors"], 0);
}

#[test]
fn static_route_pins_the_flow_to_the_longer_path() {
    // rcv's primary address is on link b (10.0.0.6); a /32 at snd via c wins over the computed /30.
    let o = run(&square("[[route_changes]]\nat = \"0s\"\nnode = \"snd\"\naction = \"add\"\nprefix = \"10.0.0.6/32\"\nvia = \"c\"\n"), RunOptions::default()).unwrap();
    assert_eq!(frames(&o, 0, "ab"), 0, "nothing leaves snd on a");
    assert!(frames(&o, 2, "ab") > 1000);
    // r2 then forwards 10.0.0.6 by its computed route to link b's subnet: via rcv over d.
    assert!(frames(&o, 3, "ab") > 1000);
}

#[test]
fn route_change_errors_name_the_key() {
    let err = |extra: &str| Scenario::from_toml_str(&square_toml(extra), "square.toml", &[]).unwrap_err().to_string();
    assert!(err("[[route_changes]]\nat = \"1s\"\nnode = \"r1\"\naction = \"down\"\nlink = \"c\"\n")
        .ends_with("route_changes[0].link: link \"c\" does not attach to node \"r1\""));
    assert!(err("[[route_changes]]\nat = \"1s\"\nnode = \"r1\"\naction = \"sideways\"\nlink = \"b\"\n")
        .ends_with("route_changes[0].action: unknown action \"sideways\" (known: down, up, add, remove)"));
    assert!(err("[[route_changes]]\nat = \"9s\"\nnode = \"r1\"\naction = \"down\"\nlink = \"b\"\n")
        .ends_with("route_changes[0].at: at 9s is not before the end of the run (6s)"));
    assert!(err("[[route_changes]]\nat = \"1s\"\nnode = \"snd\"\naction = \"add\"\nprefix = \"10.0.0.5/30\"\nvia = \"c\"\n")
        .ends_with("route_changes[0].prefix: \"10.0.0.5/30\" has host bits set (the subnet is 10.0.0.4/30)"));
    assert!(err("[[route_changes]]\nat = \"1s\"\nnode = \"snd\"\naction = \"down\"\nlink = \"c\"\nprefix = \"10.0.0.4/30\"\n")
        .contains("route_changes[0].prefix: unknown key"));
}
