//! Random linear network coding (RLNC) over GF(2^8), as MORE (Chachulski,
//! Jennings, Katti & Katabi, SIGCOMM 2007) and TCPFender (seed 002) use it.
//!
//! A batch of β native packets is sent as random linear combinations; each
//! coded packet carries its code vector ([`airtcp_core::CodeVector`]). A
//! forwarder keeps the innovative ones and sends fresh combinations of what it
//! holds (recoding); the destination decodes once it holds β independent
//! ones. All three roles share one structure, [`Basis`]: an incremental
//! Gaussian elimination that says at insertion whether a packet is
//! innovative. It runs on code vectors alone (the simulator's fast mode) or
//! with payload rows (real bytes), through the same elimination code.
//!
//! Randomness comes from the caller's [`airtcp_core::RngStream`]
//! (xoshiro256++), so a run is reproducible. Nothing here allocates after
//! construction: buffers are sized for β and the symbol length up front and
//! reused across batches.
//!
//! Field arithmetic is the `reed-solomon-erasure` crate's `galois_8`
//! (polynomial x^8+x^4+x^3+x^2+1, 0x11D; table multiply, optional SIMD):
//! widely used, small, and exposes exactly the slice kernel RLNC needs,
//! `dst ^= c·src`.
//!
//! # Layer map
//!
//! Above `airtcp-core` (code vectors, random streams), below `agents` (the
//! MORE and TCPFender forwarders). Inside: [`gf`] (field arithmetic), then
//! [`Symbol`] (one coded packet), [`BatchEncoder`] (the source) and
//! [`Basis`] (forwarders and destination), and [`CodecError`].
//!
//! ```
//! use airtcp_coding::{Basis, BatchEncoder, Symbol};
//! use airtcp_core::RngStream;
//!
//! // A source codes three 4-byte packets; the destination decodes them
//! // from whichever random combinations reach it.
//! let mut rng = RngStream::new(1, "doc");
//! let mut source = BatchEncoder::new(3, 4).unwrap();
//! for p in [b"abcd", b"efgh", b"ijkl"] {
//!     source.push(Some(&p[..])).unwrap();
//! }
//! let mut dest = Basis::new(3, 4).unwrap();
//! let mut sym = Symbol::new(3, 4);
//! while !dest.is_full() {
//!     source.encode(&mut rng, &mut sym);
//!     dest.insert(&sym.code, sym.payload()).unwrap();
//! }
//! dest.decode().unwrap();
//! assert_eq!(dest.native(1), Some(&b"efgh"[..]));
//! ```

#![deny(missing_docs)]

mod basis;
mod encoder;
mod error;
pub mod gf;
mod symbol;

pub use basis::{Basis, Insert};
pub use encoder::BatchEncoder;
pub use error::CodecError;
pub use symbol::Symbol;

pub use airtcp_core::{CodeVector, MAX_BATCH};
