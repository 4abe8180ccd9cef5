//! `[[route_changes]]` and a radio's `random_waypoint` table read and
//! written back: a corpus of inputs, each with one bad key, value or
//! combination (and good ones for every action and key), and what each
//! resolves to: the exact error text, or the section as summary.json
//! records it. The expected text is `route_keys.golden`; it was recorded
//! before these keys moved into key tables (`scenario/routes.rs`,
//! `scenario/radio_keys.rs`), so the tables reproduce the hand-written
//! readers and writers exactly. Regenerate (after a deliberate change) with
//! `AIRTCP_BLESS=1 cargo test -p airtcp-sim --test it route_keys::`.

use crate::common;
use airtcp_sim::Scenario;

/// snd - r1 - rcv (links a, b) and snd - r2 - rcv (links c, d), then `extra`.
fn square(extra: &str) -> String {
    let link = |name: &str, a: &str, b: &str| format!("[[links]]\nname = \"{name}\"\na = \"{a}\"\nb = \"{b}\"\nrate = \"10Mbps\"\ndelay = \"5ms\"\n");
    format!(
        "[sim]\nduration = \"6s\"\n[[nodes]]\nname = \"snd\"\n[[nodes]]\nname = \"r1\"\n[[nodes]]\nname = \"r2\"\n[[nodes]]\nname = \"rcv\"\n{}{}{}{}{extra}",
        link("a", "snd", "r1"),
        link("b", "r1", "rcv"),
        link("c", "snd", "r2"),
        link("d", "r2", "rcv"),
    )
}

/// One route change of the square: `at = "1s"`, `node = "r1"` and `lines`.
fn change(lines: &str) -> String {
    square(&format!("[[route_changes]]\nat = \"1s\"\nnode = \"r1\"\n{lines}\n"))
}

/// An AP and a station whose `random_waypoint` is `table` (inline TOML).
fn walk(table: &str) -> String {
    format!(
        "[sim]\nduration = \"2s\"\n[[nodes]]\nname = \"ap\"\n[[nodes]]\nname = \"sta\"\n[[radios]]\nnode = \"ap\"\nmode = \"ap\"\nssid = \"n\"\n[[radios]]\nnode = \"sta\"\nap = \"ap\"\nrandom_waypoint = {table}\n"
    )
}

