//! Handoff experiment: a bulk flow whose last hop goes dark for 2 s, Linux
//! profile (CUBIC, Linux RTO estimator with 200 ms minimum, SACK,
//! timestamps, 40 ms delayed ACK) with F-RTO / Eifel / D-SACK undo on (the
//! defaults) and off (`frto = undo = eifel = dsack = false`).
//!
//! Two kinds of outage on the base station -> mobile hop:
//! * `stall` — a drive-log cell change with `handoff_outage = "2s"` and
//!   `handoff_drops = false`: the base station's queue holds the frames and
//!   delivers them afterwards (lossless handover, a long radio stall). The
//!   RTO that fires inside is spurious.
//! * `drop` — `outages = [["5s", "7s"]]` in both directions: every frame
//!   ending inside is lost. The RTO is genuine.
//!
//! Measured: sender retransmissions and timeouts, the receiver's duplicate
//! data segments (retransmissions that were not needed), undo counters, and
//! cwnd / ssthresh 0.5 s after the outage. Rerun with
//! `cargo test --release -p airtcp-sim --test it handoff_frto:: -- --nocapture`
//! for the table (docs/tcp.md, "Handoff experiment").

use std::path::PathBuf;

use airtcp_sim::{run, RunOptions, RunOutput, Scenario};

const UCC_HEADER: &str = "Timestamp,Longitude,Latitude,Speed,Operatorname,CellID,NetworkMode,RSRP,RSRQ,SNR,CQI,RSSI,DL_bitrate,UL_bitrate,State,PINGAVG,PINGMIN,PINGMAX,PINGSTDEV,PINGLOSS,CELLHEX,NODEHEX,LACHEX,RAWCELLID,NRxRSRP,NRxRSRQ";

/// 20 s of a UCC drive log at 10 Mbit/s, cell 12 then 13 from t = 5 s.
fn drive_log() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("handoff_frto");
    std::fs::create_dir_all(&dir).unwrap();
    let mut s = String::from(UCC_HEADER);
    s.push('\n');
    for i in 0..20 {
        let cell = if i < 5 { "12" } else { "13" };
        s.push_str(&format!(
            "2019.12.14_10.24.{i:02},-8.41,51.92,52,B,{cell},LTE,-90,-9,-,15,-74,10000,200,D,-,-,-,-,-,C,A99B,9CBA,11115276,-90.0,-13.0\n"
        ));
    }
    let p = dir.join("drive.csv");
    std::fs::write(&p, s).unwrap();
    p
}

/// `undo`: "on" (defaults), "on-no-ts" (defaults without timestamps, so
/// F-RTO rather than Eifel decides) or "off".
fn scenario(stall: bool, undo: &str) -> String {
    let last_hop = if stall {
        format!(
            r#"rate_ba = "10Mbps"
[links.trace_ab]
kind = "drive"
file = "{}"
handoff_outage = "2s"
handoff_drops = false
[links.trace_ab.capacity]
kind = "reported"
[links.trace_ab.loss]
max_loss = 0"#,
            drive_log().display()
        )
    } else {
        r#"rate = "10Mbps"
[links.loss]
model = "none"
outages = [["5s", "7s"]]"#
            .to_string()
    };
    let switches = match undo {
        "on" => "",
        "on-no-ts" => "timestamps = false\n",
        _ => "frto = false\nundo = false\neifel = false\ndsack = false\n",
    };
    format!(
        r#"
[sim]
duration = "15s"
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
delay = "10ms"

[[links]]
a = "bs"
b = "mobile"
delay = "20ms"
queue_packets = 300
{last_hop}

[[flows]]
from = "server"
to = "mobile"
[flows.tcp]
cc = "cubic"
rto_timer = "linux"
min_rto = "200ms"
initial_rto = "1s"
delack_timeout = "40ms"
rcv_buf = 262144
# A send buffer that leaves data unsent at the stall: after it the
# receiver quick-ACKs segment by segment (a gap longer than its RTO,
# `idle_quickack`), so the first ACK covers only the retransmitted
# segment, and F-RTO's step 2b needs new data to send. With every byte
# in flight (snd_buf 262144, or the kernel's `iperf3 -w 128K`) Linux
# gives up F-RTO on the empty write queue and goes back N; with data to
# send the kernel undoes, as here (docs/emulate.md, "Found on the way").
snd_buf = 4194304
{switches}"#
    )
}

