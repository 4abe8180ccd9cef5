//! The medium's spatial index: which radios a transmission can reach.

use airtcp_core::Instant;

use crate::mobility::Pos;

/// Radios filed by channel and cell, in a dense array over the box the
/// radios can be in. Radios are refiled whenever the fastest may have moved
/// a sixty-fourth of the interference range since the last filing, so a
/// radio within range of a sender now was filed within 65/64 of the range
/// of the sender's position now: a sender looks at the cells that disc
/// touches, row by row (the chord of each row), and nothing else. Cells are
/// half the range: smaller cells skip more far candidates but cost more in
/// cells visited, and on the campus benchmark cells from a tenth of the
/// range to the whole range ran within 10 % of each other. Candidates farther than the range (at their exact
/// positions now) are skipped before any path loss is computed. Refiling is
/// cheap (one straight piece per radio), so filing often costs less than
/// looking at stale candidates.
pub(super) struct Grid {
    pub(super) cell_m: f64,
    /// The square of the distance a candidate may be at most (the
    /// interference range).
    pub(super) reach_m2: f64,
    /// The radius searched around a sender: the range plus the most a
    /// radio may have moved since it was filed.
    pub(super) search_m: f64,
    /// Origin of cell (0, 0) and the number of cells along x and y.
    pub(super) x0: f64,
    pub(super) y0: f64,
    pub(super) nx: i32,
    pub(super) ny: i32,
    /// Distinct channel numbers; a radio's channel is filed by its index here.
    pub(super) channels: Vec<u8>,
    /// `cells[(k · ny + cy) · nx + cx]`: radios of channel index k in cell (cx, cy).
    pub(super) cells: Vec<Vec<Filed>>,
    /// The fastest radio's speed (m/s), and the square of the distance
    /// (in x and y, from where a radio was filed) beyond which it cannot be
    /// in range before the next filing: the interference range, a
    /// millionth more for rounding, plus the most it may have moved since.
    /// A candidate beyond is skipped before its position is evaluated
    /// (on the campus benchmark about a third of the candidates, each a
    /// cache line or two of `Wlan::tracks`).
    pub(super) max_speed: f64,
    pub(super) skip_m2: f64,
    /// Cells holding a radio (cleared at the next filing).
    pub(super) occupied: Vec<u32>,
    pub(super) filed_at: Instant,
    /// When the next refiling is due (`Instant::MAX`: every radio is static).
    pub(super) refile_at: Instant,
}

/// At most this many cells per channel: a trace spanning a city with a
/// short range files into larger cells (more candidates, still correct).
const MAX_CELLS_PER_CHANNEL: f64 = (1u32 << 18) as f64;

impl Grid {
    pub(super) fn new(range_m: f64, bounds: (f64, f64, f64, f64), channels: Vec<u8>) -> Grid {
        let (x0, y0, x1, y1) = bounds;
        let (w, h) = ((x1 - x0).max(0.0), (y1 - y0).max(0.0));
        let mut cell_m = (range_m / 2.0).max(1.0);
        if (w / cell_m + 1.0) * (h / cell_m + 1.0) > MAX_CELLS_PER_CHANNEL {
            cell_m = cell_m
                .max((w * h / MAX_CELLS_PER_CHANNEL).sqrt())
                .max((w.max(h)) / MAX_CELLS_PER_CHANNEL.sqrt());
        }
        let nx = ((w / cell_m).floor() as i32)
            .saturating_add(1)
            .clamp(1, 1 << 20);
        let ny = ((h / cell_m).floor() as i32)
            .saturating_add(1)
            .clamp(1, 1 << 20);
        let n = channels.len().max(1) * nx as usize * ny as usize;
        Grid {
            max_speed: 0.0,
            skip_m2: f64::INFINITY,
            cell_m,
            reach_m2: range_m * range_m,
            search_m: range_m * (1.0 + 1.0 / 64.0),
            x0,
            y0,
            nx,
            ny,
            channels,
            cells: vec![Vec::new(); n],
            occupied: Vec::new(),
            filed_at: Instant::ZERO,
            refile_at: Instant::MAX,
        }
    }

    /// The cell of a position, clamped into the grid: a radio outside the
    /// box is filed in an edge cell, and the edge rows and columns reach out
    /// to infinity in the search, so it is still found.
    #[inline]
    pub(super) fn cell_of(&self, p: Pos) -> (i32, i32) {
        let cx = floor_clamped((p.x - self.x0) / self.cell_m, self.nx - 1);
        let cy = floor_clamped((p.y - self.y0) / self.cell_m, self.ny - 1);
        (cx, cy)
    }

    /// The index of `channel`, adding it (and its cells) if no radio was
    /// declared on it: every channel a station may scan is added up front,
    /// so this grows only for a channel reached some other way.
    pub(super) fn channel_index(&mut self, channel: u8) -> usize {
        if let Some(k) = self.channels.iter().position(|&c| c == channel) {
            return k;
        }
        self.channels.push(channel);
        self.cells.resize(
            self.channels.len() * self.nx as usize * self.ny as usize,
            Vec::new(),
        );
        self.channels.len() - 1
    }

    pub(super) fn index(&self, k: usize, cx: i32, cy: i32) -> usize {
        (k * self.ny as usize + cy as usize) * self.nx as usize + cx as usize
    }

