//! The simulator's event kinds and event-log records, shared by the network
//! (which schedules media and agent timers) and the run loop.
//!
//! Every event kind is declared once, in the [`event_kinds!`] table below:
//! its variant, its fields, and the name it is counted under in
//! `summary.run.events_by_kind`. The table generates the enum, its kind
//! index, its one-word encoding for the event queue, the list of names and
//! the round-trip test's samples. Adding a kind is one line there, plus
//! the arm that handles it in the run loop (`world::Sim::run_until`), which
//! the compiler asks for.

use airtcp_core::Duration;
use airtcp_tcp::Event;

/// A field of an event that fits one byte of its encoding (bytes 1 to 3
/// of the word; the kind is byte 0 and a `u32` field the high half).
trait SmallField: Copy {
    /// The largest value (the round-trip test's samples).
    #[cfg_attr(not(test), allow(dead_code))]
    const MAX: Self;
    fn to_byte(self) -> u8;
    fn from_byte(b: u8) -> Self;
}

impl SmallField for u8 {
    const MAX: u8 = u8::MAX;
    #[inline(always)]
    fn to_byte(self) -> u8 {
        self
    }
    #[inline(always)]
    fn from_byte(b: u8) -> u8 {
        b
    }
}

impl SmallField for bool {
    const MAX: bool = true;
    #[inline(always)]
    fn to_byte(self) -> u8 {
        self as u8
    }
    #[inline(always)]
    fn from_byte(b: u8) -> bool {
        b & 1 == 1
    }
}

