//! A scenario document before validation: the parsed TOML (or JSON) as a
//! JSON value, the line of every key, and which paths `--set` overrode, so an
//! error can name the file, line and key (or the override) it comes from.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::{Map, Number, Value};
use toml::de::{DeTable, DeValue};
use toml::Spanned;

/// One step of a key path: a table key or an array index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seg {
    Key(String),
    Index(usize),
}

/// Where a value sits in the document, e.g. `links[1].delay`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeyPath(pub Vec<Seg>);

impl KeyPath {
    pub fn root() -> Self {
        KeyPath(Vec::new())
    }
    pub fn key(&self, k: &str) -> KeyPath {
        let mut p = self.clone();
        p.0.push(Seg::Key(k.to_string()));
        p
    }
    pub fn index(&self, i: usize) -> KeyPath {
        let mut p = self.clone();
        p.0.push(Seg::Index(i));
        p
    }
    /// The `--set` spelling: `links.1.delay`.
    pub fn dotted(&self) -> String {
        let mut s = String::new();
        for (i, seg) in self.0.iter().enumerate() {
            if i > 0 {
                s.push('.');
            }
            match seg {
                Seg::Key(k) => s.push_str(k),
                Seg::Index(n) => s.push_str(&n.to_string()),
            }
        }
        s
    }
    fn parent(&self) -> Option<KeyPath> {
        if self.0.is_empty() {
            None
        } else {
            Some(KeyPath(self.0[..self.0.len() - 1].to_vec()))
        }
    }
}

