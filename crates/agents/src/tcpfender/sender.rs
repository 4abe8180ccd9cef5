//! TCPFender's sender module (seed 002 §III.B.3, with §III.B.1's early
//! release and pipelining). See the module docs of [`super`] for the choices
//! made where the paper is silent.

use std::collections::VecDeque;

use airtcp_coding::{BatchEncoder, Symbol};
use airtcp_core::{wire, CodeVector, Coded, CodedKind, Packet, RngStream, SeqNum, TcpFlags};

use super::{FenderConfig, FenderError};
use crate::more::seq_after;

/// When the sender module broadcasts coded packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FenderSource {
    /// The literal reading of §III.B: each segment TCP pushes down (new or
    /// retransmitted) earns its batch `z_src` coded packets, and the module
    /// sends nothing else. A batch the receiver is short of is refilled only
    /// by a TCP retransmission.
    PerSegment,
    /// MORE's source (Chachulski et al., SIGCOMM 2007, §4: "the source keeps
    /// transmitting coded packets from the current batch until the batch is
    /// acked") with the seed's two changes on top: early release (the batch
    /// is coded over the k segments TCP has handed down so far) and
    /// pipelining (several batches held). Segments still earn `z_src`
    /// packets each, sent first so that new data is announced under its
    /// own tag; whenever the MAC takes a frame and no such packet is owed,
    /// the module sends one more of the oldest batch the receiver's ACKs do
    /// not yet cover. For an early-released batch of k natives the ACK that
    /// covers it is one of βb + k packets: the receiver holds all the source
    /// has, so it stops until TCP hands down more (MORE's batch ACK is the
    /// case k = β).
    UntilAck,
}

/// What became of a segment TCP pushed down.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Release {
    /// Taken as native `index` of `batch`; coded packets follow from
    /// [`FenderSender::poll_transmit`]. `retransmission`: TCP sent it before.
    Coded {
        /// The batch the segment joined.
        batch: u32,
        /// Its position in the batch (0..β).
        index: usize,
        /// Whether TCP had sent this segment before (it rejoins its batch).
        retransmission: bool,
    },
    /// Not data (SYN, FIN, RST, pure ACK, not TCP): send it as it is.
    PassThrough,
}

struct SendBatch {
    batch: u32,
    enc: BatchEncoder,
    /// The originals, for ACK translation and for the receiver to deliver
    /// when only coefficients travel.
    segs: Vec<Packet>,
    /// TSval of the latest transmission of each native (a retransmission
    /// refreshes it; the coded content stays the original).
    tsval: Vec<Option<u32>>,
    /// Credits not yet spent, each labelled with the sequence number of
    /// the segment that earned it: a coded packet carries the tag of the
    /// release it spends, so every segment's information is announced under
    /// its own tag (a per-batch tag would give a burst of packets one tag,
    /// and the receiver's loss signals would collapse into one).
    releases: VecDeque<(u32, f64)>,
    /// TCP sent its FIN: this partial batch gets no more natives and is
    /// sent with a code vector of its k natives, which tells the receiver.
    closed: bool,
}

/// TCPFender's sender module for one flow (see the module docs).
pub struct FenderSender {
    flow: u16,
    cfg: FenderConfig,
    source: FenderSource,
    rng: RngStream,
    batches: VecDeque<SendBatch>,
    spare: Vec<SendBatch>,
    /// Natives numbered so far; native n is number n % β of batch n / β.
    next_index: u64,
    /// End of the highest data TCP has sent.
    next_seq: Option<SeqNum>,
    last_ack_pkts: Option<u64>,
    newest_tag: Option<u32>,
    /// Highest acknowledgement handed to TCP.
    told_tcp: Option<SeqNum>,
    /// The receiver's last real ACK: ports, addresses, window, TSval.
    template: Option<Packet>,
    scratch: Vec<u8>,
    c: Counters,
}

