//! Signals on the air: a transmission starts at its source, reaches the
//! radios in interference range (their energy sums and, for an idle one
//! whose signal clears its sensitivity, a locked reception), and ends with
//! each locked frame decided by its chunks' SINR. Split from `mod.rs`, which
//! keeps the medium's state, set-up and event loop.

use airtcp_core::{Duration, Instant};

use super::*;

impl Wlan {
    /// Put `frame` on the air from its source radio at `now` for `airtime`.
    pub(crate) fn start_tx(&mut self, now: Instant, frame: AirFrame, airtime: Duration) {
        let src = frame.src as usize;
        let end = now + airtime;
        if self.capture {
            self.out.push_back(WlanOutput::Air {
                radio: frame.src,
                frame,
                rx_dbm: f32::NAN,
            });
        }
        let tx = match self.free_txs.pop() {
            Some(t) => {
                let slot = &mut self.txs[t as usize];
                slot.frame = frame;
                slot.end = end;
                slot.reached.clear();
                t
            }
            None => {
                self.txs.push(Tx {
                    frame,
                    end,
                    reached: Vec::new(),
                });
                (self.txs.len() - 1) as u32
            }
        };
        // Half duplex: a radio that starts sending abandons what it was receiving.
        let a = &mut self.air[src];
        a.tx_until = end;
        if a.stop_receiving() {
            self.radios[src].counters.rx_errors += 1;
        }
        self.mac_medium_changed(now, frame.src);
        let eirp_mw = self.eirp_mw[src];
        let mut near = std::mem::take(&mut self.scratch);
        self.gather_near(now, src, &mut near);
        // Visit in radio order so that equal-time effects (and shadowing
        // draws) are deterministic whatever the grid's layout.
        self.order.sort(&mut near);
        let mut reached = std::mem::take(&mut self.txs[tx as usize].reached);
        reached.reserve(near.len());
        // Every received power first, in a loop of its own: the square
        // roots and divisions of the path loss then overlap across radios.
        self.linear.received_mw(eirp_mw, &self.antenna, &mut near);
        for &(j, mw) in &near {
            let mut mw = mw;
            if let Some(s) = self.shadowing.as_ref() {
                mw *= phy::dbm_to_mw(s.sample_db(&mut self.shadow_rng[j as usize]));
            }
            if mw < self.floor_mw {
                continue;
            }
            let epoch = self.air[j as usize].epoch;
            reached.push((j, mw, epoch));
            self.signal_starts(now, j, tx, frame.rate, mw);
        }
        self.txs[tx as usize].reached = reached;
        self.scratch = near;
        self.push_wake(end, Wake::TxEnd { tx });
    }

    /// Every radio on `src`'s channel within the interference range of it
    /// at `now`, with its squared distance, into `near` (cleared first), in
    /// grid order. Refiles the grid first when it is due.
    pub(super) fn gather_near(&mut self, now: Instant, src: usize, near: &mut Vec<(u32, f64)>) {
        if now >= self.grid.refile_at {
            let step = self.grid.refile_at.saturating_since(self.grid.filed_at);
            self.refile(now);
            self.grid.schedule_refile(now + step);
        }
        near.clear();
        let sp = self.pos(src, now);
        let k = self.chan[src] as usize;
        let g = &self.grid;
        let r = g.search_m;
        let ylo = g
            .cell_of(Pos {
                x: sp.x,
                y: sp.y - r,
                z: 0.0,
            })
            .1;
        let yhi = g
            .cell_of(Pos {
                x: sp.x,
                y: sp.y + r,
                z: 0.0,
            })
            .1;
        let (tracks, radios) = (&mut self.tracks, &mut self.radios);
        for y in ylo..=yhi {
            let Some((xlo, xhi)) = g.chord(sp, r, y) else {
                continue;
            };
            for x in xlo..=xhi {
                for f in &g.cells[g.index(k, x, y)] {
                    let (j, ju) = (f.radio, f.radio as usize);
                    let (fx, fy) = (f.x - sp.x, f.y - sp.y);
                    if ju == src || fx * fx + fy * fy > g.skip_m2 {
                        continue;
                    }
                    let rp = track_pos(tracks, radios, ju, now);
                    let (ddx, ddy, ddz) = (rp.x - sp.x, rp.y - sp.y, rp.z - sp.z);
                    let d2 = ddx * ddx + ddy * ddy + ddz * ddz;
                    if d2 <= g.reach_m2 {
                        near.push((j, d2));
                    }
                }
            }
        }
    }

