//! One snooped connection: seed 004's connection table row (`struct_snTable`:
//! addresses and ports are the map key; `last_seq`, `last_ack`, `repeat_ack`,
//! `fin_flag`, `fin_seq`, `timeout` are fields here) and the two procedures of
//! Balakrishnan, Seshan, Amir and Katz (MobiCom 1995): `snoop_data` for
//! segments leaving towards the wireless hop and `snoop_ack` for the
//! acknowledgements coming back. The case numbers in comments follow the
//! paper's description of the two procedures.

use airtcp_core::{Instant, Packet, Segment, SeqNum};

use super::cache::{Cache, Entry};
use super::timer::LocalRto;
use super::Out;
use crate::agent::Verdict;
use crate::config::SnoopConfig;

/// What an ACK did to the connection, beyond its verdict.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum AckOutcome {
    Keep(Verdict),
    /// Our FIN was acknowledged: the connection state can go.
    Finished,
}

pub(super) struct Conn {
    cache: Cache,
    /// One past the highest sequence number sent so far (seed: "last sent
    /// seq number"); segments starting below it are out of sequence.
    pub last_seq: SeqNum,
    /// Highest cumulative ACK seen from the receiver; `None` before the first.
    pub last_ack: Option<SeqNum>,
    /// Window field of that ACK (RFC 5681 §2: a duplicate ACK leaves it unchanged).
    last_win: u16,
    /// Duplicate ACKs seen for `last_ack` (seed: "repeat_ack").
    pub repeat_ack: u32,
    pub fin_flag: bool,
    /// Sequence number of the FIN itself; acknowledged by an ACK above it.
    pub fin_seq: SeqNum,
    /// When the local retransmission timer fires (seed: "timeout_evt").
    pub timeout: Option<Instant>,
    /// The loss we are recovering locally: the ACK value whose next segment
    /// we retransmitted, and how many more duplicates of it we still expect
    /// and suppress (snoop_ack duplicate-ACK cases 2 and 3).
    recovering: Option<SeqNum>,
    exp_dupacks: u64,
    /// Data segments that left through the wireless interface from the sender.
    tx_count: u64,
    /// The segment being timed for an RTT sample: `(end, sent)`.
    timing: Option<(SeqNum, Instant)>,
    rto: LocalRto,
    /// Already-acknowledged segments the sender resent and we forwarded:
    /// the receiver answers each with a duplicate ACK that is the sender's
    /// own doing, so it passes untouched.
    answers_owed: u32,
    /// Local retransmissions whose answer may still come back, and the
    /// highest sequence sent when the last of them left. If such a copy was
    /// spurious (the original was only queued), the receiver answers it with
    /// a duplicate ACK that must not start another local recovery, or one
    /// spurious copy would provoke the next while a queue stands.
    dups_in_flight: u32,
    dup_horizon: SeqNum,
    /// Highest right edge of a SACK block seen above the cumulative ACK.
    sack_high: Option<SeqNum>,
}

impl Conn {
    pub fn new(cfg: &SnoopConfig, first: &Segment) -> Conn {
        Conn {
            cache: Cache::new(cfg.cache_packets),
            last_seq: first.seq,
            last_ack: None,
            last_win: 0,
            repeat_ack: 0,
            fin_flag: false,
            fin_seq: SeqNum(0),
            timeout: None,
            recovering: None,
            exp_dupacks: 0,
            tx_count: 0,
            timing: None,
            rto: LocalRto::default(),
            answers_owed: 0,
            dups_in_flight: 0,
            dup_horizon: first.seq,
            sack_high: None,
        }
    }

    pub fn cached(&self) -> usize {
        self.cache.len()
    }

    pub fn rto(&self) -> &LocalRto {
        &self.rto
    }