#[derive(Default)]
struct Counters {
    natives: u64,
    retransmissions: u64,
    coded_sent: u64,
    acks_new: u64,
    dup_passed: u64,
    dup_absorbed: u64,
    old_acks: u64,
    malformed: u64,
    backlogged: u64,
    receiver_acks_absorbed: u64,
    coded_until_ack: u64,
}

impl FenderSender {
    /// The sender module of `flow`; the error says if `cfg`'s batch geometry
    /// is not one the codec accepts. `rng` draws the code coefficients.
    pub fn new(flow: u16, cfg: FenderConfig, rng: RngStream) -> Result<FenderSender, FenderError> {
        let spare = (0..cfg.max_batches.max(1))
            .map(|_| {
                Ok(SendBatch {
                    batch: 0,
                    enc: BatchEncoder::new(cfg.beta, cfg.symbol_len)?,
                    segs: Vec::with_capacity(cfg.beta),
                    tsval: Vec::with_capacity(cfg.beta),
                    releases: VecDeque::with_capacity(2 * cfg.beta),
                    closed: false,
                })
            })
            .collect::<Result<Vec<_>, FenderError>>()?;
        Ok(FenderSender {
            flow,
            cfg,
            source: FenderSource::PerSegment,
            rng,
            batches: VecDeque::new(),
            spare,
            next_index: 0,
            next_seq: None,
            last_ack_pkts: None,
            newest_tag: None,
            told_tcp: None,
            template: None,
            scratch: Vec::with_capacity(cfg.symbol_len),
            c: Counters::default(),
        })
    }

    /// Send as `source` says (the default is [`FenderSource::PerSegment`]).
    pub fn with_source(mut self, source: FenderSource) -> FenderSender {
        self.source = source;
        self
    }

    /// A packet the TCP sender pushed down.
    ///
    /// A FIN closes the last, partial batch (seed 002 leaves the end of a
    /// flow open; without this its tail could never be decoded): the batch
    /// earns `z_src` credits at each FIN (first or retransmitted) and is
    /// coded over its k natives only.
    pub fn on_tcp_segment(&mut self, pkt: &Packet) -> Result<Release, FenderError> {
        let Some(seg) = pkt.segment() else { return Ok(Release::PassThrough) };
        if seg.flags.syn() || seg.flags.rst() {
            return Ok(Release::PassThrough);
        }
        let release = if seg.payload_len == 0 {
            Release::PassThrough
        } else {
            match self.next_seq {
                Some(next) if seg.seq < next => self.retransmission(pkt)?,
                _ => self.new_native(pkt)?,
            }
        };
        if seg.flags.fin() {
            self.close_last_batch();
        }
        Ok(release)
    }

    fn close_last_batch(&mut self) {
        let beta = self.cfg.beta;
        let z = self.cfg.z_src;
        if let Some(b) = self.batches.back_mut().filter(|b| b.enc.natives() < beta) {
            b.closed = true;
            let tag = b.segs.last().and_then(|p| p.segment()).map_or(0, |s| s.seq.0);
            release(b, tag, z);
        }
    }

    fn new_native(&mut self, pkt: &Packet) -> Result<Release, FenderError> {
        let seg = *pkt.segment().expect("checked by caller");
        let beta = self.cfg.beta as u64;
        let (batch, index) = ((self.next_index / beta) as u32, (self.next_index % beta) as usize);
        let payload = self.native_bytes(pkt)?;
        // New data after the FIN closed the last batch (TCP never sends it):
        // refuse rather than mix it into a batch announced as complete.
        let open = self.batches.back().is_some_and(|b| !b.closed && b.batch == batch);
        if index != 0 && !open {
            self.c.malformed += 1;
            return Err(FenderError::UnknownSegment { seq: seg.seq.0 });
        }
        if index == 0 {
            let Some(mut b) = self.spare.pop() else {
                self.c.backlogged += 1;
                return Err(FenderError::Backlogged);
            };
            b.enc.reset();
            b.segs.clear();
            b.tsval.clear();
            b.batch = batch;
            b.releases.clear();
            b.closed = false;
            self.batches.push_back(b);
        }
        let Some(b) = self.batches.back_mut() else { unreachable!("opened or checked open above") };
        b.enc.push(payload.map(|n| &self.scratch[..n]))?;
        b.segs.push(*pkt);
        b.tsval.push(seg.timestamps.map(|t| t.0));
        release(b, seg.seq.0, self.cfg.z_src);
        self.next_index += 1;
        self.next_seq = Some(seg.seq + seg.seq_len());
        self.c.natives += 1;
        Ok(Release::Coded { batch, index, retransmission: false })
    }

