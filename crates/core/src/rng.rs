//! Named random streams. Each component (a loss model, an endpoint's ISS, a
//! mobility model) draws from its own xoshiro256++ stream whose seed is derived
//! from `(master seed, component name)`, so adding a flow or a link never
//! perturbs the draws of another.
//!
//! The derivation, fixed because every golden output depends on it:
//! 1. the stream's key is a string; a scenario component's key is
//!    [`component_key`]`(kind, name, purpose)` = `kind.name.purpose`, with the
//!    name as written in the scenario (`.` and `\` in it escaped by a `\`, so
//!    no two components share a key);
//! 2. `k = master_seed XOR rotl(FNV-1a-64(key bytes), 17)`;
//! 3. four SplitMix64 outputs from state `k` fill xoshiro256++'s 256-bit state.

use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A deterministic random stream (xoshiro256++, Blackman & Vigna 2018).
#[derive(Clone, Debug)]
pub struct RngStream {
    inner: Xoshiro256PlusPlus,
}

/// SplitMix64 finaliser (Steele, Lea & Flood 2014), used to spread the
/// 64-bit stream key into xoshiro's 256-bit state.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// FNV-1a 64-bit hash of the component name (Fowler–Noll–Vo; offset basis and
/// prime from the reference description). Stable across platforms and Rust
/// versions, unlike `std::hash`.
fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

/// The key of a component's stream: `kind.name.purpose`, with every `.` and
/// `\` of `name` preceded by a `\`. `kind` is a word of the code (no dot), so
/// the name ends at the first unescaped dot after it and two different
/// `(kind, name, purpose)` never give the same key. Names without a dot or a
/// backslash appear unchanged: `component_key("link", "wan", "ab.loss")` is
/// `link.wan.ab.loss`.
pub fn component_key(kind: &str, name: &str, purpose: &str) -> String {
    debug_assert!(!kind.contains('.'), "a stream kind is one word: {kind}");
    let mut key = String::with_capacity(kind.len() + name.len() + purpose.len() + 4);
    key.push_str(kind);
    key.push('.');
    for c in name.chars() {
        if c == '.' || c == '\\' {
            key.push('\\');
        }
        key.push(c);
    }
    key.push('.');
    key.push_str(purpose);
    key
}

impl RngStream {
    /// The stream of one scenario component: its `kind` (`flow`, `udp`,
    /// `agent`, `link`, `radio`, `mobility`), its `name` as written in the
    /// scenario and the `purpose` of the draws (`iss.client`, `loss`, `mac`,
    /// ...). Nothing but these three and the seed goes in, so inserting,
    /// removing or reordering other components leaves the stream as it was.
    pub fn component(master_seed: u64, kind: &str, name: &str, purpose: &str) -> Self {
        Self::new(master_seed, &component_key(kind, name, purpose))
    }

    /// The stream for the key `component` under `master_seed`.
    pub fn new(master_seed: u64, component: &str) -> Self {
        let mut key = master_seed ^ fnv1a64(component.as_bytes()).rotate_left(17);
        let mut seed = [0u8; 32];
        for chunk in seed.chunks_mut(8) {
            chunk.copy_from_slice(&splitmix64(&mut key).to_le_bytes());
        }
        RngStream { inner: Xoshiro256PlusPlus::from_seed(seed) }
    }

    /// The next 64 random bits (xoshiro256++).
    pub fn next_u64(&mut self) -> u64 {
        self.inner.next_u64()
    }

    /// The next 32 random bits: the high half of [`RngStream::next_u64`], its
    /// better-mixed bits.
    pub fn next_u32(&mut self) -> u32 {
        (self.inner.next_u64() >> 32) as u32
    }

    /// Uniform in [0, 1) with 53 bits of precision.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p` (p outside \[0,1\] is clamped by the comparison).
    pub fn bernoulli(&mut self, p: f64) -> bool {
        self.uniform() < p
    }

    /// Uniform integer in `[0, n)`; `n` must be positive. Uses Lemire's
    /// multiply-shift with rejection so the result is unbiased.
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "below(0)");
        loop {
            let x = self.next_u64();
            let m = (x as u128) * (n as u128);
            let lo = m as u64;
            if lo >= n.wrapping_neg() % n {
                return (m >> 64) as u64;
            }
        }
    }

    /// Exponentially distributed with the given mean (inverse transform).
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.uniform()).ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_independent() {
        let mut a = RngStream::new(7, "link0.fwd.loss");
        let mut b = RngStream::new(7, "link0.fwd.loss");
        let mut c = RngStream::new(7, "link1.fwd.loss");
        let xa: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
        let xb: Vec<u64> = (0..4).map(|_| b.next_u64()).collect();
        let xc: Vec<u64> = (0..4).map(|_| c.next_u64()).collect();
        assert_eq!(xa, xb);
        assert_ne!(xa, xc);
    }

    #[test]
    fn component_keys_escape_dots_in_names() {
        assert_eq!(component_key("link", "wan", "ab.loss"), "link.wan.ab.loss");
        assert_eq!(component_key("agent", "rtr.snoop0", "draws"), "agent.rtr\\.snoop0.draws");
        assert_eq!(component_key("radio", "a\\b", "mac"), "radio.a\\\\b.mac");
        // Without the escape these two would share the key `radio.a.minstrel.b.mac`.
        assert_ne!(component_key("radio", "a", "minstrel.b.mac"), component_key("radio", "a.minstrel.b", "mac"));
    }

    #[test]
    fn component_stream_is_the_stream_of_its_key() {
        let mut a = RngStream::component(5, "flow", "bulk", "iss.client");
        let mut b = RngStream::new(5, "flow.bulk.iss.client");
        assert_eq!(a.next_u64(), b.next_u64());
    }

    #[test]
    fn bernoulli_rate_is_close() {
        let mut r = RngStream::new(1, "t");
        let n = 200_000;
        let hits = (0..n).filter(|_| r.bernoulli(0.01)).count();
        assert!((1_800..2_200).contains(&hits), "{hits}");
    }

    #[test]
    fn below_stays_in_range() {
        let mut r = RngStream::new(3, "t");
        for _ in 0..1000 {
            assert!(r.below(7) < 7);
        }
    }
}
