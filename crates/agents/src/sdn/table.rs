//! One flow table: entries, lookup, flow-mod semantics and timeouts.
//!
//! Lookup order (deterministic by construction): the highest priority
//! wins; among equal priorities the entry installed first wins. OF 1.3
//! §5.3 leaves overlapping equal-priority matches undefined; we pick
//! install order and document it. Entries are kept sorted by
//! `(priority descending, install sequence ascending)`, so a lookup is
//! the first hit of a linear scan and allocates nothing.

use airtcp_core::{Duration, Instant};

use super::msg::{FlowMod, FlowModCommand, FlowRemoved, FlowStats, OfError, RemovedReason};
use super::msg::{OFPFF_CHECK_OVERLAP, OFPFF_RESET_COUNTS, OFPFF_SEND_FLOW_REM};
use super::ofmatch::{Match, PacketFields};
use super::types::{Action, Actions, FlowCounters, PortNo, OFPP_IN_PORT};

/// One flow-table entry: what an add installed plus its counters and clocks.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct FlowEntry {
    /// Priority: among matching entries the highest wins.
    pub priority: u16,
    /// Which packets the entry applies to.
    pub r#match: Match,
    /// What to do with them.
    pub actions: Actions,
    /// The controller's opaque tag.
    pub cookie: u64,
    /// OFPFF_* flags given at installation.
    pub flags: u16,
    /// Removal after this long without a hit; `None`: never.
    pub idle_timeout: Option<Duration>,
    /// Removal this long after installation; `None`: never.
    pub hard_timeout: Option<Duration>,
    /// When the entry was installed (a modify keeps it; an add that replaces
    /// it starts it again).
    pub installed: Instant,
    /// When a packet last hit the entry (the idle timeout's clock).
    pub last_used: Instant,
    /// Packets and bytes that hit the entry.
    pub counters: FlowCounters,
    /// Install order, the tie-break among equal priorities.
    pub seq: u64,
}

impl FlowEntry {
    /// When the entry expires, if it can, and why.
    pub fn expiry(&self) -> Option<(Instant, RemovedReason)> {
        let hard = self.hard_timeout.map(|d| (self.installed + d, RemovedReason::HardTimeout));
        let idle = self.idle_timeout.map(|d| (self.last_used + d, RemovedReason::IdleTimeout));
        match (hard, idle) {
            // Hard first on a tie: OF leaves it open; documented here.
            (Some(h), Some(i)) => Some(if i.0 < h.0 { i } else { h }),
            (h, i) => h.or(i),
        }
    }

    fn removed(&self, now: Instant, reason: RemovedReason) -> FlowRemoved {
        FlowRemoved {
            cookie: self.cookie,
            priority: self.priority,
            reason,
            duration: now.saturating_since(self.installed),
            idle_timeout: self.idle_timeout,
            hard_timeout: self.hard_timeout,
            counters: self.counters,
            r#match: self.r#match,
        }
    }

    /// The entry as a flow-stats row at `now` (its duration measured to `now`).
    pub fn stats(&self, now: Instant) -> FlowStats {
        FlowStats {
            priority: self.priority,
            cookie: self.cookie,
            duration: now.saturating_since(self.installed),
            idle_timeout: self.idle_timeout,
            hard_timeout: self.hard_timeout,
            flags: self.flags,
            counters: self.counters,
            r#match: self.r#match,
            actions: self.actions,
        }
    }
}

/// One OpenFlow flow table, kept in lookup order (see the module docs);
/// bounded by a capacity beyond which an add fails with TABLE_FULL.
pub struct FlowTable {
    entries: Vec<FlowEntry>,
    capacity: usize,
    next_seq: u64,
}

fn cookie_ok(entry: &FlowEntry, cookie: u64, mask: u64) -> bool {
    entry.cookie & mask == cookie & mask
}

fn valid_outputs(actions: &Actions) -> bool {
    actions.iter().all(|a| match a {
        Action::Output(p) => p != 0 && (p < 0xffff_ff00 || p == OFPP_IN_PORT),
        Action::Controller => true,
    })
}

impl FlowTable {
    /// An empty table holding at most `capacity` entries.
    pub fn new(capacity: usize) -> FlowTable {
        FlowTable { entries: Vec::with_capacity(capacity.min(4096)), capacity, next_seq: 0 }
    }

    /// Number of entries installed.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no entry is installed.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Entries in lookup order.
    pub fn entries(&self) -> &[FlowEntry] {
        &self.entries
    }

