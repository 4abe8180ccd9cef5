//! Real-byte mode's payload store: a coded frame carries only its header in
//! the packet arena (`Packet` is a fixed-size `Copy` value), so the bytes of
//! the linear combination wait here, keyed by the sending radio and the
//! frame's IPv4 identification.
//!
//! A radio keeps at most [`super::MAC_DEPTH`] coded frames in its MAC, and
//! every receiver of a broadcast handles it when its transmission ends, so
//! a frame's payload is read long before the radio has sent
//! [`SLOTS_PER_RADIO`] more frames and reused its slot. The buffers are
//! allocated once, at build time.

/// Payload slots per radio (a power of two: the slot is `ip_id % SLOTS`).
const SLOTS_PER_RADIO: usize = 64;

pub(super) struct PayloadRing {
    symbol_len: usize,
    /// `SLOTS_PER_RADIO` payloads of `symbol_len` bytes per radio, flat.
    bytes: Vec<u8>,
    /// The IPv4 identification each slot holds the payload of (`u32::MAX`:
    /// empty), so a stale or missing payload is refused, never misread.
    ids: Vec<u32>,
}

impl PayloadRing {
    pub(super) fn new(radios: usize, symbol_len: usize) -> PayloadRing {
        PayloadRing {
            symbol_len,
            bytes: vec![0; radios * SLOTS_PER_RADIO * symbol_len],
            ids: vec![u32::MAX; radios * SLOTS_PER_RADIO],
        }
    }

    fn slot(radio: u32, ip_id: u16) -> usize {
        radio as usize * SLOTS_PER_RADIO + (ip_id as usize & (SLOTS_PER_RADIO - 1))
    }

    /// Keep `payload` as the bytes of `radio`'s frame `ip_id`.
    pub(super) fn put(&mut self, radio: u32, ip_id: u16, payload: &[u8]) {
        let s = Self::slot(radio, ip_id);
        let n = self.symbol_len;
        self.bytes[s * n..(s + 1) * n].copy_from_slice(&payload[..n]);
        self.ids[s] = ip_id as u32;
    }

    /// The bytes of `radio`'s frame `ip_id`, if still held.
    pub(super) fn get(&self, radio: u32, ip_id: u16) -> Option<&[u8]> {
        let s = Self::slot(radio, ip_id);
        let n = self.symbol_len;
        (self.ids[s] == ip_id as u32).then(|| &self.bytes[s * n..(s + 1) * n])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_payload_is_found_by_radio_and_id_until_its_slot_is_reused() {
        let mut r = PayloadRing::new(2, 4);
        r.put(1, 7, &[1, 2, 3, 4]);
        r.put(0, 7, &[9, 9, 9, 9]);
        assert_eq!(r.get(1, 7), Some(&[1, 2, 3, 4][..]));
        assert_eq!(r.get(0, 7), Some(&[9, 9, 9, 9][..]));
        assert_eq!(r.get(1, 8), None);
        r.put(1, 7 + SLOTS_PER_RADIO as u16, &[5, 5, 5, 5]);
        assert_eq!(r.get(1, 7), None, "the slot now holds a later frame");
    }
}
