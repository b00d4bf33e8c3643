//! What makes an input too large: the strings in its first bytes that are
//! longer than their fields allow. An input over the size limit is refused
//! before it is parsed, and without more than its first bytes read, so a
//! 1.1 MB `description` would be told of the size limit first and of the
//! field's own limit only once cut below it: two retries for one mistake.
//! [`oversized_strings`] finds such strings in what was read, a JSON text
//! perhaps cut off mid-string, by a scan that follows objects, arrays and
//! strings and judges nothing else.

use serde_json::Value;

use super::{join, schema_path};
use crate::error::MAX_FIELD_ERRORS;
use crate::registry::schema::walk_properties;
use crate::registry::{Action, FieldErrors};

/// One open object or array of the scan, with where it is in it.
enum Frame {
    /// The key of the member being read, and whether a key comes next.
    Object { key: Option<String>, key_next: bool },
    /// The index of the item being read.
    Array { index: usize },
}

/// How long a key is kept while scanning: no field name is longer.
const KEY_BYTES: usize = 64;

/// The strings of `prefix` (an input's first bytes) whose fields in the
/// action's schema have a `maxLength` they exceed, by input path
/// (`tasks/0/description`), each with the limit and the characters read
/// (at least that many, for a string the prefix cuts off). Empty when none
/// is found: the input is then large for another reason (a long list, deep
/// nesting, many fields), which the size limit alone says.
pub fn oversized_strings(action: &Action, prefix: &[u8]) -> FieldErrors {
    let limits = Limits::of(action);
    let mut found = FieldErrors::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut at = 0;
    while at < prefix.len() && found.len() < MAX_FIELD_ERRORS {
        match prefix[at] {
            b'{' => stack.push(Frame::Object {
                key: None,
                key_next: true,
            }),
            b'[' => stack.push(Frame::Array { index: 0 }),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => match stack.last_mut() {
                Some(Frame::Array { index }) => *index += 1,
                Some(Frame::Object { key_next, .. }) => *key_next = true,
                None => {}
            },
            b':' => {
                if let Some(Frame::Object { key_next, .. }) = stack.last_mut() {
                    *key_next = false;
                }
            }
            b'"' => {
                let (text, chars, end, closed) = string_at(prefix, at + 1);
                at = end;
                if let Some(Frame::Object {
                    key,
                    key_next: key_next @ true,
                }) = stack.last_mut()
                {
                    *key = Some(text);
                    *key_next = false;
                } else if stack.len() <= limits.deepest
                    && let Some(path) = path_of(&stack)
                {
                    // (Deeper, no field can hold it, and no path is built:
                    // 1 MiB of `{"a":"b",` opens 58,000 objects.)
                    if let Some(limit) = limits.at(&path).filter(|&limit| chars > limit) {
                        let read = if closed { "" } else { "at least " };
                        found.insert(
                            path,
                            format!(
                                "Must be at most {limit} characters; this one has {read}{chars}."
                            ),
                        );
                    }
                }
                continue;
            }
            _ => {}
        }
        at += 1;
    }
    found
}

/// The `maxLength` of each string field of an action's input, by its
/// schema path (`tasks/items/title`; a list's items as `labels/items`),
/// read once per scan rather than once per string.
struct Limits {
    by_path: Vec<(String, usize)>,
    /// The most segments a path of `by_path` has.
    deepest: usize,
}

impl Limits {
    fn of(action: &Action) -> Limits {
        let mut fields = Vec::new();
        walk_properties(action.cached_input_schema(), "", &mut fields);
        let max_length = |schema: &Value| {
            schema["maxLength"]
                .as_u64()
                .and_then(|limit| usize::try_from(limit).ok())
        };
        let mut by_path = Vec::new();
        for (path, schema) in fields {
            if let Some(limit) = max_length(&schema["items"]) {
                by_path.push((format!("{path}/items"), limit));
            }
            if let Some(limit) = max_length(schema) {
                by_path.push((path, limit));
            }
        }
        let deepest = by_path
            .iter()
            .map(|(path, _)| path.split('/').count())
            .max()
            .unwrap_or(0);
        Limits { by_path, deepest }
    }

    /// The limit of the string at the input `path` (`tasks/0/title`).
    fn at(&self, path: &str) -> Option<usize> {
        let wanted = schema_path(path, "");
        let wanted = wanted.trim_end_matches('/');
        self.by_path
            .iter()
            .find(|(p, _)| p == wanted)
            .map(|&(_, limit)| limit)
    }
}