impl fmt::Display for KeyPath {
    /// The error-message spelling: `links[1].delay`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, seg) in self.0.iter().enumerate() {
            match seg {
                Seg::Key(k) if i == 0 => write!(f, "{k}")?,
                Seg::Key(k) => write!(f, ".{k}")?,
                Seg::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

/// A rejected scenario. `Display` gives `file:line: key: message`
/// (`file: --set path=value: key: message` when an override supplied the value,
/// `file: key: message` for JSON input, which has no lines worth naming).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub file: String,
    pub line: Option<u32>,
    /// Key path in error-message spelling (`links[1].delay`); empty for syntax errors.
    pub key: String,
    pub message: String,
    /// The `--set path=value` text that supplied the offending value.
    pub via_override: Option<String>,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(o) = &self.via_override {
            write!(f, ": --set {o}")?;
        } else if let Some(l) = self.line {
            write!(f, ":{l}")?;
        }
        if !self.key.is_empty() {
            write!(f, ": {}", self.key)?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ScenarioError {}

pub struct Doc {
    pub origin: String,
    pub root: Value,
    /// Dotted path -> 1-based line of its key (or of the array element).
    lines: BTreeMap<String, u32>,
    /// Dotted path -> `path=value` of the override that set it.
    overrides: BTreeMap<String, String>,
}

fn line_of(text: &str, offset: usize) -> u32 {
    text.as_bytes()[..offset.min(text.len())].iter().filter(|&&b| b == b'\n').count() as u32 + 1
}

/// Where each line starts, so that the line of every key of a large
/// document is a binary search rather than a count from the top.
struct Lines {
    newlines: Vec<usize>,
}

impl Lines {
    fn new(text: &str) -> Lines {
        Lines { newlines: text.bytes().enumerate().filter(|&(_, b)| b == b'\n').map(|(i, _)| i).collect() }
    }

    /// The 1-based line of byte `offset` (as `line_of`).
    fn line(&self, offset: usize) -> u32 {
        self.newlines.partition_point(|&n| n < offset) as u32 + 1
    }
}

impl Doc {
    pub fn from_toml(text: &str, origin: &str) -> Result<Doc, ScenarioError> {
        let table = DeTable::parse(text).map_err(|e| {
            let line = e.span().map(|s| line_of(text, s.start));
            ScenarioError {
                file: origin.to_string(),
                line,
                key: String::new(),
                message: format!("TOML syntax error: {}", e.message().trim()),
                via_override: None,
            }
        })?;
        let mut doc = Doc { origin: origin.to_string(), root: Value::Null, lines: BTreeMap::new(), overrides: BTreeMap::new() };
        let root = doc.convert_table(&Lines::new(text), table.get_ref(), &KeyPath::root())?;
        doc.root = Value::Object(root);
        Ok(doc)
    }

    pub fn from_json(text: &str, origin: &str) -> Result<Doc, ScenarioError> {
        let root: Value = serde_json::from_str(text).map_err(|e| ScenarioError {
            file: origin.to_string(),
            line: Some(e.line() as u32),
            key: String::new(),
            message: format!("JSON syntax error: {e}"),
            via_override: None,
        })?;
        if !root.is_object() {
            return Err(ScenarioError {
                file: origin.to_string(),
                line: None,
                key: String::new(),
                message: "a scenario must be a JSON object".into(),
                via_override: None,
            });
        }
        Ok(Doc { origin: origin.to_string(), root, lines: BTreeMap::new(), overrides: BTreeMap::new() })
    }

    fn convert_table(&mut self, text: &Lines, t: &DeTable<'_>, path: &KeyPath) -> Result<Map<String, Value>, ScenarioError> {
        let mut out = Map::new();
        for (k, v) in t.iter() {
            let p = path.key(k.get_ref());
            self.lines.insert(p.dotted(), text.line(k.span().start));
            let value = self.convert_value(text, v, &p)?;
            out.insert(k.get_ref().to_string(), value);
        }
        Ok(out)
    }

    fn convert_value(&mut self, text: &Lines, v: &Spanned<DeValue<'_>>, path: &KeyPath) -> Result<Value, ScenarioError> {
        let bad = |doc: &Doc, msg: String| doc.err(path, msg);
        Ok(match v.get_ref() {
            DeValue::String(s) => Value::String(s.to_string()),
            DeValue::Integer(i) => match i64::from_str_radix(i.as_str(), i.radix()) {
                Ok(n) => Value::Number(n.into()),
                Err(_) => return Err(bad(self, format!("integer {i} does not fit in 64 bits"))),
            },
            DeValue::Float(f) => {
                let x: f64 = f.as_str().parse().unwrap_or(f64::NAN);
                match Number::from_f64(x) {
                    Some(n) => Value::Number(n),
                    None => return Err(bad(self, format!("{} is not a finite number", f.as_str()))),
                }
            }
            DeValue::Boolean(b) => Value::Bool(*b),
            DeValue::Datetime(d) => return Err(bad(self, format!("dates are not scenario values ({d})"))),
            DeValue::Array(a) => {
                let mut out = Vec::with_capacity(a.len());
                for (i, item) in a.iter().enumerate() {
                    let p = path.index(i);
                    self.lines.insert(p.dotted(), text.line(item.span().start));
                    out.push(self.convert_value(text, item, &p)?);
                }
                Value::Array(out)
            }
            DeValue::Table(t) => Value::Object(self.convert_table(text, t, path)?),
        })
    }

    /// Apply `--set path=value` overrides. The value text is read as a TOML
    /// value (`0.05`, `true`, `"x"`, `[1, 2]`), and as a plain string if it
    /// is not one (`reno`, `600s`). Missing tables on the way are created.
    pub fn apply_overrides(&mut self, overrides: &[(String, String)]) -> Result<(), ScenarioError> {
        for (path, text) in overrides {
            let shown = format!("{path}={text}");
            let fail = |msg: String| ScenarioError {
                file: self.origin.clone(),
                line: None,
                key: String::new(),
                message: format!("bad override --set {shown}: {msg}"),
                via_override: None,
            };
            let segs: Vec<&str> = path.split('.').collect();
            if path.is_empty() || segs.iter().any(|s| s.is_empty()) {
                return Err(fail("empty path component".into()));
            }
            let value = parse_override_value(text);
            let mut cur = &mut self.root;
            let mut walked = KeyPath::root();
            for (depth, seg) in segs.iter().enumerate() {
                let last = depth + 1 == segs.len();
                match cur {
                    Value::Object(map) => {
                        walked = walked.key(seg);
                        if last {
                            map.insert(seg.to_string(), value.clone());
                            break;
                        }
                        cur = map.entry(seg.to_string()).or_insert_with(|| Value::Object(Map::new()));
                    }
                    Value::Array(items) => {
                        let i: usize = seg
                            .parse()
                            .map_err(|_| fail(format!("{walked} is a list; \"{seg}\" is not an index")))?;
                        let len = items.len();
                        if i >= len {
                            return Err(fail(format!("{walked} has {len} entries, no index {i}")));
                        }
                        walked = walked.index(i);
                        if last {
                            items[i] = value.clone();
                            break;
                        }
                        cur = &mut items[i];
                    }
                    _ => return Err(fail(format!("{walked} is not a table or list"))),
                }
            }
            self.overrides.insert(walked.dotted(), shown);
        }
        Ok(())
    }

    /// An error about the value at `path`, located by line or by override.
    pub fn err(&self, path: &KeyPath, message: impl Into<String>) -> ScenarioError {
        let mut via = None;
        let mut line = None;
        let mut p = Some(path.clone());
        while let Some(cur) = p {
            let d = cur.dotted();
            if let Some(o) = self.overrides.get(&d) {
                via = Some(o.clone());
                break;
            }
            if let Some(&l) = self.lines.get(&d) {
                line = Some(l);
                break;
            }
            p = cur.parent();
        }
        if via.is_none() {
            // A whole-table error (e.g. min_rto > max_rto) caused by an override inside it.
            let prefix = format!("{}.", path.dotted());
            if let Some((_, o)) = self.overrides.iter().find(|(k, _)| k.starts_with(&prefix)) {
                via = Some(o.clone());
            }
        }
        ScenarioError { file: self.origin.clone(), line, key: path.to_string(), message: message.into(), via_override: via }
    }
}

fn parse_override_value(text: &str) -> Value {
    // `DeValue::parse` reads one TOML value.
    if let Ok(v) = DeValue::parse(text) {
        let mut scratch = Doc { origin: String::new(), root: Value::Null, lines: BTreeMap::new(), overrides: BTreeMap::new() };
        if let Ok(v) = scratch.convert_value(&Lines::new(text), &v, &KeyPath::root()) {
            return v;
        }
    }
    Value::String(text.to_string())
}