    /// The datagram's bytes in `scratch` when real bytes travel: `Some(len)`.
    fn native_bytes(&mut self, pkt: &Packet) -> Result<Option<usize>, FenderError> {
        if self.cfg.symbol_len == 0 {
            return Ok(None);
        }
        wire::encode(pkt, &mut self.scratch).map_err(FenderError::Wire)?;
        if self.scratch.len() > self.cfg.symbol_len {
            return Err(FenderError::TooLong { len: self.scratch.len(), symbol_len: self.cfg.symbol_len });
        }
        Ok(Some(self.scratch.len()))
    }

    /// TCP resent data: mix its batch again (seed 002 §III.B.3: the sender
    /// "can still mix it with other packets of the same batch").
    fn retransmission(&mut self, pkt: &Packet) -> Result<Release, FenderError> {
        let seg = pkt.segment().expect("checked by caller");
        let Some((bi, i)) = self.locate(seg.seq) else {
            self.c.malformed += 1;
            return Err(FenderError::UnknownSegment { seq: seg.seq.0 });
        };
        let b = &mut self.batches[bi];
        release(b, seg.seq.0, self.cfg.z_src);
        b.tsval[i] = seg.timestamps.map(|t| t.0).or(b.tsval[i]);
        self.c.retransmissions += 1;
        Ok(Release::Coded { batch: b.batch, index: i, retransmission: true })
    }

    /// Batch position and native index of the held native covering `seq`.
    fn locate(&self, seq: SeqNum) -> Option<(usize, usize)> {
        self.batches.iter().enumerate().find_map(|(bi, b)| {
            b.segs.iter().position(|p| p.segment().is_some_and(|s| seq.in_range(s.seq, s.seq + s.seq_len()))).map(|i| (bi, i))
        })
    }

    /// The next coded packet to broadcast (oldest batch with a whole
    /// credit), its payload written into `out`.
    pub fn poll_transmit(&mut self, out: &mut Symbol) -> Option<Coded> {
        let owed = self.batches.iter().position(|b| credit(b) >= 1.0 && b.enc.natives() > 0);
        let (i, tag) = match owed {
            Some(i) => (i, spend(&mut self.batches[i])),
            None if self.source == FenderSource::UntilAck => {
                let acked = self.last_ack_pkts.unwrap_or(0);
                let beta = self.cfg.beta as u64;
                let i = self.batches.iter().position(|b| b.enc.natives() > 0 && acked < b.batch as u64 * beta + b.enc.natives() as u64)?;
                // The newest segment of the batch: its information, sent again.
                let b = &self.batches[i];
                let tag = b.segs.last().and_then(|p| p.segment()).map_or(0, |s| s.seq.0);
                self.c.coded_until_ack += 1;
                (i, tag)
            }
            None => return None,
        };
        let b = &mut self.batches[i];
        b.enc.encode(&mut self.rng, out);
        if b.closed {
            out.code = CodeVector::from_slice(&out.code.as_slice()[..b.enc.natives()]).expect("k <= beta");
        }
        self.c.coded_sent += 1;
        Some(Coded {
            kind: CodedKind::Data,
            flow: self.flow,
            batch: b.batch,
            tag,
            code: out.code,
            payload_len: self.cfg.symbol_len as u16,
        })
    }