struct Row {
    retx: u64,
    timeouts: u64,
    dup_segs: u64,
    spurious_rtos: u64,
    loss_undos: u64,
    dsack_undos: u64,
    cwnd_after: u32,
    ssthresh_after: u32,
    cwnd_10s: u32,
    goodput_mbps: f64,
}

fn measure(stall: bool, undo: &str) -> (Row, RunOutput) {
    let text = scenario(stall, undo);
    let s = Scenario::from_toml_str(&text, "handoff.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let o = run(&s, RunOptions { seed: Some(1), ..Default::default() }).unwrap();
    let f = &o.summary["flows"][0];
    assert_eq!(f["recv_order_errors"], 0);
    let ser = &o.series[0];
    let at = |t: f64| ser.t_s.iter().position(|&x| x >= t - 1e-9).unwrap();
    let i = at(8.0);
    let u = |k: &str| f[k].as_u64().unwrap();
    let row = Row {
        retx: u("retransmissions"),
        timeouts: u("timeouts"),
        dup_segs: f["receiver"]["dup_data_segs_received"].as_u64().unwrap(),
        spurious_rtos: u("spurious_rtos_detected"),
        loss_undos: u("loss_undos"),
        dsack_undos: u("dsack_undos"),
        cwnd_after: ser.cwnd[i],
        ssthresh_after: ser.ssthresh[i],
        cwnd_10s: ser.cwnd[at(10.0)],
        goodput_mbps: f["goodput_bps"].as_f64().unwrap() / 1e6,
    };
    (row, o)
}

#[test]
fn handoff_outage_with_and_without_frto_and_undo() {
    let mut table = String::from(
        "outage  F-RTO+undo  retx  RTOs  dup segs at rcvr  spurious RTOs  loss undos  D-SACK undos  cwnd@8s  ssthresh@8s  cwnd@10s  goodput Mb/s\n",
    );
    let mut rows = Vec::new();
    for stall in [true, false] {
        for undo in ["on", "on-no-ts", "off"] {
            let (r, _) = measure(stall, undo);
            let ss = if r.ssthresh_after >= 0x7fff_ffff { "inf".to_string() } else { r.ssthresh_after.to_string() };
            table += &format!(
                "{:<7} {:<11} {:>5} {:>5} {:>17} {:>14} {:>11} {:>13} {:>8} {:>12} {:>9} {:>13.2}\n",
                if stall { "stall" } else { "drop" },
                undo,
                r.retx,
                r.timeouts,
                r.dup_segs,
                r.spurious_rtos,
                r.loss_undos,
                r.dsack_undos,
                r.cwnd_after,
                ss,
                r.cwnd_10s,
                r.goodput_mbps
            );
            rows.push(((stall, undo), r));
        }
    }
    eprintln!("{table}");
    let get = |stall: bool, undo: &str| &rows.iter().find(|(k, _)| *k == (stall, undo)).unwrap().1;
    let (on, frto, off) = (get(true, "on"), get(true, "on-no-ts"), get(true, "off"));
    // The stall: an RTO fires either way; with F-RTO / Eifel it is undone.
    assert!(on.timeouts >= 1 && off.timeouts >= 1);
    assert!(on.loss_undos >= 1, "{table}");
    assert!(frto.spurious_rtos >= 1 && frto.loss_undos >= 1, "{table}");
    assert!(frto.dup_segs < off.dup_segs, "{table}");
    assert_eq!(off.loss_undos + off.spurious_rtos + off.dsack_undos, 0, "{table}");
    // Without undo the go-back-N burst repeats what the receiver has.
    assert!(off.dup_segs > on.dup_segs, "{table}");
    assert!(on.cwnd_after > off.cwnd_after, "{table}");
    // The lossy outage: the data in flight is lost, but so are the ACKs of
    // what arrived just before it, so the first ACK after the outage
    // acknowledges never-retransmitted data — F-RTO (and Eifel, through the
    // old TSecr) call the timeout spurious, as Linux does. The undo only
    // restores cwnd: the lost segments are found again by SACK, and the
    // retransmissions stay those of the conventional recovery.
    let (on, off) = (get(false, "on"), get(false, "off"));
    assert!(on.timeouts >= 1 && off.timeouts >= 1);
    assert_eq!(on.dup_segs, off.dup_segs, "{table}");
    assert!(on.retx.abs_diff(off.retx) <= 5, "{table}");
}