    /// The entry a packet hits, its counters and idle clock updated.
    #[inline]
    pub fn lookup(&mut self, now: Instant, f: &PacketFields, bytes: u32) -> Option<&FlowEntry> {
        let e = self.entries.iter_mut().find(|e| e.r#match.matches(f))?;
        e.counters.packets += 1;
        e.counters.bytes += bytes as u64;
        e.last_used = now;
        Some(e)
    }

    fn insert_sorted(&mut self, e: FlowEntry) {
        let at = self.entries.partition_point(|x| x.priority > e.priority || (x.priority == e.priority && x.seq < e.seq));
        self.entries.insert(at, e);
    }

    /// Apply a flow-mod. Removed entries that asked for it are pushed to `removed`.
    pub fn apply(&mut self, now: Instant, fm: &FlowMod, removed: &mut Vec<FlowRemoved>) -> Result<(), OfError> {
        fm.r#match.validate().map_err(OfError::BadMatch)?;
        match fm.command {
            FlowModCommand::Add => self.add(now, fm),
            FlowModCommand::Modify | FlowModCommand::ModifyStrict => {
                if !valid_outputs(&fm.actions) {
                    return Err(OfError::BadOutPort);
                }
                let strict = fm.command == FlowModCommand::ModifyStrict;
                for e in self.entries.iter_mut().filter(|e| Self::selected(e, fm, strict)) {
                    e.actions = fm.actions;
                    if fm.flags & OFPFF_RESET_COUNTS != 0 {
                        e.counters = FlowCounters::default();
                    }
                }
                Ok(())
            }
            FlowModCommand::Delete | FlowModCommand::DeleteStrict => {
                let strict = fm.command == FlowModCommand::DeleteStrict;
                self.entries.retain(|e| {
                    let go = Self::selected(e, fm, strict) && e.actions.outputs_to(fm.out_port);
                    if go && e.flags & OFPFF_SEND_FLOW_REM != 0 {
                        removed.push(e.removed(now, RemovedReason::Delete));
                    }
                    !go
                });
                Ok(())
            }
        }
    }

    /// OF 1.3 §6.4: strict = identical match and priority; non-strict = the
    /// request's match covers the entry's, priority ignored. Both filter by cookie.
    fn selected(e: &FlowEntry, fm: &FlowMod, strict: bool) -> bool {
        let by_match = if strict { e.priority == fm.priority && e.r#match == fm.r#match } else { fm.r#match.covers(&e.r#match) };
        by_match && cookie_ok(e, fm.cookie, fm.cookie_mask)
    }

    fn add(&mut self, now: Instant, fm: &FlowMod) -> Result<(), OfError> {
        if !valid_outputs(&fm.actions) {
            return Err(OfError::BadOutPort);
        }
        if fm.flags & OFPFF_CHECK_OVERLAP != 0
            && self.entries.iter().any(|e| e.priority == fm.priority && e.r#match.overlaps(&fm.r#match))
        {
            return Err(OfError::Overlap);
        }
        // An identical entry is replaced (no flow-removed); its counters carry
        // over unless OFPFF_RESET_COUNTS (OF 1.3 §6.4).
        let old = self.entries.iter().position(|e| e.priority == fm.priority && e.r#match == fm.r#match);
        let counters = match old {
            Some(i) => {
                let c = self.entries.remove(i).counters;
                if fm.flags & OFPFF_RESET_COUNTS != 0 {
                    FlowCounters::default()
                } else {
                    c
                }
            }
            None if self.entries.len() >= self.capacity => return Err(OfError::TableFull),
            None => FlowCounters::default(),
        };
        let seq = self.next_seq;
        self.next_seq += 1;
        self.insert_sorted(FlowEntry {
            priority: fm.priority,
            r#match: fm.r#match,
            actions: fm.actions,
            cookie: fm.cookie,
            flags: fm.flags,
            // OF 1.3 §6.4: a timeout of zero means none.
            idle_timeout: fm.idle_timeout.filter(|d| *d > Duration::ZERO),
            hard_timeout: fm.hard_timeout.filter(|d| *d > Duration::ZERO),
            installed: now,
            last_used: now,
            counters,
            seq,
        });
        Ok(())
    }

    /// Earliest expiry of any entry.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.entries.iter().filter_map(|e| e.expiry().map(|x| x.0)).min()
    }

    /// Remove every entry expired at `now`, in lookup order.
    pub fn expire(&mut self, now: Instant, removed: &mut Vec<FlowRemoved>) {
        self.entries.retain(|e| match e.expiry() {
            Some((at, reason)) if at <= now => {
                if e.flags & OFPFF_SEND_FLOW_REM != 0 {
                    removed.push(e.removed(now, reason));
                }
                false
            }
            _ => true,
        });
    }

    /// Flow-stats rows for entries `m` covers, with an output to `out_port`
    /// and the cookie filter (OF 1.3 §7.3.5.2).
    pub fn stats(&self, now: Instant, m: &Match, out_port: PortNo, cookie: u64, cookie_mask: u64) -> Vec<FlowStats> {
        self.entries
            .iter()
            .filter(|e| m.covers(&e.r#match) && e.actions.outputs_to(out_port) && cookie_ok(e, cookie, cookie_mask))
            .map(|e| e.stats(now))
            .collect()
    }

    /// Sum of counters of entries `m` covers (the AP's T0 statistics).
    pub fn counters_for(&self, m: &Match) -> Option<FlowCounters> {
        let mut sum: Option<FlowCounters> = None;
        for e in self.entries.iter().filter(|e| m.covers(&e.r#match)) {
            let s = sum.get_or_insert_with(FlowCounters::default);
            s.packets += e.counters.packets;
            s.bytes += e.counters.bytes;
        }
        sum
    }
}


