//! Typed reads of document values, each failing with a message that names
//! the key path and what was expected.

use airtcp_core::Duration;
use serde_json::{Map, Value};

use super::doc::{Doc, KeyPath, ScenarioError};
use super::units;

pub type R<T> = Result<T, ScenarioError>;

/// How a value is described in "expected X, got Y" messages.
pub fn describe(v: &Value) -> String {
    match v {
        Value::Null => "nothing".into(),
        Value::Bool(b) => format!("boolean {b}"),
        Value::Number(n) if n.is_f64() => format!("float {n}"),
        Value::Number(n) => format!("integer {n}"),
        Value::String(s) => format!("string \"{s}\""),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "a table".into(),
    }
}

/// A table being read: its path, its entries, and the document for errors.
pub struct Table<'a> {
    pub doc: &'a Doc,
    pub path: KeyPath,
    pub map: &'a Map<String, Value>,
}

impl<'a> Table<'a> {
    pub fn new(doc: &'a Doc, path: KeyPath, v: &'a Value) -> R<Table<'a>> {
        match v {
            Value::Object(map) => Ok(Table { doc, path, map }),
            other => Err(doc.err(&path, format!("expected a table, got {}", describe(other)))),
        }
    }

    /// Reject keys outside `known` (the first in sorted order is reported).
    pub fn known(&self, known: &[&str]) -> R<()> {
        for k in self.map.keys() {
            if !known.contains(&k.as_str()) {
                return Err(self.doc.err(&self.path.key(k), format!("unknown key (known: {})", known.join(", "))));
            }
        }
        Ok(())
    }

    pub fn opt(&self, k: &str) -> Option<Field<'a>> {
        self.map.get(k).map(|v| Field { doc: self.doc, path: self.path.key(k), v })
    }

    pub fn req(&self, k: &str) -> R<Field<'a>> {
        self.opt(k).ok_or_else(|| self.doc.err(&self.path.key(k), "missing required key"))
    }

    pub fn err(&self, msg: impl Into<String>) -> ScenarioError {
        self.doc.err(&self.path, msg)
    }
}

/// One value with its path.
#[derive(Clone)]
pub struct Field<'a> {
    pub doc: &'a Doc,
    pub path: KeyPath,
    pub v: &'a Value,
}

impl<'a> Field<'a> {
    pub fn err(&self, msg: impl Into<String>) -> ScenarioError {
        self.doc.err(&self.path, msg)
    }

    fn expected(&self, what: &str) -> ScenarioError {
        self.err(format!("expected {what}, got {}", describe(self.v)))
    }

    pub fn table(&self) -> R<Table<'a>> {
        Table::new(self.doc, self.path.clone(), self.v)
    }

    pub fn list(&self) -> R<&'a Vec<Value>> {
        self.v.as_array().ok_or_else(|| self.expected("a list"))
    }

    pub fn str(&self) -> R<&'a str> {
        self.v.as_str().ok_or_else(|| self.expected("a string"))
    }

    pub fn bool(&self) -> R<bool> {
        self.v.as_bool().ok_or_else(|| self.expected("true or false"))
    }

    pub fn u64(&self) -> R<u64> {
        match self.v {
            Value::Number(n) => match n.as_u64() {
                Some(x) => Ok(x),
                None if n.as_i64().is_some() => Err(self.err(format!("must not be negative, got {n}"))),
                None => Err(self.expected("an integer")),
            },
            _ => Err(self.expected("an integer")),
        }
    }

    pub fn u32(&self) -> R<u32> {
        let x = self.u64()?;
        u32::try_from(x).map_err(|_| self.err(format!("{x} is too large (at most {})", u32::MAX)))
    }

    pub fn f64(&self) -> R<f64> {
        self.v.as_f64().ok_or_else(|| self.expected("a number"))
    }

    /// A probability in [0, 1].
    pub fn prob(&self) -> R<f64> {
        let p = self.f64()?;
        if !(0.0..=1.0).contains(&p) {
            return Err(self.err(format!("probability {p} is outside [0, 1]")));
        }
        Ok(p)
    }

    /// "10ms"-style text, or a plain number of seconds.
    pub fn duration(&self) -> R<Duration> {
        match self.v {
            Value::String(s) => units::parse_duration(s).map_err(|m| self.err(m)),
            Value::Number(n) => units::seconds_to_duration(n.as_f64().unwrap_or(f64::NAN), &n.to_string()).map_err(|m| self.err(m)),
            _ => Err(self.expected("a duration like \"10ms\"")),
        }
    }

    /// "10Mbps"-style text, or a plain number of bits per second. Zero is rejected.
    pub fn rate(&self) -> R<u64> {
        let bps = match self.v {
            Value::String(s) => units::parse_rate(s).map_err(|m| self.err(m))?,
            Value::Number(n) => match n.as_u64() {
                Some(x) => x,
                None => return Err(self.err(format!("rate {n} must be a non-negative integer of bits per second"))),
            },
            _ => return Err(self.expected("a rate like \"10Mbps\"")),
        };
        if bps == 0 {
            let shown = match self.v {
                Value::String(s) => format!("\"{s}\""),
                other => other.to_string(),
            };
            return Err(self.err(format!("zero rate {shown}")));
        }
        Ok(bps)
    }

    /// Bytes: an integer, or "128KiB"-style text.
    pub fn size(&self) -> R<u64> {
        match self.v {
            Value::String(s) => units::parse_size(s).map_err(|m| self.err(m)),
            Value::Number(_) => self.u64(),
            _ => Err(self.expected("a size like 131072 or \"128KiB\"")),
        }
    }

    pub fn size_u32(&self) -> R<u32> {
        let x = self.size()?;
        u32::try_from(x).map_err(|_| self.err(format!("{x} bytes is too large (at most {})", u32::MAX)))
    }

    /// Element `i` of a list value.
    pub fn item(&self, i: usize) -> Field<'a> {
        Field { doc: self.doc, path: self.path.index(i), v: &self.v.as_array().expect("list")[i] }
    }
}

