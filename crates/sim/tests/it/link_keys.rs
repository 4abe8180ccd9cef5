//! `[[links]]` read and written back: a corpus of link sections, each with
//! one bad key, value or combination (and a few good ones covering every
//! key), and what each resolves to: the exact error text, or the link as
//! summary.json records it. The expected text is
//! `link_keys.golden`; it was recorded before the link keys moved into
//! their key tables (`scenario/link_keys.rs`), so the tables reproduce the
//! hand-written reader and writer exactly. Regenerate (after a deliberate
//! change) with `AIRTCP_BLESS=1 cargo test -p airtcp-sim --test it link_keys::`.

use crate::common;
use airtcp_sim::Scenario;

/// The scenario's origin, beside the test traces (so their relative paths
/// resolve there whatever the working directory: another test changes it).
fn origin() -> String {
    format!("{}/../../tests/data/traces/links.toml", env!("CARGO_MANIFEST_DIR"))
}

/// `text` without the crate directory, so the recorded messages do not
/// depend on where the checkout lives.
fn rel(text: &str) -> String {
    text.replace(concat!(env!("CARGO_MANIFEST_DIR"), "/"), "")
}

fn resolve(links: &str) -> Result<Scenario, airtcp_sim::ScenarioError> {
    Scenario::from_toml_str(&scenario(links), &origin(), &[])
}

const UCC: &str = "cellular_5g_ucc_driving/B_2019.12.14_10.16.30.rows450-749.csv";
const FEUP: &str = "wifi_vehicular_feup/final-exp-log.excerpt.csv";
const MAHIMAHI: &str = "mahimahi/TMobile-LTE-short.down.head300";

/// Three nodes, then `links` (one or more `[[links]]` tables).
fn scenario(links: &str) -> String {
    format!("[sim]\nduration = \"2s\"\n\n[[nodes]]\nname = \"a\"\n[[nodes]]\nname = \"b\"\n[[nodes]]\nname = \"c\"\n\n{links}")
}

/// A link a -> b at 1 Mb/s with `extra` lines after its keys.
fn ab(extra: &str) -> String {
    format!("[[links]]\na = \"a\"\nb = \"b\"\nrate = \"1Mbps\"\n{extra}\n")
}

/// A link a -> b whose direction ab follows `trace` (the lines of its table).
fn traced(trace: &str) -> String {
    format!("[[links]]\na = \"a\"\nb = \"b\"\nrate_ba = \"1Mbps\"\n[links.trace_ab]\n{trace}\n")
}

