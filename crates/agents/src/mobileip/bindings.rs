//! A table of entries keyed by IPv4 address, each with an expiry time: the
//! home agent's bindings, the foreign agent's visitors and forwarding
//! pointers, the correspondent's binding cache. A `BTreeMap`, so expiry
//! runs in address order and never depends on hashing.

use std::collections::BTreeMap;

use airtcp_core::Instant;

#[derive(Clone, Debug)]
pub(crate) struct Table<T> {
    entries: BTreeMap<[u8; 4], (Instant, T)>,
}

impl<T> Default for Table<T> {
    fn default() -> Self {
        Table { entries: BTreeMap::new() }
    }
}

impl<T> Table<T> {
    pub(crate) fn insert(&mut self, key: [u8; 4], expires: Instant, v: T) -> Option<T> {
        self.entries.insert(key, (expires, v)).map(|(_, v)| v)
    }

    pub(crate) fn remove(&mut self, key: &[u8; 4]) -> Option<T> {
        self.entries.remove(key).map(|(_, v)| v)
    }

    /// The live entry for `key` (one whose expiry is still ahead of `now`).
    pub(crate) fn get(&self, key: &[u8; 4], now: Instant) -> Option<&T> {
        self.entries.get(key).filter(|(t, _)| *t > now).map(|(_, v)| v)
    }

    pub(crate) fn get_mut(&mut self, key: &[u8; 4], now: Instant) -> Option<&mut T> {
        self.entries.get_mut(key).filter(|(t, _)| *t > now).map(|(_, v)| v)
    }

    pub(crate) fn expiry(&self, key: &[u8; 4]) -> Option<Instant> {
        self.entries.get(key).map(|(t, _)| *t)
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Earliest expiry.
    pub(crate) fn next_expiry(&self) -> Option<Instant> {
        self.entries.values().map(|(t, _)| *t).min()
    }

    /// Remove and return every entry expired at `now`, in address order.
    pub(crate) fn expire(&mut self, now: Instant) -> Vec<([u8; 4], T)> {
        let dead: Vec<[u8; 4]> = self.entries.iter().filter(|(_, (t, _))| *t <= now).map(|(k, _)| *k).collect();
        dead.into_iter().filter_map(|k| self.entries.remove(&k).map(|(_, v)| (k, v))).collect()
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (&[u8; 4], &T)> {
        self.entries.iter().map(|(k, (_, v))| (k, v))
    }
}