    /// snoop_data(): a segment carrying data (or a FIN) leaves towards the
    /// wireless hop. The segment always goes on; what changes is the cache.
    pub fn snoop_data(&mut self, now: Instant, pkt: &Packet, seg: &Segment, cfg: &SnoopConfig, out: &mut Out) -> Verdict {
        let (seq, end) = (seg.seq, seg.seq + seg.seq_len());
        if seg.flags.fin() {
            self.fin_flag = true;
            self.fin_seq = seq + seg.payload_len;
        }
        self.tx_count += 1;
        let entry = Entry { pkt: *pkt, seq, end, tx_index: self.tx_count, local_rexmits: 0, sender_rexmit: false };
        if end > self.last_seq {
            // Case 1, "a new packet in the normal TCP sequence": cache and
            // forward; time it if no segment is being timed.
            self.last_seq = end;
            if self.timing.is_none() {
                self.timing = Some((end, now));
            }
            self.cache_entry(now, entry, cfg, out);
            return Verdict::Accept;
        }
        // Out of sequence: a retransmission by the sender. Nothing timed in
        // this window may give a sample any more (Karn).
        self.timing = None;
        if self.last_ack.is_some_and(|a| end <= a) {
            // Already acknowledged by the receiver. The paper would answer
            // the sender with the last ACK; we forward it and let the
            // receiver answer (the endpoint's ACK carries the right window
            // and timestamps, which a synthesised one could not).
            self.answers_owed += 1;
            return Verdict::Accept;
        }
        if let Some(i) = self.cache.find(seq) {
            // Case 2, "out-of-sequence packet that has been cached earlier",
            // above the last ACK: probably lost, forward it. Mark it as a
            // sender retransmission so its duplicate ACKs reach the sender,
            // whose fast-recovery state counts them; if it is the segment we
            // were recovering locally, that recovery ends here.
            let e = self.cache.get_mut(i);
            *e = Entry { sender_rexmit: true, local_rexmits: e.local_rexmits, ..entry };
            if self.recovering.is_some_and(|r| r.in_range(seq, end)) {
                self.recovering = None;
                self.exp_dupacks = 0;
            }
            return Verdict::Accept;
        }
        // Case 3, "out-of-sequence packet that has not been cached earlier":
        // lost upstream (congestion) or reordered. Cache it, marked as
        // retransmitted by the sender.
        self.cache_entry(now, Entry { sender_rexmit: true, ..entry }, cfg, out);
        Verdict::Accept
    }

    /// Cache policy when full: forward without caching. Evicting the oldest
    /// entry would discard the segment most likely to need a local
    /// retransmission (the head of the window), and dropping the new one
    /// would turn a full cache into a loss the sender reads as congestion.
    /// An uncached segment is simply recovered end to end: its duplicate
    /// ACKs pass to the sender, as for any segment Snoop never cached.
    fn cache_entry(&mut self, now: Instant, e: Entry, cfg: &SnoopConfig, out: &mut Out) {
        let was_empty = self.cache.is_empty();
        if !self.cache.insert(e) {
            out.cache_full_bypass += 1;
            return;
        }
        if was_empty {
            self.timeout = Some(now + self.rto.timeout(&cfg.timer));
        }
    }

    /// snoop_ack(): an ACK arrives from the wireless side.
    pub fn snoop_ack(&mut self, now: Instant, seg: &Segment, cfg: &SnoopConfig, out: &mut Out) -> AckOutcome {
        let ack = seg.ack;
        let pure = seg.payload_len == 0 && !seg.flags.syn() && !seg.flags.fin();
        let Some(last) = self.last_ack.filter(|&l| ack <= l) else {
            return self.new_ack(now, seg, cfg);
        };
        if ack < last {
            // "A spurious ACK": older than the last one; discarded. One that
            // carries data must go on.
            return AckOutcome::Keep(if pure { Verdict::Drop } else { Verdict::Accept });
        }
        // Same ACK number. A duplicate ACK per RFC 5681 §2: no data, same
        // window, data outstanding. A zero window is the answer to a window
        // probe, never a loss signal. With SACK, RFC 6675 §2 counts an ACK
        // that brings new SACK information as a duplicate even when its
        // window changed, and a SACK receiver's window does change: Linux
        // grows it on out-of-order data only for SACK connections
        // (tcp_data_queue_ofo: "For non sack flows, do not grow window to
        // force DUPACK"). Without this, the first duplicate of each loss
        // passed to the sender, whose RACK marks the hole lost on that one
        // SACK and retransmits it before Snoop's copy arrives.
        let outstanding = self.last_seq > ack;
        let new_sack = self.new_sack_info(ack, seg);
        let same_window = seg.window == self.last_win || new_sack;
        if !pure || !same_window || seg.window == 0 || !outstanding {
            self.last_win = seg.window;
            return AckOutcome::Keep(Verdict::Accept);
        }
        self.last_win = seg.window;
        self.repeat_ack += 1;
        if self.answers_owed > 0 {
            self.answers_owed -= 1;
            return AckOutcome::Keep(Verdict::Accept);
        }
        AckOutcome::Keep(self.dupack(now, ack, cfg, out))
    }

    /// Whether `seg` SACKs data above `ack` beyond the highest right edge
    /// SACKed so far (RFC 6675 §2's "previously un-SACKed octets", kept as
    /// one high-water mark: a block filling a gap below it is not counted).
    /// D-SACK blocks (below `ack`) are never new information.
    fn new_sack_info(&mut self, ack: SeqNum, seg: &Segment) -> bool {
        let mut new = false;
        for &(left, right) in seg.sacks() {
            if left >= ack && !matches!(self.sack_high, Some(h) if right <= h) {
                self.sack_high = Some(right);
                new = true;
            }
        }
        new
    }

