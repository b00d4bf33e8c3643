//! `task_list` cursors (§6.3): opaque to callers, keyset positions inside.
//! A cursor is base64url JSON `{"d": digest, "k": [sort key…, number]}`:
//! `d` binds it to one collection and order (channel, query, view,
//! subtasks, sort, filters; not the page size), and `k` is the sort key of
//! the last task of the previous page, so a page starts strictly after it
//! even when tasks are created or deleted in between.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::Sort;
use crate::error::{Failure, code};

/// The position after which the next page starts. Ties on the sort key are
/// broken by number: descending for the `*_desc` sorts, ascending otherwise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum After {
    Updated {
        at: i64,
        number: i64,
    },
    Created {
        at: i64,
        number: i64,
    },
    Number {
        number: i64,
    },
    /// Relevance, `search::TITLE_WEIGHT` (lower is better).
    Relevance {
        score: f64,
        number: i64,
    },
}

/// A sort key value of a cursor, for an engine to bind as a parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Key {
    Int(i64),
    Real(f64),
}

impl After {
    /// The SQL condition "strictly after this position in the page order"
    /// on task `t`, with `score` the expression of a search's relevance
    /// and `bind` turning each key value into the engine's placeholder. A
    /// row comparison, so a browse index range starts right there instead
    /// of walking the board from its first page.
    pub fn condition(self, score: &str, mut bind: impl FnMut(Key) -> String) -> String {
        match self {
            After::Updated { at, number } => format!(
                "(t.updated_at, t.number) < ({}, {})",
                bind(Key::Int(at)),
                bind(Key::Int(number))
            ),
            After::Created { at, number } => format!(
                "(t.created_at, t.number) < ({}, {})",
                bind(Key::Int(at)),
                bind(Key::Int(number))
            ),
            After::Number { number } => format!("t.number > {}", bind(Key::Int(number))),
            After::Relevance { score: at, number } => format!(
                "({score}, t.number) > ({}, {})",
                bind(Key::Real(at)),
                bind(Key::Int(number))
            ),
        }
    }
}

impl Sort {
    /// The SQL `ORDER BY` of a page on task `t`, ties broken by number as
    /// [`After`] expects; `score` is a search's relevance, lower first.
    pub fn order_by(self, score: &str) -> String {
        match self {
            Sort::UpdatedDesc => "t.updated_at DESC, t.number DESC".to_string(),
            Sort::CreatedDesc => "t.created_at DESC, t.number DESC".to_string(),
            Sort::NumberAsc => "t.number ASC".to_string(),
            Sort::Relevance => format!("{score} ASC, t.number ASC"),
        }
    }
}

#[derive(Serialize, Deserialize)]
struct Wire {
    d: String,
    k: Vec<Value>,
}

pub fn encode(digest: &str, after: After) -> String {
    let k = match after {
        After::Updated { at, number } | After::Created { at, number } => {
            vec![json!(at), json!(number)]
        }
        After::Number { number } => vec![json!(number)],
        After::Relevance { score, number } => vec![json!(score), json!(number)],
    };
    let wire = Wire {
        d: digest.to_string(),
        k,
    };
    // Serialising two plain fields cannot fail.
    URL_SAFE_NO_PAD.encode(serde_json::to_vec(&wire).unwrap_or_default())
}

pub fn decode(text: &str, digest: &str, sort: Sort) -> Result<After, Failure> {
    // The message and the field say the same thing: malformed (cut,
    // edited, made up) or from another query.
    let invalid = |why: &str, field: &str| {
        Failure::new(
            code::CURSOR_INVALID,
            format!("The cursor {why}; list again without a cursor."),
        )
        .field("cursor", field)
    };
    let malformed = || {
        invalid(
            "is malformed",
            "Malformed: pass a next_cursor exactly as given.",
        )
    };
    let wire: Wire = URL_SAFE_NO_PAD
        .decode(text)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .ok_or_else(malformed)?;
    if wire.d != digest {
        // Most often a page's call sent again with an input left out or
        // changed: going on takes that call's very inputs, and the call
        // without a cursor reads another list from its start.
        return Err(Failure::new(
            code::CURSOR_INVALID,
            "The cursor belongs to another query, filter set or order: to go on, send the inputs of the call that answered it, unchanged but `limit`; to start over, list again without a cursor.",
        )
        .field("cursor", "Not a cursor from this query and filter set."));
    }
    let int = |i: usize| wire.k.get(i).and_then(Value::as_i64);
    let after = match (sort, wire.k.len()) {
        (Sort::UpdatedDesc, 2) => int(0)
            .zip(int(1))
            .map(|(at, number)| After::Updated { at, number }),
        (Sort::CreatedDesc, 2) => int(0)
            .zip(int(1))
            .map(|(at, number)| After::Created { at, number }),
        (Sort::NumberAsc, 1) => int(0).map(|number| After::Number { number }),
        (Sort::Relevance, 2) => wire
            .k
            .first()
            .and_then(Value::as_f64)
            .zip(int(1))
            .map(|(score, number)| After::Relevance { score, number }),
        _ => None,
    };
    after.ok_or_else(malformed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_other_digests_and_garbage() {
        let after = After::Relevance {
            score: -1.234_567_890_123,
            number: 7,
        };
        let text = encode("abc", after);
        assert_eq!(decode(&text, "abc", Sort::Relevance).unwrap(), after);
        assert_eq!(
            decode(&text, "abd", Sort::Relevance).unwrap_err().code,
            "cursor_invalid"
        );
        assert_eq!(
            decode(&text, "abc", Sort::NumberAsc).unwrap_err().code,
            "cursor_invalid"
        );
        for garbage in ["", "!!!", "e30", "bm90IGpzb24"] {
            let f = decode(garbage, "abc", Sort::UpdatedDesc).unwrap_err();
            assert_eq!(f.code, "cursor_invalid");
            assert!(f.field_errors.contains_key("cursor"));
        }
    }
}
