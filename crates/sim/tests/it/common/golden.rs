//! Golden corpora of scenario inputs: each case's outcome (its error text,
//! or what it resolves to) against a file recorded before a refactor, so a
//! change of any message or resolved value fails. `AIRTCP_BLESS=1`
//! rewrites the file after a deliberate change.

use airtcp_sim::Scenario;

/// `tests/it/<file>` holds, for every case in order, `## name` and its
/// outcome; compare (case by case first, so a failure names the case).
pub fn check(file: &str, cases: &[(&str, String)], outcome: impl Fn(&str) -> String) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it").join(file);
    let mut got = String::new();
    for (name, text) in cases {
        got.push_str(&format!("## {name}\n{}\n\n", outcome(text)));
    }
    if std::env::var_os("AIRTCP_BLESS").is_some() {
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
    for (g, w) in got.split("\n## ").zip(want.split("\n## ")) {
        assert_eq!(g, w, "a case differs from {file}");
    }
    assert_eq!(got, want);
}

/// Every case is a scenario error except those named `ok …`, and there are
/// at least `min_bad` errors.
pub fn errors_are_errors(cases: &[(&str, String)], min_bad: usize, resolve: impl Fn(&str) -> Result<Scenario, airtcp_sim::ScenarioError>) {
    let bad = cases.iter().filter(|(n, _)| !n.starts_with("ok ")).count();
    assert!(bad >= min_bad, "{bad}");
    for (name, text) in cases {
        let r = resolve(text);
        assert_eq!(r.is_ok(), name.starts_with("ok "), "{name}: {:?}", r.err().map(|e| e.to_string()));
    }
}
