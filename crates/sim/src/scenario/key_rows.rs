//! A key table as docs/scenario-reference.md shows it, for the sections
//! whose keys are not plain `keys::Key`s (`[[links]]` with its
//! per-direction families, `[links.loss]` with its models, `[links.trace]`
//! with its drive-only keys): the same columns as `reference`'s tables.
//! A leaf, so the sections and the page generator both use it.

use std::fmt::Write;

/// One row per (key cell, type, default, what it does).
pub(super) fn table<'a>(rows: impl Iterator<Item = (String, &'a str, &'a str, String)>) -> String {
    let mut s = String::from("| key | value | default | what it does |\n|---|---|---|---|\n");
    for (name, ty, default, doc) in rows {
        let _ = writeln!(s, "| {name} | {} | {} | {} |", cell(ty), cell(default), cell(&doc));
    }
    s
}

/// Markdown table cells cannot hold a bare `|`.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}