    /// The cells of row `cy` within `radius` of `p`: `(first cx, last cx)`,
    /// or `None` if the row's band is farther. Edge rows extend to infinity.
    pub(super) fn chord(&self, p: Pos, radius: f64, cy: i32) -> Option<(i32, i32)> {
        let lo = if cy == 0 {
            f64::NEG_INFINITY
        } else {
            self.y0 + cy as f64 * self.cell_m
        };
        let hi = if cy == self.ny - 1 {
            f64::INFINITY
        } else {
            self.y0 + (cy + 1) as f64 * self.cell_m
        };
        let dy = if p.y < lo {
            lo - p.y
        } else if p.y > hi {
            p.y - hi
        } else {
            0.0
        };
        if dy > radius {
            return None;
        }
        let w = (radius * radius - dy * dy).sqrt();
        let a = self
            .cell_of(Pos {
                x: p.x - w,
                y: p.y,
                z: 0.0,
            })
            .0;
        let b = self
            .cell_of(Pos {
                x: p.x + w,
                y: p.y,
                z: 0.0,
            })
            .0;
        Some((a, b))
    }

    pub(super) fn file(&mut self, k: usize, cell: (i32, i32), radio: u32, at: Pos) {
        let i = self.index(k, cell.0, cell.1);
        if self.cells[i].is_empty() {
            self.occupied.push(i as u32);
        }
        self.cells[i].push(Filed {
            radio,
            x: at.x,
            y: at.y,
        });
    }

    /// The next filing is due at `at`: until then a radio moves at most
    /// `max_speed` times the time since the last filing (`skip_m2`).
    pub(super) fn schedule_refile(&mut self, at: Instant) {
        self.refile_at = at;
        // Static radios never drift (0 · an unbounded time would be NaN);
        // a NaN speed makes `skip_m2` NaN, which skips nothing.
        let drift_m = if self.max_speed == 0.0 {
            0.0
        } else {
            self.max_speed * at.saturating_since(self.filed_at).as_secs_f64()
        };
        let skip_m = self.reach_m2.sqrt() * (1.0 + 1e-6) + drift_m;
        self.skip_m2 = skip_m * skip_m;
    }
}

/// A radio in a cell of the grid: its number and where it was (x, y)
/// when filed.
#[derive(Clone, Copy, Debug)]
pub(super) struct Filed {
    pub(super) radio: u32,
    pub(super) x: f64,
    pub(super) y: f64,
}

/// `v.floor() as i32` clamped to `0..=max`, without `floor` (a library
/// call on the baseline x86-64 target): below zero (and NaN) clamp to 0
/// either way, and from zero up truncation is the floor.
#[inline]
fn floor_clamped(v: f64, max: i32) -> i32 {
    if v >= 0.0 {
        (v as i32).min(max)
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use airtcp_core::{Duration, Instant, RngStream};

    use super::super::{RadioSpec, Wlan};
    use crate::mac::MacParams;
    use crate::mobility::{Mobility, Pos};
    use crate::phy::{PathLoss, RadioParams, Rate, Standard};

    #[test]
    fn floor_clamped_is_the_clamped_floor() {
        for v in [
            -1e300,
            -3.5,
            -1.0,
            -0.5,
            -0.0,
            0.0,
            0.3,
            1.0,
            4.999,
            5.0,
            7.5,
            1e12,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            assert_eq!(
                super::floor_clamped(v, 6),
                (v.floor() as i32).clamp(0, 6),
                "{v}"
            );
        }
    }

    /// The grid search must find exactly the radios a scan of every radio
    /// finds, for moving radios, at any time, after retuning.
    #[test]
    fn grid_search_finds_exactly_the_radios_in_range() {
        let mut specs = Vec::new();
        for i in 0..240u32 {
            let mobility = if i % 5 == 0 {
                Mobility::Static(Pos::new(
                    7.0 * i as f64 % 400.0,
                    13.0 * i as f64 % 300.0,
                    1.5,
                ))
            } else {
                Mobility::random_waypoint(
                    (0.0, 0.0, 400.0, 300.0),
                    1.0,
                    30.0,
                    Duration::from_millis(500),
                    9,
                    &i.to_string(),
                )
                .unwrap()
            };
            specs.push(RadioSpec {
                name: String::new(),
                mobility,
                channel: if i % 3 == 0 { 40 } else { 36 },
                phy: RadioParams::default(),
                mac: MacParams::new(Standard::A, Rate::OFDM54),
                ap: None,
                mgmt: Default::default(),
            });
        }
        let n = specs.len();
        let pl = PathLoss::LogDistance {
            exponent: 3.5,
            reference_m: 1.0,
            reference_loss_db: 46.6777,
        };
        let mut w = Wlan::new(specs, pl, None, 1);
        let mut rng = RngStream::new(3, "grid-test");
        let (mut t, mut near, mut checked) = (Instant::ZERO, Vec::new(), 0);
        for step in 0..3000 {
            t += Duration::from_nanos((rng.uniform() * 60e6) as u64);
            let src = (rng.uniform() * n as f64) as usize % n;
            if step % 97 == 0 {
                let ch = if w.radios[src].spec.channel == 36 {
                    40
                } else {
                    36
                };
                w.tune(t, src as u32, ch);
            }
            w.gather_near(t, src, &mut near);
            let mut got: Vec<u32> = near.iter().map(|&(j, _)| j).collect();
            got.sort_unstable();
            let sp = w.radios[src].spec.mobility.position(t);
            let (ch, reach) = (w.radios[src].spec.channel, w.grid.reach_m2);
            let mut want = Vec::new();
            for j in 0..n {
                if j == src || w.radios[j].spec.channel != ch {
                    continue;
                }
                let p = w.radios[j].spec.mobility.position(t);
                let d2 = (p.x - sp.x).powi(2) + (p.y - sp.y).powi(2) + (p.z - sp.z).powi(2);
                if d2 <= reach {
                    want.push(j as u32);
                }
            }
            assert_eq!(got, want, "step {step} at {t:?} from radio {src}");
            checked += want.len();
        }
        // The range (about 100 m at −101 dBm) holds a few dozen radios at a time.
        assert!(checked > 3000, "{checked}");
    }
}
