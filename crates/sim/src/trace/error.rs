//! One error type for every trace parser, so a scenario loader can report
//! "which file, which line, what is wrong" the same way for all formats.

use std::fmt;

/// A problem with a trace or drive log. `Display` is `file:line: message`
/// (or `file: message` when the problem is not tied to one line, e.g. an
/// empty file or an I/O error), the shape editors and CI logs link to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    /// Path or name of the trace as given by the caller.
    pub file: String,
    /// 1-based line number, when the problem is on one line.
    pub line: Option<usize>,
    pub message: String,
}

impl TraceError {
    pub fn at(file: &str, line: usize, message: impl Into<String>) -> Self {
        TraceError { file: file.to_string(), line: Some(line), message: message.into() }
    }
    pub fn whole(file: &str, message: impl Into<String>) -> Self {
        TraceError { file: file.to_string(), line: None, message: message.into() }
    }
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}: {}", self.file, line, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for TraceError {}

/// Reads a whole trace file, mapping I/O failures to a [`TraceError`] that
/// names the path, and bytes that are not UTF-8 to one that names the line
/// and column of the first bad byte (a log edited or truncated by a tool
/// that mangled its encoding is found in an editor at once).
pub(crate) fn read_to_string(path: &std::path::Path) -> Result<(String, String), TraceError> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| TraceError::whole(&name, format!("cannot read: {e}")))?;
    decode(name, bytes)
}

/// The text of a trace read as `bytes` from the file `name`, or the error
/// naming the line and column of its first byte that is not UTF-8.
pub(crate) fn decode(name: String, bytes: Vec<u8>) -> Result<(String, String), TraceError> {
    match String::from_utf8(bytes) {
        Ok(text) => Ok((name, text)),
        Err(e) => Err(not_utf8(&name, e.as_bytes(), e.utf8_error().valid_up_to())),
    }
}

/// The error for the first invalid byte at `at`: its line and column (both 1-based).
fn not_utf8(name: &str, bytes: &[u8], at: usize) -> TraceError {
    let before = &bytes[..at];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let col = at - before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1) + 1;
    TraceError::at(name, line, format!("not valid UTF-8 (byte 0x{:02x} at column {col})", bytes[at]))
}

/// Split one CSV data line into `fields` (reused, so no allocation per line).
/// Returns `Ok(false)` for a blank line; a line whose field count differs
/// from the header's `n_cols` is an error naming the file and line (the
/// usual sign of a truncated log).
pub(crate) fn split_csv_row<'a>(
    file: &str,
    line_no: usize,
    raw: &'a str,
    n_cols: usize,
    fields: &mut Vec<&'a str>,
) -> Result<bool, TraceError> {
    let raw = raw.trim_end_matches('\r');
    if raw.is_empty() {
        return Ok(false);
    }
    fields.clear();
    fields.extend(raw.split(','));
    if fields.len() != n_cols {
        return Err(TraceError::at(
            file,
            line_no,
            format!(
                "expected {n_cols} comma-separated fields as in the header, found {} (truncated line?)",
                fields.len()
            ),
        ));
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_utf8_names_line_and_column() {
        let dir = std::env::temp_dir().join(format!("airtcp-utf8-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("log.csv");
        std::fs::write(&path, b"a,b\n1,2\n3,\xff4\n").unwrap();
        let e = read_to_string(&path).unwrap_err();
        assert_eq!(e.line, Some(3));
        assert_eq!(e.message, "not valid UTF-8 (byte 0xff at column 3)");
        assert!(e.to_string().ends_with("log.csv:3: not valid UTF-8 (byte 0xff at column 3)"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