fn cases() -> Vec<(&'static str, String)> {
    vec![
        // [[route_changes]]: the keys every action has.
        ("route unknown key", change("action = \"down\"\nlink = \"b\"\ncolour = 1")),
        ("route missing at", square("[[route_changes]]\nnode = \"r1\"\naction = \"down\"\nlink = \"b\"\n")),
        ("route at is a boolean", square("[[route_changes]]\nat = true\nnode = \"r1\"\naction = \"down\"\nlink = \"b\"\n")),
        ("route at bad unit", square("[[route_changes]]\nat = \"1 fortnight\"\nnode = \"r1\"\naction = \"down\"\nlink = \"b\"\n")),
        ("route at negative", square("[[route_changes]]\nat = \"-1s\"\nnode = \"r1\"\naction = \"down\"\nlink = \"b\"\n")),
        ("route at the end", square("[[route_changes]]\nat = \"6s\"\nnode = \"r1\"\naction = \"down\"\nlink = \"b\"\n")),
        ("route at after the end", square("[[route_changes]]\nat = \"9s\"\nnode = \"r1\"\naction = \"down\"\nlink = \"b\"\n")),
        ("route missing node", square("[[route_changes]]\nat = \"1s\"\naction = \"down\"\nlink = \"b\"\n")),
        ("route unknown node", square("[[route_changes]]\nat = \"1s\"\nnode = \"zz\"\naction = \"down\"\nlink = \"b\"\n")),
        ("route node is a number", square("[[route_changes]]\nat = \"1s\"\nnode = 2\naction = \"down\"\nlink = \"b\"\n")),
        ("route missing action", change("link = \"b\"")),
        ("route unknown action", change("action = \"sideways\"\nlink = \"b\"")),
        ("route action is a list", change("action = [\"down\"]\nlink = \"b\"")),
        // down / up.
        ("down with prefix", change("action = \"down\"\nlink = \"b\"\nprefix = \"10.0.0.4/30\"")),
        ("up with via", change("action = \"up\"\nlink = \"b\"\nvia = \"b\"")),
        ("down missing link", change("action = \"down\"")),
        ("up unknown link", change("action = \"up\"\nlink = \"zz\"")),
        ("down link not at the node", change("action = \"down\"\nlink = \"c\"")),
        ("down link is a number", change("action = \"down\"\nlink = 1")),
        // add.
        ("add with link", change("action = \"add\"\nprefix = \"10.0.0.4/30\"\nvia = \"b\"\nlink = \"b\"")),
        ("add missing prefix", change("action = \"add\"\nvia = \"b\"")),
        ("add missing via", change("action = \"add\"\nprefix = \"10.0.0.4/30\"")),
        ("add prefix with host bits", change("action = \"add\"\nprefix = \"10.0.0.5/30\"\nvia = \"b\"")),
        ("add prefix garbage", change("action = \"add\"\nprefix = \"nonsense\"\nvia = \"b\"")),
        ("add prefix length too long", change("action = \"add\"\nprefix = \"10.0.0.4/33\"\nvia = \"b\"")),
        ("add prefix is a number", change("action = \"add\"\nprefix = 10\nvia = \"b\"")),
        ("add unknown via", change("action = \"add\"\nprefix = \"10.0.0.4/30\"\nvia = \"zz\"")),
        ("add via not at the node", change("action = \"add\"\nprefix = \"10.0.0.4/30\"\nvia = \"d\"")),
        // remove.
        ("remove with via", change("action = \"remove\"\nprefix = \"10.0.0.4/30\"\nvia = \"b\"")),
        ("remove with link", change("action = \"remove\"\nprefix = \"10.0.0.4/30\"\nlink = \"b\"")),
        ("remove missing prefix", change("action = \"remove\"")),
        ("remove bad prefix", change("action = \"remove\"\nprefix = \"10.0.0/24\"")),
        // The list.
        ("route_changes is a table", square("[route_changes]\nat = \"1s\"\n")),
        ("route_changes item is a number", format!("route_changes = [1]\n{}", square(""))),
        ("second change bad", square("[[route_changes]]\nat = \"1s\"\nnode = \"r1\"\naction = \"down\"\nlink = \"b\"\n[[route_changes]]\nat = \"2s\"\nnode = \"r1\"\naction = \"up\"\nlink = \"c\"\n")),
        // Two faults: which one is reported.
        ("two faults: bad at and unknown key", square("[[route_changes]]\nat = \"9s\"\nnode = \"r1\"\naction = \"down\"\nlink = \"b\"\ncolour = 1\n")),
        ("two faults: unknown action and unknown key", change("action = \"sideways\"\ncolour = 1")),
        ("two faults: unknown node and missing action", square("[[route_changes]]\nat = \"1s\"\nnode = \"zz\"\n")),
        ("two faults: bad prefix and unknown via", change("action = \"add\"\nprefix = \"nonsense\"\nvia = \"zz\"")),
        ("two faults: missing link and unknown key", change("action = \"down\"\nprefix = \"10.0.0.4/30\"")),
        // random_waypoint.
        ("waypoint not a table", walk("3")),
        ("waypoint unknown key", walk("{ area = [0, 0, 10, 10], speed = [1.0, 2.0], colour = 1 }")),
        ("waypoint missing area", walk("{ speed = [1.0, 2.0] }")),
        ("waypoint missing speed", walk("{ area = [0, 0, 10, 10] }")),
        ("waypoint empty", walk("{}")),
        ("waypoint area of three", walk("{ area = [0, 0, 10], speed = [1.0, 2.0] }")),
        ("waypoint area inverted x", walk("{ area = [10, 0, 0, 10], speed = [1.0, 2.0] }")),
        ("waypoint area flat y", walk("{ area = [0, 5, 10, 5], speed = [1.0, 2.0] }")),
        ("waypoint area is a string", walk("{ area = \"big\", speed = [1.0, 2.0] }")),
        ("waypoint area item is a string", walk("{ area = [0, 0, \"10\", 10], speed = [1.0, 2.0] }")),
        ("waypoint area item is nan", walk("{ area = [0, 0, nan, 10], speed = [1.0, 2.0] }")),
        ("waypoint speed zero", walk("{ area = [0, 0, 10, 10], speed = [0.0, 2.0] }")),
        ("waypoint speed max below min", walk("{ area = [0, 0, 10, 10], speed = [2.0, 1.0] }")),
        ("waypoint speed of one", walk("{ area = [0, 0, 10, 10], speed = [1.0] }")),
        ("waypoint speed is a number", walk("{ area = [0, 0, 10, 10], speed = 1.5 }")),
        ("waypoint pause bad unit", walk("{ area = [0, 0, 10, 10], speed = [1.0, 2.0], pause = \"5 naps\" }")),
        ("waypoint pause negative", walk("{ area = [0, 0, 10, 10], speed = [1.0, 2.0], pause = \"-1s\" }")),
        ("waypoint pause is a boolean", walk("{ area = [0, 0, 10, 10], speed = [1.0, 2.0], pause = true }")),
        ("waypoint two faults: unknown key and bad area", walk("{ area = [0, 0, 10], speed = [1.0, 2.0], colour = 1 }")),
        ("waypoint two faults: bad area and bad speed", walk("{ area = [0, 0, 10], speed = [2.0, 1.0] }")),
        ("waypoint and waypoints", walk("{ area = [0, 0, 10, 10], speed = [1.0, 2.0] }\nwaypoints = [[0, 1.0, 1.0]]")),
        // Good ones: what summary.json records.
        ("ok down and up", square("[[route_changes]]\nat = \"1s\"\nnode = \"r1\"\naction = \"down\"\nlink = \"b\"\n[[route_changes]]\nat = \"2500ms\"\nnode = \"r1\"\naction = \"up\"\nlink = \"b\"\n")),
        ("ok add and remove", square("[[route_changes]]\nat = \"0s\"\nnode = \"snd\"\naction = \"add\"\nprefix = \"10.0.0.6/32\"\nvia = \"c\"\n[[route_changes]]\nat = \"3s\"\nnode = \"snd\"\naction = \"remove\"\nprefix = \"10.0.0.6/32\"\n")),
        ("ok remove a link's own subnet at its far end", square("[[route_changes]]\nat = 2.5\nnode = \"rcv\"\naction = \"remove\"\nprefix = \"10.0.0.12/30\"\n")),
        ("ok waypoint", walk("{ area = [0, 0, 500, 500], speed = [0.5, 1.5], pause = \"5s\" }")),
        ("ok waypoint without pause", walk("{ area = [-10.5, 0, 10, 20.25], speed = [1, 1] }")),
    ]
}

/// What `text` resolves to: its error, or its route changes and radios as
/// the resolved scenario records them (which load back to the same).
fn outcome(text: &str) -> String {
    match Scenario::from_toml_str(text, "routes.toml", &[]) {
        Err(e) => format!("error: {e}"),
        Ok(s) => {
            let j = s.to_json();
            let again = Scenario::from_json_str(&j.to_string(), "<resolved>", &[]).expect("the resolved scenario loads");
            let recorded = serde_json::json!({ "route_changes": j["route_changes"], "radios": j["wifi"]["radios"] });
            let back = again.to_json();
            assert_eq!(serde_json::json!({ "route_changes": back["route_changes"], "radios": back["wifi"]["radios"] }), recorded, "{text}");
            format!("ok: {}", serde_json::to_string_pretty(&recorded).unwrap())
        }
    }
}

#[test]
fn every_case_resolves_as_recorded() {
    common::golden::check("route_keys.golden", &cases(), outcome);
}

/// Every case of the corpus is a scenario error except the `ok` ones.
#[test]
fn corpus_errors_are_errors() {
    common::golden::errors_are_errors(&cases(), 50, |t| Scenario::from_toml_str(t, "routes.toml", &[]));
}