    /// A receiver-module ACK. Returns the TCP ACK to hand to the TCP
    /// sender, or `None` when it is absorbed (an old ACK, or a duplicate
    /// caused by extra coded packets rather than by new data).
    pub fn on_fender_ack(&mut self, ack: &Coded) -> Result<Option<Packet>, FenderError> {
        if ack.kind != CodedKind::FenderAck {
            self.c.malformed += 1;
            return Err(FenderError::WrongKind);
        }
        if ack.flow != self.flow {
            self.c.malformed += 1;
            return Err(FenderError::WrongFlow { expected: self.flow, found: ack.flow });
        }
        let mut n = ack.batch as u64;
        let beta = self.cfg.beta as u64;
        // The receiver decoded the closed final batch and moved past it.
        let closed_done = self.batches.back().is_some_and(|b| b.closed && n == (b.batch as u64 + 1) * beta);
        if closed_done {
            n = self.next_index;
            while let Some(b) = self.batches.pop_front() {
                self.spare.push(b);
            }
        }
        if n > self.next_index {
            self.c.malformed += 1;
            return Err(FenderError::UnknownSegment { seq: ack.batch });
        }
        self.free_below(n);
        let pass = match self.last_ack_pkts {
            Some(last) if n < last => {
                self.c.old_acks += 1;
                false
            }
            Some(last) if n == last => {
                let news = unset_or(self.newest_tag, |t| seq_after(ack.tag, t));
                if news {
                    self.c.dup_passed += 1;
                } else {
                    self.c.dup_absorbed += 1;
                }
                news
            }
            _ => {
                self.c.acks_new += 1;
                self.last_ack_pkts = Some(n);
                true
            }
        };
        if unset_or(self.newest_tag, |t| seq_after(ack.tag, t)) {
            self.newest_tag = Some(ack.tag);
        }
        Ok(if pass { self.tcp_ack(n, ack.tag) } else { None })
    }

    /// Free every batch the receiver has whole: batch b once n ≥ β(b+1).
    fn free_below(&mut self, n: u64) {
        let beta = self.cfg.beta as u64;
        while self.batches.front().is_some_and(|b| (b.batch as u64 + 1) * beta <= n) {
            let b = self.batches.pop_front().expect("checked");
            self.spare.push(b);
        }
    }

    /// Sequence number where native `n` starts (`next_seq` past the last).
    fn seq_of(&self, n: u64) -> Option<SeqNum> {
        if n == self.next_index {
            return self.next_seq;
        }
        let beta = self.cfg.beta as u64;
        let b = self.batches.iter().find(|b| b.batch as u64 == n / beta)?;
        b.segs.get((n % beta) as usize).and_then(|p| p.segment()).map(|s| s.seq)
    }

    /// The TCP ACK for "n packets received", built on the receiver's last
    /// real ACK; `None` before the receiver has sent one.
    fn tcp_ack(&mut self, n: u64, tag: u32) -> Option<Packet> {
        let mut p = self.template?;
        let ack = self.seq_of(n)?;
        let tsecr = self.locate(SeqNum(tag)).and_then(|(bi, i)| self.batches[bi].tsval[i]);
        let seg = p.segment_mut().expect("template is TCP");
        seg.ack = ack;
        seg.flags = TcpFlags::ACK;
        seg.payload_len = 0;
        seg.sack_len = 0;
        if let (Some(ts), Some(ecr)) = (seg.timestamps.as_mut(), tsecr) {
            ts.1 = ecr;
        }
        if unset_or(self.told_tcp, |t| ack > t) {
            self.told_tcp = Some(ack);
        }
        Some(p)
    }

