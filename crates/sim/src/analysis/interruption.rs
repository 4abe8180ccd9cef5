//! The delivery interruption of a disconnection: from the last in-order
//! delivery to the receiving application before the receiver lost its
//! link to the first *new* in-order delivery after it came back. This is
//! what a sequence-number trace at the receiver shows as a gap (the seed
//! papers' "interruption in data transfer"), whatever the sender did in
//! between: segments it sends that do not reach the application in order
//! (sent into the void, or beyond a hole) do not end it.
//!
//! It is measured on the flow's sampled series of bytes delivered in order
//! (`RunOutput::series`): each delivery is dated by the sample that first
//! shows it, so both ends carry the same rounding (up to one series
//! interval) and the duration none on average.

/// One disconnection's delivery interruption, in seconds of simulated time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interruption {
    /// The sample that first showed the last delivery at or before the
    /// link was lost (`None`: nothing had been delivered yet).
    pub last_before_s: Option<f64>,
    /// The sample that first showed a delivery beyond the level reached
    /// when the link came back (`None`: none before the series ended).
    pub first_after_s: Option<f64>,
}

impl Interruption {
    /// `first_after_s - last_before_s`, when both exist.
    pub fn duration_s(&self) -> Option<f64> {
        Some(self.first_after_s? - self.last_before_s?)
    }
}

/// Why an interruption cannot be measured on a series.
#[derive(Clone, Debug, PartialEq)]
pub enum InterruptionError {
    /// The two columns differ in length.
    Lengths { t: usize, delivered: usize },
    /// The times go backwards at `index`, or the count falls there.
    NotMonotonic { index: usize },
    /// The link came back before it was lost.
    Order { lost_at_s: f64, back_at_s: f64 },
}

impl std::fmt::Display for InterruptionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InterruptionError::Lengths { t, delivered } => {
                write!(f, "interruption: {t} times but {delivered} delivered counts")
            }
            InterruptionError::NotMonotonic { index } => {
                write!(f, "interruption: time or delivered count decreases at sample {index}")
            }
            InterruptionError::Order { lost_at_s, back_at_s } => {
                write!(f, "interruption: the link came back at {back_at_s} s, before it was lost at {lost_at_s} s")
            }
        }
    }
}

impl std::error::Error for InterruptionError {}

/// The delivery interruption around a disconnection from `lost_at_s` (the
/// receiver's link lost) to `back_at_s` (its link back), on the series
/// `t_s` / `delivered` (cumulative in-order bytes at each sample time).
pub fn interruption(t_s: &[f64], delivered: &[u64], lost_at_s: f64, back_at_s: f64) -> Result<Interruption, InterruptionError> {
    if t_s.len() != delivered.len() {
        return Err(InterruptionError::Lengths { t: t_s.len(), delivered: delivered.len() });
    }
    if back_at_s < lost_at_s {
        return Err(InterruptionError::Order { lost_at_s, back_at_s });
    }
    if let Some(i) = (1..t_s.len()).find(|&i| t_s[i] < t_s[i - 1] || delivered[i] < delivered[i - 1]) {
        return Err(InterruptionError::NotMonotonic { index: i });
    }
    // The last sample at or before the loss that shows a new delivery.
    let grew = |i: usize| if i == 0 { delivered[0] > 0 } else { delivered[i] > delivered[i - 1] };
    let upto_lost = t_s.partition_point(|&t| t <= lost_at_s);
    let last_before_s = (0..upto_lost).rev().find(|&i| grew(i)).map(|i| t_s[i]);
    // The level when the link came back, and the first sample beyond it.
    let upto_back = t_s.partition_point(|&t| t <= back_at_s);
    let level = if upto_back == 0 { 0 } else { delivered[upto_back - 1] };
    let first_after_s = (upto_back..t_s.len()).find(|&i| delivered[i] > level).map(|i| t_s[i]);
    Ok(Interruption { last_before_s, first_after_s })
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: [f64; 8] = [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5];

    #[test]
    fn gap_runs_from_last_delivery_before_the_loss_to_first_new_one_after_the_return() {
        // Deliveries until 1.0 s, the link lost at 1.2 s and back at 2.0 s,
        // nothing new until 3.0 s.
        let d = [0, 10, 20, 20, 20, 20, 30, 40];
        let i = interruption(&T, &d, 1.2, 2.0).unwrap();
        assert_eq!(i.last_before_s, Some(1.0));
        assert_eq!(i.first_after_s, Some(3.0));
        assert_eq!(i.duration_s(), Some(2.0));
    }

    #[test]
    fn sender_activity_without_delivery_does_not_end_the_gap() {
        // Flat through the end: the receiver got nothing new after its return.
        let d = [0, 10, 20, 20, 20, 20, 20, 20];
        let i = interruption(&T, &d, 1.2, 2.0).unwrap();
        assert_eq!(i.first_after_s, None);
        assert_eq!(i.duration_s(), None);
    }

    #[test]
    fn the_gap_starts_at_the_last_growth_not_at_the_loss() {
        // Delivery stalled at 0.5 s already (a window-limited sender).
        let d = [0, 10, 10, 10, 10, 10, 30, 40];
        let i = interruption(&T, &d, 1.2, 2.0).unwrap();
        assert_eq!(i.last_before_s, Some(0.5));
        assert_eq!(i.duration_s(), Some(2.5));
    }

    #[test]
    fn bad_series_are_refused_with_the_reason() {
        assert_eq!(interruption(&T, &[0, 1], 1.0, 2.0), Err(InterruptionError::Lengths { t: 8, delivered: 2 }));
        let d = [0, 10, 5, 10, 10, 10, 10, 10];
        assert_eq!(interruption(&T, &d, 1.0, 2.0), Err(InterruptionError::NotMonotonic { index: 2 }));
        let e = interruption(&T, &[0; 8], 2.0, 1.0).unwrap_err();
        assert!(e.to_string().contains("came back at 1 s, before it was lost at 2 s"), "{e}");
    }
}
