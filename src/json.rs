//! Caller input read as JSON, strictly: an object that gives one key twice
//! is refused, where `serde_json` keeps the last. Which one the caller meant
//! is never guessed, and a proxy or log that reads the first sees the same
//! object this code acts on. Used for everything a caller sends: the CLI's
//! input (`exec::parse_input`, each `--batch` line) and the runtime's bodies
//! and JSON query parameters (`wire`).

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Why input is not one unambiguous JSON value.
#[derive(Debug)]
pub enum Error {
    /// Not JSON at all (serde_json's own error: line, column, category).
    Syntax(serde_json::Error),
    /// An object gives `key` twice; the second ends at `line`, `column`.
    DuplicateKey {
        key: String,
        line: usize,
        column: usize,
    },
}

impl Error {
    /// The sentence an error message says about a duplicate key, its key
    /// cut to what a message repeats of caller input.
    pub fn duplicate_message(key: &str, line: usize, column: usize) -> String {
        format!(
            "The key `{}` is given twice in one object (line {line}, column {column}); give each key once.",
            crate::text::clip(key, crate::text::ECHO_LIMIT)
        )
    }
}

/// `bytes` as one JSON value, every object's keys distinct.
pub fn from_slice(bytes: &[u8]) -> Result<Value, Error> {
    let duplicate = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let parsed = Strict(&duplicate)
        .deserialize(&mut de)
        .and_then(|value| de.end().map(|()| value));
    match (parsed, duplicate.into_inner()) {
        (Ok(value), _) => Ok(value),
        (Err(e), Some(key)) => Err(Error::DuplicateKey {
            key,
            line: e.line(),
            column: e.column(),
        }),
        (Err(e), None) => Err(Error::Syntax(e)),
    }
}

/// `text` as one JSON value, every object's keys distinct.
pub fn from_str(text: &str) -> Result<Value, Error> {
    from_slice(text.as_bytes())
}

/// A value whose objects are checked for duplicate keys; the first one
/// found is kept in the cell, for the error to name.
#[derive(Clone, Copy)]
struct Strict<'a>(&'a RefCell<Option<String>>);

impl<'de> DeserializeSeed<'de> for Strict<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                *self.0.borrow_mut() = Some(key);
                return Err(de::Error::custom("duplicate key"));
            }
            let value = map.next_value_seed(self)?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

/// What is wrong, in serde_json's words (`expected value`, `EOF while
/// parsing a string`, `invalid unicode code point`, `number out of range`,
/// …) without the position it appends, which the message gives already;
/// its two terse ones said plainly.
pub fn describe(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let what = text
        .rsplit_once(" at line ")
        .map_or(text.as_str(), |(what, _)| what);
    match what {
        "trailing characters" => {
            "something follows the object; send exactly one JSON object (with --batch, one per line)"
                .into()
        }
        "recursion limit exceeded" => "nested more than 128 levels deep".into(),
        "invalid unicode code point" => {
            "invalid unicode (the input must be UTF-8 text, and a \\u escape a character)".into()
        }
        other => other.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_serde_json_reads_and_refuses_a_key_given_twice() {
        for text in [
            r#"{"a": 1, "b": [1, 2.5, -3, "x", null, true], "c": {"d": {}}}"#,
            "[]",
            "\"\\u00e9\"",
            "18446744073709551615",
            r#"{"a": {"k": 1}, "b": {"k": 2}}"#,
        ] {
            let ours = from_str(text).unwrap();
            assert_eq!(ours, serde_json::from_str::<Value>(text).unwrap(), "{text}");
        }
        // Key order is kept (preserve_order), as serde_json keeps it.
        let keys: Vec<String> = from_str(r#"{"z": 1, "a": 2}"#)
            .unwrap()
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(keys, ["z", "a"]);
        match from_str(r#"{"channel": "a", "tasks": [{"title": "t", "title": "u"}]}"#) {
            Err(Error::DuplicateKey { key, line, column }) => {
                assert_eq!((key.as_str(), line), ("title", 1));
                assert!(column > 40, "{column}");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(from_str(r#"{"a": 1,}"#), Err(Error::Syntax(_))));
        assert!(matches!(from_str(r#"{"a": 1} x"#), Err(Error::Syntax(_))));
        // serde_json's nesting bound still holds.
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert!(matches!(from_str(&deep), Err(Error::Syntax(_))));
    }
}