    /// A real ACK from the TCP receiver (travelling back over IP). Returns
    /// whether to hand it to the TCP sender; it always refreshes the
    /// template (window, TSval) of the ACKs this module builds.
    pub fn on_tcp_ack(&mut self, pkt: &Packet) -> bool {
        let Some(seg) = pkt.segment() else { return true };
        if seg.flags.ack() {
            self.template = Some(as_template(pkt));
        }
        let control = seg.flags.syn() || seg.flags.fin() || seg.flags.rst() || seg.payload_len > 0;
        if control || unset_or(self.told_tcp, |t| seg.ack > t) {
            if seg.flags.ack() && unset_or(self.told_tcp, |t| seg.ack > t) {
                self.told_tcp = Some(seg.ack);
            }
            return true;
        }
        self.c.receiver_acks_absorbed += 1;
        false
    }

    /// The original of native `index` of `batch`, while the batch is held
    /// (a coefficient-only run materialises decoded segments from here).
    pub fn native_packet(&self, batch: u32, index: usize) -> Option<Packet> {
        self.batches.iter().find(|b| b.batch == batch)?.segs.get(index).copied()
    }

    /// Batches held (unacknowledged), oldest first.
    pub fn batches_held(&self) -> impl Iterator<Item = u32> + '_ {
        self.batches.iter().map(|b| b.batch)
    }

    /// Credit left on `batch` (tests and traces).
    pub fn credit(&self, batch: u32) -> Option<f64> {
        self.batches.iter().find(|b| b.batch == batch).map(credit)
    }

    /// End-of-run counters, in a fixed order.
    pub fn counters(&self) -> [(&'static str, u64); 11] {
        let c = &self.c;
        [
            ("natives", c.natives),
            ("retransmissions_mixed", c.retransmissions),
            ("coded_sent", c.coded_sent),
            ("acks_new", c.acks_new),
            ("dupacks_passed", c.dup_passed),
            ("dupacks_absorbed", c.dup_absorbed),
            ("old_acks", c.old_acks),
            ("malformed", c.malformed),
            ("backlogged", c.backlogged),
            ("receiver_acks_absorbed", c.receiver_acks_absorbed),
            ("coded_until_ack", c.coded_until_ack),
        ]
    }
}

/// `None`, or `Some` that passes the test (`Option::is_none_or`, newer than
/// the workspace's minimum Rust).
fn unset_or<T>(o: Option<T>, f: impl FnOnce(T) -> bool) -> bool {
    match o {
        None => true,
        Some(t) => f(t),
    }
}

/// Credit `z` earned by the segment at `tag`.
fn release(b: &mut SendBatch, tag: u32, z: f64) {
    b.releases.push_back((tag, z));
}

fn credit(b: &SendBatch) -> f64 {
    b.releases.iter().map(|r| r.1).sum()
}

/// Spend one credit, oldest release first; returns the tag it carries. A
/// release worth less than what is owed lends its remainder to the next.
fn spend(b: &mut SendBatch) -> u32 {
    let mut owed = 1.0;
    let mut tag = 0;
    while owed > 0.0 {
        let Some(front) = b.releases.front_mut() else { break };
        tag = front.0;
        let take = front.1.min(owed);
        front.1 -= take;
        owed -= take;
        if front.1 <= 1e-12 {
            b.releases.pop_front();
        }
    }
    tag
}

/// The receiver's ACK as a pattern for the ACKs this module builds: the
/// sequence number the receiver will use next, no handshake options, and a
/// SYN-ACK's window field brought to the scaled form every later segment
/// uses (RFC 7323 §2.2: the window of a SYN is never scaled). Without this,
/// a flow whose first batch is not yet decoded (so the receiver has sent
/// nothing but its SYN-ACK) could not be acknowledged at all.
fn as_template(pkt: &Packet) -> Packet {
    let mut p = *pkt;
    let seg = p.segment_mut().expect("caller checked");
    seg.seq += seg.seq_len();
    if seg.flags.syn() {
        seg.window >>= seg.wscale.unwrap_or(0);
    }
    seg.flags = TcpFlags::ACK;
    seg.mss = None;
    seg.wscale = None;
    seg.sack_permitted = false;
    seg.sack_len = 0;
    seg.payload_len = 0;
    seg.witcp = None;
    p
}
