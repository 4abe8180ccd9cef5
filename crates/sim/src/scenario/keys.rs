//! One declaration per scenario key. A section of the format (`[flows.tcp]`,
//! ...) is a [`Section`]: a static table of [`Key`]s, each with its name,
//! the type and unit of its value, its documentation line, how it is read
//! into the section's typed value and how that value is written back to
//! the resolved scenario (summary.json). The accepted-key list, the reader,
//! the JSON writer and the scenario reference page (`super::reference`)
//! all come from that table, so adding a key is one entry in it.
//!
//! A key that maps to one field with one of the value [`Codec`]s below is
//! declared with `field!`; a key with its own rules writes its `read` and
//! `write` functions inline.

use serde_json::{Map, Value};

use super::value::{Field, Table, R};

/// One key of a section whose resolved value is a `T` (for a section whose
/// keys are checked against the rest of the scenario, `T` also holds what
/// they are checked against: the nodes, the flows before, ...).
pub struct Key<T> {
    pub name: &'static str,
    /// The value's type and unit, as the reference page shows them.
    pub ty: &'static str,
    /// What the key does (one Markdown paragraph on the reference page).
    pub doc: &'static str,
    /// Store the value of `Field` into the section's value.
    pub read: fn(&mut T, &Field) -> R<()>,
    /// The resolved value, in the input format's spelling and canonical
    /// units; `None` leaves the key out of the record (e.g. `bytes` of a
    /// bulk flow).
    pub write: fn(&T) -> Option<Value>,
    /// The default as the reference page states it, for a section without
    /// a default value to show (`""`: the page shows the resolved value of
    /// a default configuration instead, or nothing).
    pub default: &'static str,
}

/// A table of the scenario format and every key it accepts, in the order
/// the reference page and the "unknown key (known: ...)" message list them.
pub struct Section<'k, T> {
    /// The table's path in the format, e.g. `flows.tcp`.
    pub path: &'static str,
    pub keys: &'k [Key<T>],
}

impl<'k, T> Section<'k, T> {
    pub fn names(&self) -> Vec<&'static str> {
        self.keys.iter().map(|k| k.name).collect()
    }

    pub fn key(&self, name: &str) -> Option<&'k Key<T>> {
        self.keys.iter().find(|k| k.name == name)
    }

    /// Reject keys the section does not declare (the message lists the
    /// declared ones in the table's order).
    pub fn known(&self, t: &Table) -> R<()> {
        t.known(&self.names())
    }

    /// Read every key present into `into`, in the document's sorted key
    /// order (so which bad value is reported first does not depend on the
    /// table's order). Call [`Section::known`] first.
    pub fn read_present(&self, t: &Table, into: &mut T) -> R<()> {
        for name in t.map.keys() {
            let key = self.key(name).expect("checked by known()");
            (key.read)(into, &t.opt(name).expect("present"))?;
        }
        Ok(())
    }

    /// [`Section::known`], then [`Section::read_present`].
    pub fn read_into(&self, t: &Table, into: &mut T) -> R<()> {
        self.known(t)?;
        self.read_present(t, into)
    }

    /// Every key's resolved value.
    pub fn write(&self, from: &T) -> Value {
        let mut m = Map::new();
        for k in self.keys {
            if let Some(v) = (k.write)(from) {
                m.insert(k.name.to_string(), v);
            }
        }
        Value::Object(m)
    }
}

/// How a value of one kind is read, written and named on the reference page.
pub trait Codec {
    type V;
    /// The type and unit column of the reference page.
    const TY: &'static str;
    fn read(f: &Field) -> R<Self::V>;
    fn write(v: &Self::V) -> Value;
}

/// A key stored in one field of the section's value with codec `$codec`:
/// `field!(min_rto: Dur, "doc")`, or `field!(initial_rto => rtxcur_init: Dur,
/// "doc")` when the field's name differs from the key.
macro_rules! field {
    ($name:ident: $codec:ty, $doc:expr) => {
        $crate::scenario::keys::field!($name => $name: $codec, $doc)
    };
    ($name:ident => $field:ident: $codec:ty, $doc:expr) => {
        $crate::scenario::keys::Key {
            name: stringify!($name),
            ty: <$codec as $crate::scenario::keys::Codec>::TY,
            doc: $doc,
            read: |c, f| {
                c.$field = <$codec as $crate::scenario::keys::Codec>::read(f)?;
                Ok(())
            },
            write: |c| Some(<$codec as $crate::scenario::keys::Codec>::write(&c.$field)),
            default: "",
        }
    };
}
pub(crate) use field;

pub struct Bool;
impl Codec for Bool {
    type V = bool;
    const TY: &'static str = "boolean";
    fn read(f: &Field) -> R<bool> {
        f.bool()
    }
    fn write(v: &bool) -> Value {
        Value::from(*v)
    }
}