    /// "A new ACK": free the cache, take an RTT sample, restart the timer.
    fn new_ack(&mut self, now: Instant, seg: &Segment, cfg: &SnoopConfig) -> AckOutcome {
        let ack = seg.ack;
        self.cache.free_through(ack);
        if let Some((end, sent)) = self.timing {
            if end <= ack {
                self.rto.sample(now.saturating_since(sent));
                self.timing = None;
            }
        }
        self.last_ack = Some(ack);
        self.last_win = seg.window;
        self.repeat_ack = 0;
        self.recovering = None;
        self.exp_dupacks = 0;
        self.rto.reset_backoff();
        self.answers_owed = 0;
        if ack > self.dup_horizon {
            // A segment sent after every local copy was acknowledged: on a
            // FIFO hop the copies (and their answers) are through.
            self.dups_in_flight = 0;
        }
        self.timeout = (!self.cache.is_empty()).then(|| now + self.rto.timeout(&cfg.timer));
        if self.fin_flag && ack > self.fin_seq {
            return AckOutcome::Finished;
        }
        AckOutcome::Keep(Verdict::Accept)
    }

    /// The duplicate-ACK cases of snoop_ack.
    fn dupack(&mut self, now: Instant, ack: SeqNum, cfg: &SnoopConfig, out: &mut Out) -> Verdict {
        let Some(i) = self.cache.covering(ack) else {
            // Case 1a: the segment is not cached; the sender must resend it.
            return Verdict::Accept;
        };
        if self.cache.get(i).sender_rexmit {
            // Case 1b: marked as retransmitted by the sender, whose TCP
            // counts these duplicates.
            return Verdict::Accept;
        }
        if self.recovering == Some(ack) {
            // Case 3, an "expected" duplicate: already handled, discard.
            // Past the estimate the local retransmission was probably lost
            // too; let the sender see the rest (the local timer also runs).
            if self.exp_dupacks > 0 {
                self.exp_dupacks -= 1;
                out.dupacks_suppressed += 1;
                return Verdict::Drop;
            }
            return Verdict::Accept;
        }
        if self.dups_in_flight > 0 {
            // Possibly the receiver's answer to one of our own copies: pass
            // it on (the sender would have seen it without Snoop) and act on
            // the next duplicate, which only a real loss produces.
            self.dups_in_flight -= 1;
            return Verdict::Accept;
        }
        // Case 2, the first duplicate for this loss: retransmit at once and
        // estimate how many more will come — one per segment sent after the
        // lost one before this retransmission, less those already seen.
        self.recovering = Some(ack);
        self.exp_dupacks = self.tx_after(i).saturating_sub(self.repeat_ack as u64);
        self.retransmit(now, i, cfg, out);
        out.dupacks_suppressed += 1;
        Verdict::Drop
    }

    /// Segments the sender transmitted after cache entry `i`.
    fn tx_after(&self, i: usize) -> u64 {
        self.tx_count - self.cache.get(i).tx_index
    }

    fn retransmit(&mut self, now: Instant, i: usize, cfg: &SnoopConfig, out: &mut Out) {
        let e = self.cache.get_mut(i);
        e.local_rexmits += 1;
        let (pkt, seq) = (e.pkt, e.seq);
        // Karn: a window with a retransmission gives no sample.
        self.timing = None;
        self.timeout = Some(now + self.rto.timeout(&cfg.timer));
        self.dups_in_flight += 1;
        self.dup_horizon = self.last_seq;
        out.retransmit(cfg.wireless, pkt, seq);
    }

    /// The local timer: if the oldest unacknowledged segment has waited the
    /// whole timer since it (or the last progress) left, retransmit it and
    /// back off.
    pub fn handle_timeout(&mut self, now: Instant, cfg: &SnoopConfig, out: &mut Out) {
        match self.timeout {
            Some(t) if t <= now => {}
            _ => return,
        }
        let Some(head) = self.cache.head() else {
            self.timeout = None;
            return;
        };
        out.local_timeout(head.seq);
        self.rto.back_off(&cfg.timer);
        // The duplicates the segments after it could still cause belong to
        // this recovery.
        self.recovering = Some(self.last_ack.unwrap_or(head.seq).max(head.seq));
        self.exp_dupacks = self.tx_after(0).saturating_sub(self.repeat_ack as u64);
        self.retransmit(now, 0, cfg, out);
    }
}