fn cases() -> Vec<(&'static str, String)> {
    let drive = |extra: &str| traced(&format!("kind = \"drive\"\nfile = \"{UCC}\"\n{extra}"));
    let feup = |extra: &str| traced(&format!("kind = \"drive\"\nfile = \"{FEUP}\"\n{extra}"));
    vec![
        // The link's own keys.
        ("unknown key", ab("colour = \"red\"")),
        ("missing a", "[[links]]\nb = \"b\"\nrate = \"1Mbps\"\n".into()),
        ("missing b", "[[links]]\na = \"a\"\nrate = \"1Mbps\"\n".into()),
        ("unknown node", "[[links]]\na = \"a\"\nb = \"z\"\nrate = \"1Mbps\"\n".into()),
        ("a is not a string", "[[links]]\na = 1\nb = \"b\"\nrate = \"1Mbps\"\n".into()),
        ("a equals b", "[[links]]\na = \"a\"\nb = \"a\"\nrate = \"1Mbps\"\n".into()),
        ("bad name", ab("name = \"a b\"")),
        ("duplicate default name", format!("{}{}", ab(""), ab(""))),
        ("duplicate declared name", format!("{}[[links]]\nname = \"a-b\"\na = \"b\"\nb = \"c\"\nrate = \"1Mbps\"\n", ab(""))),
        ("missing rate", "[[links]]\na = \"a\"\nb = \"b\"\n".into()),
        ("missing rate of one direction", "[[links]]\na = \"a\"\nb = \"b\"\nrate_ab = \"1Mbps\"\n".into()),
        ("zero rate", "[[links]]\na = \"a\"\nb = \"b\"\nrate = 0\n".into()),
        ("bad rate unit", "[[links]]\na = \"a\"\nb = \"b\"\nrate = \"10Mbit\"\n".into()),
        ("negative rate", "[[links]]\na = \"a\"\nb = \"b\"\nrate = -5\n".into()),
        ("rate is a table", "[[links]]\na = \"a\"\nb = \"b\"\n[links.rate]\nx = 1\n".into()),
        ("bad rate_ba", ab("rate_ba = \"fast\"")),
        ("negative delay", ab("delay = \"-5ms\"")),
        ("bad delay unit", ab("delay = \"5 parsecs\"")),
        ("negative delay_ab", ab("delay_ab = -1")),
        ("delay is a boolean", ab("delay_ba = true")),
        ("queue_packets zero", ab("queue_packets = 0")),
        ("queue_packets negative", ab("queue_packets = -3")),
        ("queue_packets too large", ab("queue_packets = 5000000000")),
        ("queue_bytes zero", ab("queue_bytes = 0")),
        ("queue_bytes bad unit", ab("queue_bytes = \"10 bananas\"")),
        ("queue_packets and queue_bytes", ab("queue_packets = 10\nqueue_bytes = 10000")),
        ("overhead_bytes too large", ab("overhead_bytes = 70000")),
        ("overhead_bytes float", ab("overhead_bytes = 2.5")),
        ("ecn_threshold zero packets", ab("ecn_threshold = 0")),
        ("ecn_threshold zero bytes", ab("ecn_threshold = \"0B\"")),
        ("ecn_threshold boolean", ab("ecn_threshold = true")),
        ("ecn_threshold and red", ab("ecn_threshold = 5\n[links.red]\necn = true")),
        ("ecn_threshold and red_ba", ab("ecn_threshold = 5\n[links.red_ba]\necn = true")),
        ("subnet with host bits", ab("subnet = \"10.1.0.1/30\"")),
        ("subnet too small", ab("subnet = \"10.1.0.0/31\"")),
        ("subnet not a prefix", ab("subnet = \"banana\"")),
        ("addr_a outside the subnet", ab("subnet = \"10.1.0.0/30\"\naddr_a = \"10.2.0.1\"")),
        ("addr_b is the broadcast address", ab("subnet = \"10.1.0.0/30\"\naddr_b = \"10.1.0.3\"")),
        ("addr_b equals addr_a", ab("subnet = \"10.1.0.0/29\"\naddr_a = \"10.1.0.2\"\naddr_b = \"10.1.0.2\"")),
        ("addr_a not an address", ab("addr_a = \"10.0.0.300\"")),
        ("address used twice", format!("{}[[links]]\na = \"b\"\nb = \"c\"\nrate = \"1Mbps\"\naddr_a = \"10.0.0.1\"\nsubnet = \"10.0.0.0/29\"\n", ab(""))),
        // Loss tables.
        ("loss rate 2", ab("[links.loss]\nmodel = \"uniform\"\np = 2")),
        ("loss p negative", ab("[links.loss_ab]\nmodel = \"uniform\"\np = -0.1")),
        ("loss p missing", ab("[links.loss]\nmodel = \"uniform\"")),
        ("loss unknown model", ab("[links.loss]\nmodel = \"bursty\"\np = 0.1")),
        ("loss model not a string", ab("[links.loss]\nmodel = 1")),
        ("loss no model nor outages", ab("[links.loss]\np = 0.1")),
        ("loss key of another model", ab("[links.loss]\nmodel = \"uniform\"\np = 0.1\nber = 0.001")),
        ("loss unknown key for none", ab("[links.loss]\nmodel = \"none\"\np = 0.1")),
        ("loss ber 1.5", ab("[links.loss_ba]\nmodel = \"ber\"\nber = 1.5")),
        ("loss ber missing", ab("[links.loss]\nmodel = \"ber\"")),
        ("gilbert p_bg missing", ab("[links.loss]\nmodel = \"gilbert\"\np_gb = 0.01")),
        ("gilbert loss_bad 3", ab("[links.loss]\nmodel = \"gilbert\"\np_gb = 0.01\np_bg = 0.1\nloss_bad = 3")),
        ("gilbert unknown key", ab("[links.loss]\nmodel = \"gilbert\"\np_gb = 0.01\np_bg = 0.1\np = 0.2")),
        ("list drops not increasing", ab("[links.loss]\nmodel = \"list\"\ndrops = [3, 2]")),
        ("list drops negative", ab("[links.loss]\nmodel = \"list\"\ndrops = [-1]")),
        ("list drops missing", ab("[links.loss]\nmodel = \"list\"")),
        ("outage ends before it starts", ab("[links.loss]\noutages = [[\"2s\", \"1s\"]]")),
        ("outage with three values", ab("[links.loss]\noutages = [[\"1s\", \"2s\", \"3s\"]]")),
        ("outages overlap", ab("[links.loss]\nmodel = \"none\"\noutages = [[\"1s\", \"3s\"], [\"2s\", \"4s\"]]")),
        ("outages not a list", ab("[links.loss]\noutages = \"1s\"")),
        ("loss and loss_ab", ab("[links.loss]\nmodel = \"none\"\n[links.loss_ab]\nmodel = \"none\"")),
        ("loss is not a table", ab("loss = 0.1")),
        // Reordering and RED.
        ("reorder p 2", ab("[links.reorder]\np = 2\ndelay = \"1ms\"")),
        ("reorder delay missing", ab("[links.reorder_ab]\np = 0.1")),
        ("reorder unknown key", ab("[links.reorder]\np = 0.1\ndelay = \"1ms\"\njitter = \"1ms\"")),
        ("reorder and reorder_ba", ab("[links.reorder]\np = 0.1\ndelay = \"1ms\"\n[links.reorder_ba]\np = 0.1\ndelay = \"1ms\"")),
        ("red max_th below min_th", ab("[links.red]\nmin_th = 10\nmax_th = 5")),
        ("red w_q zero", ab("[links.red_ab]\nw_q = 0")),
        ("red unknown key", ab("[links.red]\nlimit = 5")),
        ("red and red_ab", ab("[links.red]\necn = true\n[links.red_ab]\necn = true")),
        // Traces.
        ("trace and rate_ab", format!("[[links]]\na = \"a\"\nb = \"b\"\nrate_ab = \"1Mbps\"\nrate_ba = \"1Mbps\"\n[links.trace_ab]\nkind = \"mahimahi\"\nfile = \"{MAHIMAHI}\"\n")),
        ("trace and trace_ab", format!("[[links]]\na = \"a\"\nb = \"b\"\n[links.trace]\nkind = \"mahimahi\"\nfile = \"{MAHIMAHI}\"\n[links.trace_ab]\nkind = \"mahimahi\"\nfile = \"{MAHIMAHI}\"\n")),
        ("trace kind missing", traced(&format!("file = \"{MAHIMAHI}\""))),
        ("trace file missing", traced("kind = \"mahimahi\"")),
        ("trace unknown kind", traced(&format!("kind = \"pcap\"\nfile = \"{MAHIMAHI}\""))),
        ("trace file does not exist", traced("kind = \"mahimahi\"\nfile = \"no/such.trace\"")),
        ("mahimahi drive key", traced(&format!("kind = \"mahimahi\"\nfile = \"{MAHIMAHI}\"\noffset = \"1s\""))),
        ("mahimahi file is a drive log", traced(&format!("kind = \"mahimahi\"\nfile = \"{UCC}\""))),
        ("drive unknown key", drive("speed = 3")),
        ("drive unknown format", drive("format = \"csv\"")),
        ("drive wrong format", drive("format = \"imc23\"")),
        ("drive file is a mahimahi trace", traced(&format!("kind = \"drive\"\nfile = \"{MAHIMAHI}\""))),
        ("drive negative offset", drive("offset = \"-1s\"")),
        ("drive offset past the end", drive("offset = \"3h\"")),
        ("drive negative handoff_outage", drive("handoff_outage = \"-50ms\"")),
        ("drive handoff_drops not a boolean", drive("handoff_drops = \"yes\"")),
        ("drive negative min_rate", drive("min_rate = -1")),
        ("drive max_rate below min_rate", drive("min_rate = \"2Mbps\"\nmax_rate = \"1Mbps\"")),
        ("drive bad max_rate unit", drive("max_rate = \"1Mbit\"")),
        ("drive feup_link on a ucc log", drive("feup_link = \"ap2->m1\"")),
        ("drive feup_hysteresis on a ucc log", drive("feup_hysteresis = 3.0")),
        ("feup_link malformed", feup("feup_link = \"ap2\"")),
        ("feup_hysteresis negative", feup("feup_hysteresis = -1.0")),
        ("feup_link and feup_hysteresis", feup("feup_link = \"ap1->w2\"\nfeup_hysteresis = 3.0")),
        ("drive capacity unknown kind", drive("[links.trace_ab.capacity]\nkind = \"magic\"")),
        ("drive capacity unknown field", drive("[links.trace_ab.capacity]\nbandwidth = 5e6")),
        ("drive capacity not a table", drive("capacity = 3")),
        ("drive loss max_loss 2", drive("[links.trace_ab.loss]\nmax_loss = 2.0")),
        ("drive loss not a table", drive("loss = 0.5")),
        ("drive loss curve and loss model", format!("{}[links.loss_ab]\nmodel = \"uniform\"\np = 0.01\n", drive(""))),
        ("drive loss curve and loss both", format!("{}[links.loss]\nmodel = \"uniform\"\np = 0.01\n", drive(""))),
        ("trace is not a table", "[[links]]\na = \"a\"\nb = \"b\"\nrate = \"1Mbps\"\ntrace_ba = \"x\"\n".into()),
        // Good links: what summary.json records.
        ("ok defaults", ab("")),
        ("ok per direction", "[[links]]\nname = \"air\"\na = \"a\"\nb = \"b\"\nrate = \"2Mbps\"\nrate_ba = \"512kbps\"\ndelay = \"10ms\"\ndelay_ab = \"15ms\"\nqueue_bytes = \"30KB\"\noverhead_bytes = 0\nsubnet = \"192.168.7.0/29\"\naddr_a = \"192.168.7.2\"\n".into()),
        ("ok loss models", ab("ecn_threshold = \"15KB\"\n[links.loss_ab]\nmodel = \"gilbert\"\np_gb = 0.01\np_bg = 0.25\nloss_good = 0.001\n[links.loss_ba]\nmodel = \"list\"\ndrops = [0, 4, 9]\noutages = [[\"1.5s\", \"1.75s\"], [\"0.5s\", 0.6]]")),
        ("ok uniform and ber", ab("ecn_threshold = 20\n[links.loss_ab]\nmodel = \"uniform\"\np = 0.05\n[links.loss_ba]\nmodel = \"ber\"\nber = 1e-6")),
        ("ok outages only", ab("[links.loss]\noutages = [[\"1s\", \"1.2s\"]]")),
        ("ok red and reorder", ab("queue_packets = 40\n[links.red_ab]\nmin_th = 3\nmax_th = 9\ngentle = false\necn = true\nmean_pkt_bytes = \"1KiB\"\n[links.reorder]\np = 0.1\ndelay = \"2ms\"")),
        ("ok mahimahi both directions", format!("[[links]]\na = \"a\"\nb = \"b\"\ndelay = \"5ms\"\n[links.trace]\nkind = \"mahimahi\"\nfile = \"{MAHIMAHI}\"\n")),
        ("ok drive defaults", drive("")),
        ("ok drive every key", drive("format = \"ucc\"\noffset = \"10s\"\nhandoff_outage = \"80ms\"\nhandoff_drops = true\nmin_rate = \"100kbps\"\nmax_rate = 50000000\n[links.trace_ab.capacity]\nkind = \"linear\"\nsignal_lo_dbm = -120.0\ncap_lo_bps = 1e5\nsignal_hi_dbm = -80.0\ncap_hi_bps = 2e7\n[links.trace_ab.loss]\nmidpoint_dbm = -115.0")),
        ("ok drive reported capacity, no loss curve", drive("[links.trace_ab.capacity]\nkind = \"reported\"\nscale = 0.5\n[links.trace_ab.loss]\nmax_loss = 0.0")),
        ("ok drive shannon refined", drive("[links.trace_ab.capacity]\nbandwidth_hz = 5e6")),
        ("ok drive without curve and a loss model", format!("{}[links.loss_ab]\nmodel = \"uniform\"\np = 0.01\n", drive("[links.trace_ab.loss]\nmax_loss = 0.0"))),
        ("ok feup link", feup("feup_link = \"ap1->w2\"")),
        ("ok feup roaming", feup("feup_hysteresis = 3.0")),
        ("ok feup default", feup("")),
    ]
}