/// A count (non-negative integer up to 2³² - 1).
pub struct U32;
impl Codec for U32 {
    type V = u32;
    const TY: &'static str = "integer";
    fn read(f: &Field) -> R<u32> {
        f.u32()
    }
    fn write(v: &u32) -> Value {
        Value::from(*v)
    }
}

/// Bytes: an integer or a size with its unit (`"128KiB"`); written as an integer.
pub struct Bytes;
impl Codec for Bytes {
    type V = u32;
    const TY: &'static str = "size (bytes)";
    fn read(f: &Field) -> R<u32> {
        f.size_u32()
    }
    fn write(v: &u32) -> Value {
        Value::from(*v)
    }
}

/// A duration; written in its canonical unit (`"200ms"`).
pub struct Dur;
impl Codec for Dur {
    type V = airtcp_core::Duration;
    const TY: &'static str = "duration";
    fn read(f: &Field) -> R<airtcp_core::Duration> {
        f.duration()
    }
    fn write(v: &airtcp_core::Duration) -> Value {
        Value::from(super::units::format_duration(*v))
    }
}

/// A duration or `"none"`.
pub struct OptDur;
impl Codec for OptDur {
    type V = Option<airtcp_core::Duration>;
    const TY: &'static str = "duration or `\"none\"`";
    fn read(f: &Field) -> R<Option<airtcp_core::Duration>> {
        match f.v {
            Value::String(s) if s == "none" => Ok(None),
            _ => Ok(Some(f.duration()?)),
        }
    }
    fn write(v: &Option<airtcp_core::Duration>) -> Value {
        v.map_or(Value::from("none"), |d| Value::from(super::units::format_duration(d)))
    }
}

/// `[min, default, max]` sizes (`tcp_rmem`, `tcp_wmem`); written as integers.
pub struct SizeTriple;
impl Codec for SizeTriple {
    type V = [u32; 3];
    const TY: &'static str = "`[min, default, max]` sizes (bytes)";
    fn read(f: &Field) -> R<[u32; 3]> {
        let items = f.list()?;
        if items.len() != 3 {
            return Err(f.err(format!("expected [min, default, max] (3 sizes), got {} items", items.len())));
        }
        Ok([f.item(0).size_u32()?, f.item(1).size_u32()?, f.item(2).size_u32()?])
    }
    fn write(v: &[u32; 3]) -> Value {
        Value::from(v.to_vec())
    }
}

/// A codec for an enum read by its `from_name` (whose error lists the
/// names) and written by its `name()`; `$ty` lists the names for the
/// reference page (a test checks each one reads back to itself).
macro_rules! named_codec {
    ($codec:ident, $enum:ty, $ty:expr) => {
        pub struct $codec;
        impl $crate::scenario::keys::Codec for $codec {
            type V = $enum;
            const TY: &'static str = $ty;
            fn read(f: &$crate::scenario::value::Field) -> $crate::scenario::value::R<$enum> {
                <$enum>::from_name(f.str()?).map_err(|m| f.err(m))
            }
            fn write(v: &$enum) -> serde_json::Value {
                serde_json::Value::from(v.name())
            }
        }
    };
}
pub(crate) use named_codec;

/// The values a type column lists in backticks (`` `"a"` | `"b"` ``), as
/// TOML value text, for the tests that each one reads.
#[cfg(test)]
pub fn listed_values(ty: &str) -> Vec<&str> {
    ty.split('`').skip(1).step_by(2).filter(|v| !v.starts_with('[')).collect()
}

/// The default text of a key that must be given.
pub const REQUIRED: &str = "required";

impl<'k, T> Section<'k, T> {
    /// [`Section::known`], then every key in the table's order (not the
    /// document's), a key whose default is [`REQUIRED`] failing when
    /// absent: for sections whose keys are checked against the keys before
    /// them (`[sdn]`'s switches against its controller, `[mesh]`'s coding
    /// keys against its protocol), so the table's order is the order of
    /// the checks and of the errors.
    pub fn read_in_order(&self, t: &Table, into: &mut T) -> R<()> {
        self.known(t)?;
        for k in self.keys {
            match t.opt(k.name) {
                Some(f) => (k.read)(into, &f)?,
                None if k.default == REQUIRED => {
                    t.req(k.name)?;
                }
                None => {}
            }
        }
        Ok(())
    }
}

/// The name of the key `f` is the value of, for messages that name it
/// (`"batch 0 is outside 1..=52"`) without spelling it a second time.
pub fn key_name<'f>(f: &'f Field) -> &'f str {
    match f.path.0.last() {
        Some(super::doc::Seg::Key(k)) => k,
        _ => "this key",
    }
}
