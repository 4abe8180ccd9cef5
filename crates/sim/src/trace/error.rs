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
/// names the path.
pub(crate) fn read_to_string(path: &std::path::Path) -> Result<(String, String), TraceError> {
    let name = path.display().to_string();
    match std::fs::read_to_string(path) {
        Ok(text) => Ok((name, text)),
        Err(e) => Err(TraceError::whole(&name, format!("cannot read: {e}"))),
    }
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
