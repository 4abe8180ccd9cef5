//! MORE's source: natives are grouped into batches of β; the oldest
//! unacknowledged batch is broadcast as random combinations, as often as the
//! MAC will take them, until its batch ACK arrives (MORE §4: "the source
//! keeps transmitting coded packets from the current batch until the batch
//! is acked").
//!
//! MORE's sources are file transfers: a batch is K natives taken from a
//! file that is all there, and the paper never says what a source that runs
//! short does. Under TCP it always runs short (a window smaller than K never
//! fills a batch), so a batch may also close by a timer
//! ([`MoreSource::with_batch_timeout`]): `timeout` after its first native the
//! batch closes at the k natives it has and is sent as a batch of k (code
//! vectors of length k tell every node). This is our choice where MORE is
//! silent, not MORE's text; without a timer a batch closes only by size.

use std::collections::VecDeque;

use airtcp_coding::{BatchEncoder, Symbol};
use airtcp_core::{CodeVector, Coded, CodedKind, Duration, Instant, RngStream};

use super::{MoreConfig, MoreError};

struct Pending {
    batch: u32,
    enc: BatchEncoder,
    /// No more natives will come: a partial final batch is sent with a
    /// code vector of its k natives.
    closed: bool,
    /// When the batch's first native came (for the batch timer).
    opened: Instant,
}

/// MORE's source role for one flow (see the module docs).
pub struct MoreSource {
    flow: u16,
    cfg: MoreConfig,
    rng: RngStream,
    batches: VecDeque<Pending>,
    spare: Vec<BatchEncoder>,
    next_batch: u32,
    sent: u64,
    acked: u64,
    stale_acks: u64,
    batch_timeout: Option<Duration>,
    timer_closes: u64,
}

impl MoreSource {
    /// The source of `flow` with no native yet; the error says if `cfg`'s batch
    /// geometry is not one the codec accepts. `rng` draws the code coefficients.
    pub fn new(flow: u16, cfg: MoreConfig, rng: RngStream) -> Result<MoreSource, MoreError> {
        let spare = (0..cfg.max_batches.max(1))
            .map(|_| BatchEncoder::new(cfg.beta, cfg.symbol_len))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(MoreSource { flow, cfg, rng, batches: VecDeque::new(), spare, next_batch: 0, sent: 0, acked: 0, stale_acks: 0, batch_timeout: None, timer_closes: 0 })
    }

    /// Close a batch `timeout` after its first native even if it holds fewer
    /// than β (see the module docs: our rule where MORE is silent).
    pub fn with_batch_timeout(mut self, timeout: Duration) -> MoreSource {
        self.batch_timeout = Some(timeout);
        self
    }

    /// When the open batch's timer fires, if there is one.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let t = self.batch_timeout?;
        let b = self.batches.back().filter(|b| !b.closed && !b.enc.is_full() && b.enc.natives() > 0)?;
        Some(b.opened + t)
    }

    /// The batch timer is due at `now`: close the open batch at its k natives.
    pub fn handle_timeout(&mut self, now: Instant) {
        if self.poll_timeout().is_some_and(|t| t <= now) {
            self.batches.back_mut().expect("poll_timeout saw it").closed = true;
            self.timer_closes += 1;
        }
    }

    /// Can [`MoreSource::push_native`] take another native now?
    pub fn can_push(&self) -> bool {
        self.batches.back().is_some_and(|b| !b.closed && !b.enc.is_full()) || !self.spare.is_empty()
    }

    /// Add the flow's next native (`Some` bytes exactly when `symbol_len` > 0);
    /// returns its batch and index.
    pub fn push_native(&mut self, payload: Option<&[u8]>) -> Result<(u32, usize), MoreError> {
        self.push_native_at(Instant::ZERO, payload)
    }

    /// [`MoreSource::push_native`] at `now`, which starts a new batch's timer.
    pub fn push_native_at(&mut self, now: Instant, payload: Option<&[u8]>) -> Result<(u32, usize), MoreError> {
        let open = self.batches.back().is_some_and(|b| !b.closed && !b.enc.is_full());
        if !open {
            let Some(mut enc) = self.spare.pop() else {
                return Err(MoreError::Backlogged);
            };
            enc.reset();
            self.batches.push_back(Pending { batch: self.next_batch, enc, closed: false, opened: now });
            self.next_batch += 1;
        }
        let b = self.batches.back_mut().expect("opened above");
        match b.enc.push(payload) {
            Ok(i) => Ok((b.batch, i)),
            Err(e) => {
                if b.enc.natives() == 0 {
                    // Do not leave an empty batch behind a refused native.
                    let b = self.batches.pop_back().expect("just pushed");
                    self.spare.push(b.enc);
                    self.next_batch -= 1;
                }
                Err(e.into())
            }
        }
    }

    /// The flow has no more data: the last, partial batch is sent as it is.
    pub fn close(&mut self) {
        if let Some(b) = self.batches.back_mut() {
            b.closed = true;
        }
    }

    /// The next coded packet to broadcast, its payload written into `out`;
    /// `None` while no batch is complete (or closed) and unacknowledged.
    pub fn poll_transmit(&mut self, out: &mut Symbol) -> Option<Coded> {
        let b = self.batches.front()?;
        if !(b.enc.is_full() || b.closed) || b.enc.natives() == 0 {
            return None;
        }
        b.enc.encode(&mut self.rng, out);
        let k = b.enc.natives();
        if k < out.code.len() {
            out.code = CodeVector::from_slice(&out.code.as_slice()[..k]).expect("k <= beta");
        }
        self.sent += 1;
        Some(Coded {
            kind: CodedKind::Data,
            flow: self.flow,
            batch: b.batch,
            tag: 0,
            code: out.code,
            payload_len: self.cfg.symbol_len as u16,
        })
    }

    /// A batch ACK from the destination: the batch (and any before it) is done.
    pub fn handle_ack(&mut self, ack: &Coded) -> Result<(), MoreError> {
        if ack.kind != CodedKind::BatchAck {
            return Err(MoreError::WrongKind);
        }
        if ack.flow != self.flow {
            return Err(MoreError::WrongFlow { expected: self.flow, found: ack.flow });
        }
        let before = self.batches.len();
        while self.batches.front().is_some_and(|b| b.batch <= ack.batch) {
            let b = self.batches.pop_front().expect("checked");
            self.spare.push(b.enc);
        }
        let done = (before - self.batches.len()) as u64;
        self.acked += done;
        if done == 0 {
            self.stale_acks += 1;
        }
        Ok(())
    }

    /// The oldest batch still being sent.
    pub fn current_batch(&self) -> Option<u32> {
        self.batches.front().map(|b| b.batch)
    }

    /// End-of-run counters, in a fixed order.
    pub fn counters(&self) -> [(&'static str, u64); 4] {
        [("coded_sent", self.sent), ("batches_acked", self.acked), ("stale_acks", self.stale_acks), ("batches_closed_by_timer", self.timer_closes)]
    }
}