    /// A signal of `mw` from transmission `tx` begins at radio `j`.
    #[inline]
    pub(super) fn signal_starts(&mut self, now: Instant, j: u32, tx: u32, rate: phy::Rate, mw: f64) {
        let r = &mut self.air[j as usize];
        close_chunk(r, now);
        let others = r.energy_mw;
        r.energy_mw += mw;
        r.signals += 1;
        if r.rts_nav > now {
            // A PHY-RXSTART within the NAVTimeout after an overheard RTS:
            // the exchange goes on, the RTS's whole NAV stands (10.3.2.4).
            if now <= r.rts_check {
                r.nav_until = r.nav_until.max(r.rts_nav);
            }
            r.rts_nav = Instant::ZERO;
        }
        if mw >= r.cca_mw {
            r.busy_starts = r.busy_starts.wrapping_add(1);
        }
        // A frame still in its preamble-detection window that this signal
        // drowns was never detected: the PHY lets it go (energy only, no
        // failed reception).
        if r.receiving() {
            let rx = r.rx;
            if now.saturating_since(rx.locked_at) < phy::PREAMBLE_DETECTION
                && rx.power_mw < r.preamble_snr * (r.noise_mw + r.energy_mw - rx.power_mw)
            {
                r.rx_tx = NO_RX;
            }
        }
        if !r.receiving()
            && r.tx_until <= now
            && mw >= r.sensitivity_mw
            && mw >= r.preamble_mw
            && mw >= r.preamble_snr * (r.noise_mw + others)
        {
            r.busy_starts = r.busy_starts.wrapping_add(1);
            r.rx_tx = tx;
            r.rx = Rx {
                locked_at: now,
                rate,
                power_mw: mw,
                since: now,
                log_success: 0.0,
            };
        }
        self.mac_medium_changed(now, j);
    }

    /// Transmission `tx` ends: its receivers decide, its energy leaves.
    pub(super) fn end_tx(&mut self, now: Instant, tx: u32) {
        let frame = self.txs[tx as usize].frame;
        let reached = std::mem::take(&mut self.txs[tx as usize].reached);
        for &(j, mw, epoch) in &reached {
            if self.air[j as usize].epoch != epoch {
                // The radio retuned since: this signal left it then.
                continue;
            }
            let r = &mut self.air[j as usize];
            close_chunk(r, now);
            let mut decoded = None;
            if r.rx_tx == tx {
                r.rx_tx = NO_RX;
                let keep = if self.fixed_fer.is_empty() {
                    None
                } else {
                    self.fixed_fer
                        .get(&(frame.src, j))
                        .filter(|&&(_, min_bytes)| frame.bytes >= min_bytes)
                        .map(|&(fer, _)| 1.0 - fer)
                };
                decoded = Some(decide::received(r.rx.log_success, keep, &mut self.rng[j as usize]));
            }
            r.signals -= 1;
            r.energy_mw = if r.signals == 0 {
                0.0
            } else {
                (r.energy_mw - mw).max(0.0)
            };
            if !self.link_stats.is_empty() && frame.kind == FrameKind::Data {
                let c = &mut self.link_stats[frame.src as usize * self.radios.len() + j as usize];
                c[0] += 1;
                c[1] += u64::from(decoded == Some(true));
            }
            if let Some(ok) = decoded {
                // The signal in dBm matters to management (beacon tracking,
                // scan candidates) and captures only.
                let rx_dbm = if frame.kind.is_mgmt() || self.capture {
                    phy::mw_to_dbm(mw)
                } else {
                    f64::NAN
                };
                if ok && self.capture {
                    self.out.push_back(WlanOutput::Air {
                        radio: j,
                        frame,
                        rx_dbm: rx_dbm as f32,
                    });
                }
                self.mac_received(now, j, &frame, ok, rx_dbm);
            }
            self.mac_medium_changed(now, j);
        }
        self.txs[tx as usize].reached = reached;
        self.free_txs.push(tx);
        let src = frame.src;
        self.mac_tx_done(now, src, &frame);
        self.mac_medium_changed(now, src);
    }

    /// Physical carrier sense of `radio` (802.11-2016 10.3.2.1): busy while
    /// it sends, while it receives a frame, or while the energy on the air
    /// is above its CCA threshold.
    pub(crate) fn phys_busy(&self, now: Instant, radio: u32) -> bool {
        let r = &self.air[radio as usize];
        r.tx_until > now || r.receiving() || r.energy_mw >= r.cca_mw
    }
}

/// Close the receiving radio's current chunk at `now`: the stretch since the
/// last change of interference multiplies into the frame's success.
/// Inlined: most radios a signal reaches are not receiving a frame.
#[inline]
fn close_chunk(r: &mut Air, now: Instant) {
    if r.receiving() && r.rx.since != now {
        close_locked_chunk(r, now);
    }
}

fn close_locked_chunk(r: &mut Air, now: Instant) {
    let rx = &mut r.rx;
    let ns = now.saturating_since(rx.since).as_nanos();
    if ns > 0 {
        let rate = rx.rate;
        let interference = (r.energy_mw - rx.power_mw).max(0.0);
        let sinr = rx.power_mw / (r.noise_mw + interference);
        let bits = match ns.checked_mul(rate.kbps as u64) {
            Some(x) => x.div_ceil(1_000_000) as u32,
            None => ((ns as u128 * rate.kbps as u128).div_ceil(1_000_000)) as u32,
        };
        rx.log_success += bits as f64 * phy::log_success_per_bit_fast(rate.modulation, sinr);
    }
    rx.since = now;
}
