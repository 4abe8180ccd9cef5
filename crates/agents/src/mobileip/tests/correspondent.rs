//! The correspondent's binding cache.

use airtcp_core::mobileip::{bu_flags, BindingUpdate, MipMsg};

use super::*;
use crate::agent::InjectAt;
use crate::mobileip::{Correspondent, CorrespondentConfig};

fn update(coa: [u8; 4], lifetime: u16, flags: u8) -> Packet {
    let bu = BindingUpdate { flags, lifetime, home_addr: MH, coa, id: Ident { hi: 5, lo: 1 } };
    mip_packet(HA, CH, (434, 434), 1, MipMsg::BindingUpdate(bu))
}

fn local_in(c: &mut Correspondent, t: Instant, mut p: Packet) -> Verdict {
    c.on_packet(t, Hook::LocalIn, WIRED, &mut p)
}

#[test]
fn correspondent_tunnels_straight_to_the_cached_care_of_address() {
    let mut c = Correspondent::new(CorrespondentConfig::new(CH));
    assert_eq!(send(&mut c, ms(1), WIRED, data(0)), Verdict::Accept, "nothing cached yet");
    assert_eq!(local_in(&mut c, ms(10), update(FA1, 10, 0)), Verdict::Stolen);
    assert_eq!(c.binding(MH, ms(10)), Some(FA1));
    assert!(injected(&mut c).is_empty(), "no acknowledgement asked");
    assert_eq!(send(&mut c, ms(20), WIRED, data(1)), Verdict::Stolen);
    let inj = injected(&mut c);
    assert_eq!(inj.len(), 1);
    assert_eq!(inj[0].at, InjectAt::Route);
    assert_eq!(inj[0].pkt.outer.map(|o| (o.src, o.dst)), Some((CH, FA1)));
    assert_eq!((inj[0].pkt.ip, inj[0].pkt.payload), (data(1).ip, data(1).payload));
    // The re-injected packet passes the agent again, untouched.
    assert_eq!(send(&mut c, ms(20), WIRED, inj[0].pkt), Verdict::Accept);
    assert_eq!(counter(&c, "tunnelled"), 1);
}

#[test]
fn correspondent_acknowledges_when_asked_and_deletes_on_lifetime_zero() {
    let mut c = Correspondent::new(CorrespondentConfig::new(CH));
    local_in(&mut c, ms(10), update(FA2, 10, bu_flags::A));
    let inj = injected(&mut c);
    assert_eq!(inj[0].pkt.ip.dst, HA);
    assert!(matches!(msg_of(&inj[0]), MipMsg::BindingAck(a) if a.coa == FA2 && !a.nack));
    local_in(&mut c, ms(20), update(MH, 0, 0));
    assert_eq!(c.binding(MH, ms(20)), None);
    assert_eq!(send(&mut c, ms(30), WIRED, data(0)), Verdict::Accept);
}

#[test]
fn used_binding_is_refreshed_with_a_request_to_the_home_address_then_lapses() {
    let mut c = Correspondent::new(CorrespondentConfig::new(CH));
    local_in(&mut c, ms(0), update(FA1, 10, 0));
    send(&mut c, ms(100), WIRED, data(0));
    injected(&mut c);
    assert_eq!(c.poll_timeout(), Some(ms(9000)));
    c.handle_timeout(ms(9000));
    let inj = injected(&mut c);
    assert_eq!(inj.len(), 1);
    assert_eq!((inj[0].pkt.ip.src, inj[0].pkt.ip.dst), (CH, MH));
    assert!(matches!(msg_of(&inj[0]), MipMsg::BindingRequest(r) if r.home_addr == MH));
    run_timers(&mut c, ms(10_000));
    assert_eq!(c.binding(MH, ms(10_000)), None);
    assert_eq!(counter(&c, "bindings_lapsed"), 1);
    // An unused binding lapses without a request.
    local_in(&mut c, ms(20_000), update(FA1, 10, 0));
    run_timers(&mut c, ms(30_000));
    assert!(injected(&mut c).is_empty());
}
