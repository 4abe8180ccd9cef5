//! Which parser reads a drive log: recognise the format from the file's
//! first line and hand the text to `ucc`, `imc23` or `feup`. The parsers
//! build on the types of `drive.rs`; this dispatch sits above both, so the
//! imports run one way.

use std::path::Path;

use super::drive::{DriveLogKind, DriveTimeline};
use super::error::{read_to_string, TraceError};
use super::feup::{parse_feup, FeupSelect};
use super::imc23::{parse_imc23, parse_logcat_time};
use super::ucc::parse_ucc;

impl DriveLogKind {
    /// Recognises a format from the start of a file's text: the UCC and FEUP
    /// CSV headers, or a logcat timestamp / section marker.
    pub fn sniff(text: &str) -> Option<Self> {
        let first = text.lines().next().unwrap_or("").trim_start_matches('\u{feff}');
        if first.starts_with("Timestamp,Longitude,Latitude") {
            Some(DriveLogKind::Ucc5g)
        } else if first.starts_with("senderId,receiverId,systime") {
            Some(DriveLogKind::FeupWifi)
        } else if first.starts_with("--------- ") || parse_logcat_time(first).is_some() {
            Some(DriveLogKind::Imc23)
        } else {
            None
        }
    }
}

impl DriveTimeline {
    /// Reads a file and picks the parser from its content (see
    /// [`DriveLogKind::sniff`]); a FEUP log is read as a roaming client
    /// ([`FeupSelect::default`]).
    pub fn from_path(path: impl AsRef<Path>) -> Result<Self, TraceError> {
        let (name, text) = read_to_string(path.as_ref())?;
        Self::parse_auto(&name, &text)
    }

    pub fn parse_auto(name: &str, text: &str) -> Result<Self, TraceError> {
        match DriveLogKind::sniff(text) {
            Some(DriveLogKind::Ucc5g) => parse_ucc(name, text),
            Some(DriveLogKind::Imc23) => parse_imc23(name, text),
            Some(DriveLogKind::FeupWifi) => parse_feup(name, text, &FeupSelect::default()),
            None => Err(TraceError::at(
                name,
                1,
                "not a known drive-log format (expected a UCC or FEUP CSV header, or an Android logcat line)",
            )),
        }
    }
}
