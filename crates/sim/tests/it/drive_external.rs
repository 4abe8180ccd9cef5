//! A driven run with external nodes (an emulator's real hosts) keeps the
//! simulated end of a flow whose other end is external, and that end
//! speaks TCP to the outside: a simulated server answers a SYN from any
//! port, a simulated client's SYN leaves for the external server. No root
//! needed: the "kernel" here is the test, injecting and catching packets.

use std::cell::RefCell;
use std::path::Path;
use std::rc::Rc;

use airtcp_core::{Instant, Packet, Segment, SeqNum, TcpFlags};
use airtcp_sim::realbytes::RealBytes;
use airtcp_sim::{Driver, External, MixedFlow, Scenario};

/// What reaches the external nodes.
#[derive(Default)]
struct Catch(Vec<(u32, Packet)>);

impl External for Catch {
    const ACTIVE: bool = true;
    fn event(&mut self, _due: Instant) {}
    fn deliver(&mut self, _now: Instant, node: u32, _iface: u32, pkt: &Packet) {
        self.0.push((node, *pkt));
    }
}

fn path() -> Scenario {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/emu-path.toml");
    Scenario::from_path(&p, &[]).unwrap()
}

fn driver<'s>(sc: &'s Scenario, external: &[usize]) -> Result<Driver<'s>, String> {
    Driver::new(sc, None, None, external, Rc::new(RefCell::new(RealBytes::new(0)))).map_err(|e| e.to_string())
}

/// The SYN a Linux client sends: ephemeral port, MSS, SACK permitted,
/// timestamps, window scale.
fn kernel_syn() -> Segment {
    Segment {
        src_port: 40_123,
        dst_port: 1024,
        seq: SeqNum(777),
        flags: TcpFlags::SYN,
        window: 64_240,
        mss: Some(1460),
        sack_permitted: true,
        timestamps: Some((123_456, 0)),
        wscale: Some(10),
        ..Default::default()
    }
}

#[test]
fn simulated_server_answers_a_syn_from_any_port() {
    let sc = path();
    let mut d = driver(&sc, &[0]).unwrap();
    assert_eq!(d.mixed_flows(), vec![MixedFlow { flow: 0, simulated_client: false, server_addr: [10, 0, 0, 2], server_port: 1024 }]);
    let mut x = Catch::default();
    let t = Instant::from_millis(100);
    d.run_until(t, &mut x);
    d.inject(t, 0, Packet::tcp([10, 0, 0, 1], [10, 0, 0, 2], 64, 1, kernel_syn()), &mut x);
    d.run_until(Instant::from_millis(300), &mut x);
    // One packet came back: the SYN-ACK, to the SYN's port. The external
    // sender's own simulated endpoint never started (its SYN would have
    // drawn a second SYN-ACK).
    assert_eq!(x.0.len(), 1, "{:?}", x.0);
    let (node, p) = &x.0[0];
    assert_eq!(*node, 0);
    assert_eq!((p.ip.src, p.ip.dst), ([10, 0, 0, 2], [10, 0, 0, 1]));
    let s = p.segment().unwrap();
    assert_eq!(s.flags, TcpFlags::SYN | TcpFlags::ACK);
    assert_eq!((s.src_port, s.dst_port), (1024, 40_123));
    assert_eq!(s.ack, SeqNum(778));
    assert!(s.sack_permitted && s.wscale.is_some());
    assert_eq!(s.timestamps.unwrap().1, 123_456, "TSecr echoes the SYN's TSval");
}

#[test]
fn simulated_client_connects_to_the_external_server() {
    let sc = path();
    let mut d = driver(&sc, &[1]).unwrap();
    assert_eq!(d.mixed_flows(), vec![MixedFlow { flow: 0, simulated_client: true, server_addr: [10, 0, 0, 2], server_port: 1024 }]);
    let mut x = Catch::default();
    d.run_until(Instant::from_millis(100), &mut x);
    assert_eq!(x.0.len(), 1, "{:?}", x.0);
    let (node, p) = &x.0[0];
    assert_eq!(*node, 1);
    let s = p.segment().unwrap();
    assert_eq!(s.flags, TcpFlags::SYN);
    assert_eq!((s.src_port, s.dst_port), (49_152, 1024));
    assert!(s.mss.is_some() && s.sack_permitted && s.timestamps.is_some() && s.wscale.is_some());
}

#[test]
fn flow_between_two_external_nodes_is_refused() {
    let sc = path();
    let e = driver(&sc, &[0, 1]).err().expect("both ends external");
    assert!(e.contains("flows[0]: both ends are real hosts"), "{e}");
}
