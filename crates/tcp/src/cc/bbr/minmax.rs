//! Kathleen Nichols' windowed min/max tracker (lib/win_minmax.c): best, 2nd
//! and 3rd best samples, widely spaced in the window, in constant space.

/// `struct minmax_sample`: one measurement and when it was taken.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MinmaxSample {
    /// Time (here: BBR round count).
    pub t: u32,
    /// The measured value (BBR: delivery rate in packets/us << 24).
    pub v: u32,
}

/// `struct minmax`: the best three samples of a sliding window, best first,
/// so the extreme survives after the best sample ages out (BBR's max-bw filter).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Minmax {
    /// Best, 2nd best and 3rd best samples; `s[0].v` is the windowed extreme.
    pub s: [MinmaxSample; 3],
}

impl Minmax {
    /// `minmax_get`.
    pub fn get(&self) -> u32 {
        self.s[0].v
    }

    /// `minmax_reset`: all three choices become the new sample.
    pub fn reset(&mut self, t: u32, meas: u32) -> u32 {
        let val = MinmaxSample { t, v: meas };
        self.s = [val; 3];
        meas
    }

    /// `minmax_subwin_update`: age the choices as time advances.
    fn subwin_update(&mut self, win: u32, val: MinmaxSample) -> u32 {
        let dt = val.t.wrapping_sub(self.s[0].t);
        if dt > win {
            // Passed the whole window without a new best: promote the 2nd and
            // 3rd choices, possibly twice.
            self.s[0] = self.s[1];
            self.s[1] = self.s[2];
            self.s[2] = val;
            if val.t.wrapping_sub(self.s[0].t) > win {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
                self.s[2] = val;
            }
        } else if self.s[1].t == self.s[0].t && dt > win / 4 {
            // A quarter window without a new best: take a 2nd choice from
            // the 2nd quarter.
            self.s[2] = val;
            self.s[1] = val;
        } else if self.s[2].t == self.s[1].t && dt > win / 2 {
            // Half a window: take a 3rd choice from the last half.
            self.s[2] = val;
        }
        self.s[0].v
    }

    /// `minmax_running_max`.
    pub fn running_max(&mut self, win: u32, t: u32, meas: u32) -> u32 {
        let val = MinmaxSample { t, v: meas };
        if val.v >= self.s[0].v || val.t.wrapping_sub(self.s[2].t) > win {
            return self.reset(t, meas);
        }
        if val.v >= self.s[1].v {
            self.s[2] = val;
            self.s[1] = val;
        } else if val.v >= self.s[2].v {
            self.s[2] = val;
        }
        self.subwin_update(win, val)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn running_max_forgets_old_max_after_window() {
        // Window 10 rounds, max 100 at t=0.
        let mut m = Minmax::default();
        m.reset(0, 100);
        // t=1: dt=1 is not past a quarter window (10/4 = 2): nothing changes.
        assert_eq!(m.running_max(10, 1, 50), 100);
        assert_eq!(m.s, [MinmaxSample { t: 0, v: 100 }; 3]);
        // t=5: dt=5 > 2 and s1.t == s0.t: 2nd and 3rd choice become (5, 40).
        assert_eq!(m.running_max(10, 5, 40), 100);
        assert_eq!((m.s[1], m.s[2]), (MinmaxSample { t: 5, v: 40 }, MinmaxSample { t: 5, v: 40 }));
        // t=8: 45 >= s1 (40) replaces 2nd and 3rd choice.
        assert_eq!(m.running_max(10, 8, 45), 100);
        assert_eq!(m.s[1], MinmaxSample { t: 8, v: 45 });
        // t=11: dt=11 > 10, the 100 expires: s0 = (8,45), s2 = (11,30).
        assert_eq!(m.running_max(10, 11, 30), 45);
        assert_eq!(m.s, [MinmaxSample { t: 8, v: 45 }, MinmaxSample { t: 8, v: 45 }, MinmaxSample { t: 11, v: 30 }]);
        // A new max resets everything.
        assert_eq!(m.running_max(10, 12, 60), 60);
        assert_eq!(m.s, [MinmaxSample { t: 12, v: 60 }; 3]);
    }
}