/// What `text` resolves to: its error, or the links of the resolved scenario.
fn outcome(text: &str) -> String {
    match resolve(text) {
        Err(e) => format!("error: {}", rel(&e.to_string())),
        Ok(s) => {
            let links = &s.to_json()["links"];
            // The resolved links load back to the same links.
            let again = Scenario::from_json_str(&s.to_json().to_string(), "<resolved>", &[]).expect("the resolved scenario loads");
            assert_eq!(again.to_json()["links"], *links, "{text}");
            format!("ok: {}", rel(&serde_json::to_string_pretty(links).unwrap()))
        }
    }
}

#[test]
fn every_case_resolves_as_recorded() {
    common::golden::check("link_keys.golden", &cases(), outcome);
}

/// Every case of the corpus is a scenario error except the `ok` ones.
#[test]
fn corpus_errors_are_errors() {
    common::golden::errors_are_errors(&cases(), 40, resolve);
}

fn err(links: &str) -> String {
    rel(&resolve(links).unwrap_err().to_string())
}

#[test]
fn per_direction_conflicts_name_both_keys() {
    assert_eq!(
        err(&ab("[links.loss]\nmodel = \"none\"\n[links.loss_ab]\nmodel = \"none\"")),
        "../../tests/data/traces/links.toml:17: links[0].loss_ab: conflicts with links[0].loss; use either loss or loss_ab/loss_ba"
    );
    let e = err(&format!("[[links]]\na = \"a\"\nb = \"b\"\nrate_ab = \"1Mbps\"\nrate_ba = \"1Mbps\"\n[links.trace_ab]\nkind = \"mahimahi\"\nfile = \"{MAHIMAHI}\"\n"));
    assert_eq!(e, "../../tests/data/traces/links.toml:14: links[0].rate_ab: conflicts with the trace of direction ab; a trace sets the rate (drop rate_ab)");
}

#[test]
fn link_values_are_checked_where_they_are_written() {
    assert_eq!(err(&ab("delay = \"-5ms\"")), "../../tests/data/traces/links.toml:15: links[0].delay: negative duration \"-5ms\"");
    assert_eq!(err(&ab("[links.loss]\nmodel = \"uniform\"\np = 2")), "../../tests/data/traces/links.toml:17: links[0].loss.p: probability 2 is outside [0, 1]");
    assert_eq!(err("[[links]]\na = \"a\"\nb = \"b\"\n"), "../../tests/data/traces/links.toml:11: links[0].rate: missing required key");
    let e = err(&ab("colour = \"red\""));
    assert!(e.ends_with("links[0].colour: unknown key (known: name, a, b, rate, rate_ab, rate_ba, delay, delay_ab, delay_ba, queue_packets, queue_bytes, overhead_bytes, loss, loss_ab, loss_ba, reorder, reorder_ab, reorder_ba, trace, trace_ab, trace_ba, subnet, addr_a, addr_b, ecn_threshold, red, red_ab, red_ba)"), "{e}");
}
