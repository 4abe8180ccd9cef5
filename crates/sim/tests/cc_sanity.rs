use airtcp_sim::{run, RunOptions, RunOutput, Scenario};

struct Net {
    rate: &'static str,
    queue: u32,
    loss: f64,
    outages: &'static str,
    cc: &'static str,
    duration: &'static str,
}

fn toml(n: &Net) -> String {
    let loss = if n.loss > 0.0 || !n.outages.is_empty() {
        let model = if n.loss > 0.0 { format!("model = \"uniform\"\np = {}\n", n.loss) } else { "model = \"none\"\n".into() };
        let out = if n.outages.is_empty() { String::new() } else { format!("outages = {}\n", n.outages) };
        format!("[links.loss_ab]\n{model}{out}")
    } else {
        String::new()
    };
    format!(
        r#"
[sim]
duration = "{dur}"
series_interval = "10ms"
[[nodes]]
name = "server"
[[nodes]]
name = "bs"
[[nodes]]
name = "mobile"
[[links]]
a = "server"
b = "bs"
rate = "100Mbps"
delay = "40ms"
queue_packets = 1000
[[links]]
a = "bs"
b = "mobile"
rate = "{rate}"
delay = "10ms"
queue_packets = {q}
{loss}
[[flows]]
from = "server"
to = "mobile"
app = "bulk"
[flows.tcp]
cc = "{cc}"
mss = 1448
min_rto = "200ms"
snd_buf = 4194304
rcv_buf = 6291456
"#,
        dur = n.duration,
        rate = n.rate,
        q = n.queue,
        cc = n.cc,
    )
}

fn go(n: &Net, seed: u64) -> RunOutput {
    let s = Scenario::from_toml_str(&toml(n), "cc_sanity", &[]).unwrap();
    run(&s, RunOptions { seed: Some(seed), ..Default::default() }).unwrap()
}

fn brief(o: &RunOutput) -> String {
    let f = &o.summary["flows"][0];
    let l = &o.summary["links"][1]["ab"];
    format!(
        "goodput {:.3} Mb/s retx {} rto {} fr {} rec {} qdrops {} lossdrops {} outdrops {} maxq {}",
        f["goodput_bps"].as_f64().unwrap() / 1e6,
        f["retransmissions"],
        f["timeouts"],
        f["fast_retransmits"],
        f["fast_recoveries"],
        l["queue_drops"],
        l["loss_drops"],
        l["outage_drops"],
        l["max_queue_packets"]
    )
}

#[test]
#[ignore]
fn explore() {
    let cc: &'static str = Box::leak(std::env::var("CC").unwrap_or("westwood".into()).into_boxed_str());
    let q: u32 = std::env::var("Q").map(|s| s.parse().unwrap()).unwrap_or(200);
    let loss: f64 = std::env::var("LOSS").map(|s| s.parse().unwrap()).unwrap_or(0.0);
    let outages: &'static str = Box::leak(std::env::var("OUT").unwrap_or_default().into_boxed_str());
    let duration: &'static str = Box::leak(std::env::var("DUR").unwrap_or("60s".into()).into_boxed_str());
    let n = Net { rate: "10Mbps", queue: q, loss, outages, cc, duration };
    let o = go(&n, 1);
    println!("{cc} q={q} loss={loss}: {}", brief(&o));
    let s = &o.series[0];
    let step: usize = std::env::var("STEP").map(|s| s.parse().unwrap()).unwrap_or(50);
    for i in (0..s.t_s.len()).step_by(step) {
        println!(
            "t {:6.2} cwnd {:5} ss {:10} st {} srtt {:.3} inflight {}",
            s.t_s[i],
            s.cwnd[i],
            s.ssthresh[i],
            s.ca_state[i],
            s.srtt_s[i],
            (s.snd_nxt[i] - s.snd_una[i]) / 1448
        );
    }
    if std::env::var("EV").is_ok() {
        for e in &o.events {
            println!("{:8.3} {} {}", e.t_s, e.kind, e.detail);
        }
    }
}

#[test]
#[ignore]
fn explore_drive() {
    let cc = std::env::var("CC").unwrap_or("westwood".into());
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/drive-ucc.toml");
    let mut sets = vec![("flows.0.tcp.cc".to_string(), cc.clone())];
    if let Ok(d) = std::env::var("DUR") {
        sets.push(("sim.duration".into(), d));
    }
    let s = Scenario::from_path(&path, &sets).unwrap();
    let o = run(&s, RunOptions { seed: Some(1), ..Default::default() }).unwrap();
    println!("{cc}: {}", brief(&o));
    let f = &o.summary["flows"][0];
    println!("{}", serde_json::to_string(&f).unwrap());
    println!("links: {}", serde_json::to_string(&o.summary["links"][0]).unwrap());
    if std::env::var("CAP").is_ok() {
        let ser = &o.summary["links"][1]["trace_ab"]["series"];
        println!("series keys: {:?}", ser.as_object().map(|m| m.keys().cloned().collect::<Vec<_>>()));
        let ts = ser["t_s"].as_array().unwrap();
        for (i, t) in ts.iter().enumerate() {
            let t = t.as_f64().unwrap();
            if t >= std::env::var("T0").unwrap().parse::<f64>().unwrap() - 5.0 && t <= std::env::var("T1").unwrap().parse::<f64>().unwrap() {
                println!("cap t {t} {} {}", ser["capacity_bps"][i], ser["loss_prob"][i]);
            }
        }
    }
    let s = &o.series[0];
    let t0: f64 = std::env::var("T0").map(|s| s.parse().unwrap()).unwrap_or(0.0);
    let t1: f64 = std::env::var("T1").map(|s| s.parse().unwrap()).unwrap_or(0.0);
    let step: usize = std::env::var("STEP").map(|s| s.parse().unwrap()).unwrap_or(1);
    for i in (0..s.t_s.len()).step_by(step) {
        if s.t_s[i] >= t0 && s.t_s[i] <= t1 {
            println!(
                "t {:6.2} cwnd {:5} ss {:10} st {} srtt {:.3} inflight {}",
                s.t_s[i],
                s.cwnd[i],
                s.ssthresh[i],
                s.ca_state[i],
                s.srtt_s[i],
                (s.snd_nxt[i] - s.snd_una[i]) / 1448
            );
        }
    }
    if std::env::var("EV").is_ok() {
        for e in &o.events {
            if e.t_s >= t0 && e.t_s <= t1 {
                println!("{:8.3} {} {}", e.t_s, e.kind, e.detail);
            }
        }
    }
}
