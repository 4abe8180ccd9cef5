//! IPv4/TCP wire encoding and decoding (to be implemented: see crate docs).