/// The path of the value being read: the keys and indexes of the open
/// objects and arrays; `None` at the top level or with a key not read.
fn path_of(stack: &[Frame]) -> Option<String> {
    let mut path = String::new();
    for frame in stack {
        match frame {
            Frame::Object { key: Some(key), .. } => path = join(&path, key),
            Frame::Array { index } => path = join(&path, &index.to_string()),
            Frame::Object { key: None, .. } => return None,
        }
    }
    (!path.is_empty()).then_some(path)
}

/// The string whose text starts at `start` (after its opening quote): its
/// first [`KEY_BYTES`] bytes as text (escapes kept as written), its length
/// in characters (an escape counts one), the index after it, and whether
/// its closing quote was read.
fn string_at(bytes: &[u8], start: usize) -> (String, usize, usize, bool) {
    let mut chars = 0;
    let mut at = start;
    while at < bytes.len() {
        match bytes[at] {
            b'"' => {
                let text = &bytes[start..at.min(start + KEY_BYTES)];
                return (
                    String::from_utf8_lossy(text).into_owned(),
                    chars,
                    at + 1,
                    true,
                );
            }
            // `\uXXXX` is one character, but for the first half of a
            // surrogate pair (`\uD83D\uDE00` is one); any other escape
            // is two bytes.
            b'\\' if bytes.get(at + 1) == Some(&b'u') => {
                let high = bytes.get(at + 2..at + 4).is_some_and(|half| {
                    half[0].eq_ignore_ascii_case(&b'd')
                        && matches!(half[1].to_ascii_lowercase(), b'8'..=b'b')
                });
                at += 6;
                if high {
                    continue;
                }
            }
            b'\\' => at += 2,
            // A UTF-8 character's first byte (continuation bytes are
            // 0b10xxxxxx).
            byte if byte & 0xC0 != 0x80 => at += 1,
            _ => {
                at += 1;
                continue;
            }
        }
        chars += 1;
    }
    let text = &bytes[start..bytes.len().min(start + KEY_BYTES)];
    (
        String::from_utf8_lossy(text).into_owned(),
        chars,
        bytes.len(),
        false,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::find;
    use crate::validate::schema_at;

    #[test]
    fn a_string_over_its_fields_limit_is_named_by_its_path() {
        let create = find("task", "create").unwrap();
        let long = "é".repeat(30_000);
        // Whole, and cut off inside the string (at least what was read).
        let input = format!(
            r#"{{"channel": "eng", "tasks": [{{"title": "a \"quoted\" title, [not a list]"}}, {{"title": "b", "description": "{long}"}}]}}"#
        );
        let max_length = |path| {
            schema_at(create, path).unwrap()["maxLength"]
                .as_u64()
                .unwrap()
        };
        let found = oversized_strings(create, input.as_bytes());
        let limit = max_length("tasks/1/description");
        assert!(limit < 30_000, "{limit}");
        assert_eq!(
            found,
            FieldErrors::from([(
                "tasks/1/description".to_string(),
                format!("Must be at most {limit} characters; this one has 30000.")
            )])
        );
        let cut = &input.as_bytes()[..input.len() - 1_004];
        let found = oversized_strings(create, cut);
        assert_eq!(
            found["tasks/1/description"],
            format!("Must be at most {limit} characters; this one has at least 29500.")
        );
        // Escapes count one character each (a surrogate pair one in all),
        // a key is no value, and what is within its limit, or has none,
        // is not said.
        let escaped = format!(
            r#"{{"channel": "eng", "tasks": [{{"title": "{}", "description": "ok"}}]}}"#,
            r"\u00e9\n\uD83D\ude00".repeat(100)
        );
        let found = oversized_strings(create, escaped.as_bytes());
        let title = max_length("tasks/0/title");
        assert!(title < 300, "{title}");
        assert_eq!(
            found["tasks/0/title"],
            format!("Must be at most {title} characters; this one has 300.")
        );
        assert_eq!(found.len(), 1, "{found:?}");
        // A long list of short strings: nothing to name.
        let many = format!(
            r#"{{"channel": "eng", "tasks": [{}]}}"#,
            vec![r#"{"title": "t"}"#; 1000].join(",")
        );
        assert!(oversized_strings(create, many.as_bytes()).is_empty());
    }
}