/// Declares the event kinds: `Variant "counted as" { word: u32; small: u8, ... }`,
/// at most one `u32` field (before the `;`) and up to three byte-sized ones.
macro_rules! event_kinds {
    ($(
        $(#[$doc:meta])*
        $name:ident $label:literal { $($word:ident: u32)? $(; $($small:ident: $sty:ty),+)? }
    ),+ $(,)?) => {
        #[derive(Clone, Copy, Debug)]
        pub(crate) enum Ev {
            $( $(#[$doc])* $name { $($word: u32,)? $($($small: $sty,)+)? }, )+
        }

        /// The kinds in declaration order: an event's index into [`EVENT_KINDS`].
        #[allow(dead_code)]
        #[repr(u8)]
        enum Kind { $($name,)+ }

        /// Each kind's index as a constant, for the decoder's match.
        #[allow(non_upper_case_globals)]
        mod kind {
            $( pub const $name: u8 = super::Kind::$name as u8; )+
        }

        /// The number of event kinds.
        const N_KINDS: usize = [$($label),+].len();

        /// Names of the counters of `summary.run.events_by_kind`: one per
        /// kind, then [`RADIO_MEDIA`] (see [`Ev::Medium`]).
        pub(crate) const EVENT_KINDS: [&str; N_KINDS + 1] = [$($label,)+ RADIO_MEDIA];

        impl Ev {
            /// Index into [`EVENT_KINDS`].
            #[inline]
            pub fn kind(&self) -> usize {
                match self {
                    $( Ev::$name { .. } => kind::$name as usize, )+
                }
            }

            /// One event of every kind, every field at its largest.
            #[cfg(test)]
            fn samples() -> Vec<Ev> {
                vec![$( Ev::$name { $($word: u32::MAX,)? $($($small: <$sty as SmallField>::MAX,)+)? }, )+]
            }
        }

        impl crate::engine::EventCode for Ev {
            /// The kind in the low byte (`Ev::kind`), the `u32` field in the
            /// high half, the byte-sized fields in bytes 1, 2 and 3.
            #[inline]
            #[allow(unused_mut, unused_assignments, unused_variables)]
            fn encode(self) -> u64 {
                match self {
                    $( Ev::$name { $($word,)? $($($small,)+)? } => {
                        let mut code = kind::$name as u64;
                        $( code |= ($word as u64) << 32; )?
                        let mut shift = 8;
                        $($( code |= (SmallField::to_byte($small) as u64) << shift; shift += 8; )+)?
                        code
                    } )+
                }
            }

            #[inline]
            #[allow(unused_mut, unused_assignments, unused_variables)]
            fn decode(code: u64) -> Ev {
                let word = (code >> 32) as u32;
                let mut shift = 8;
                match code as u8 {
                    $( kind::$name => Ev::$name {
                        $($word: word,)?
                        $($($small: {
                            let v = <$sty as SmallField>::from_byte((code >> shift) as u8);
                            shift += 8;
                            v
                        },)+)?
                    }, )+
                    _ => unreachable!("an event code holds a declared kind"),
                }
            }
        }
    };
}

event_kinds! {
    /// Medium `m` (a link, the WLAN, the point-to-point cells: any
    /// [`crate::network::Medium`]) may have frames to deliver or a timer due.
    /// Counted as `packet`, except the wakes of radio media, which the
    /// network counts apart and the summary reports as [`RADIO_MEDIA`].
    Medium "packet" { m: u32 },
    /// Endpoint `ep` may have a timer due.
    Timer "timer" { ep: u32 },
    FlowStart "flow_start" { flow: u32 },
    /// Rate-limited reader tick.
    Read "read" { flow: u32 },
    /// Log only: the loss process itself knows its windows.
    Outage "outage" { link: u32; dir: u8, start: bool },
    /// Log only: entry `entry` of the run's drive-trace handoff markers
    /// (`Sim::handoffs`: link, direction, handoff index; the rate model and
    /// loss windows already contain its outage). An index, so that every
    /// event fits one word (`EventCode`).
    Handoff "handoff" { entry: u32 },
    /// Agent `agent` may have a timer due.
    Agent "agent" { agent: u32 },
    /// Apply the scenario's route change `idx`.
    RouteChange "route_change" { idx: u32 },
    /// The SDN control plane has a control message or a timeout due.
    Sdn "sdn" {},
    /// UDP flow `flow`'s sender has a datagram or a period change due.
    Udp "udp" { flow: u32 },
}

/// The counter of `summary.run.events_by_kind` that holds the wakes of radio
/// media (the WLAN, the cells), split off the `packet` count at the end of
/// a run ([`crate::network::Network::radio_wakes`]). The summary counted them
/// apart when they had an event kind of their own; it still does.
pub(crate) const RADIO_MEDIA: &str = "wlan";

/// Index of [`RADIO_MEDIA`] in [`EVENT_KINDS`].
pub(crate) const RADIO_MEDIA_SLOT: usize = N_KINDS;

/// Index of the media's kind ([`Ev::Medium`]) in [`EVENT_KINDS`].
pub(crate) const MEDIUM_SLOT: usize = kind::Medium as usize;

/// What goes into the event log, kept compact during the run and formatted after.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Raw {
    /// `aux`: stream offset of a fast retransmit's segment, else 0.
    Tcp { flow: u32, client: bool, ev: Event, aux: u64 },
    Outage { link: u32, dir: u8, start: bool },
    Handoff { link: u32, dir: u8, idx: u32 },
    TransferComplete { flow: u32, response: Duration },
    /// An agent's own log line.
    Agent { agent: u32, kind: &'static str, value: u64 },
    /// The scenario's route change `idx` was applied.
    RouteChange { idx: u32 },
    /// A management step of radio `radio`.
    Wifi { radio: u32, event: airtcp_wifi::mgmt::MgmtEvent },
    /// A Freeze-TCP endpoint started (`on`) or ended its zero window.
    Freeze { flow: u32, client: bool, on: bool },
    /// A step of the SDN control plane at datapath `dp` about `host`.
    Sdn { kind: &'static str, dp: u32, host: [u8; 4], value: u64 },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EventCode;

    #[test]
    fn every_event_kind_survives_its_encoding() {
        let mut all = Ev::samples();
        all.push(Ev::Outage { link: 0, dir: 0, start: false });
        all.push(Ev::Outage { link: 77, dir: 1, start: true });
        all.push(Ev::Medium { m: 0 });
        assert_eq!(Ev::samples().len(), N_KINDS, "one sample per declared kind");
        for e in all {
            let back = Ev::decode(e.encode());
            assert_eq!(format!("{back:?}"), format!("{e:?}"));
            assert_eq!(back.kind(), e.kind());
        }
    }

    #[test]
    fn kinds_are_numbered_in_declaration_order_with_radio_media_last() {
        assert_eq!(Ev::Medium { m: 3 }.kind(), 0);
        assert_eq!(Ev::Udp { flow: 1 }.kind(), N_KINDS - 1);
        assert_eq!(EVENT_KINDS[MEDIUM_SLOT], "packet");
        assert_eq!(EVENT_KINDS[RADIO_MEDIA_SLOT], "wlan");
        assert_eq!(Ev::Outage { link: 5, dir: 1, start: true }.encode(), 4 | 1 << 8 | 1 << 16 | 5 << 32);
    }
}
