//! Result budgets (§8.3), held by both binaries with the same code: the
//! runtime's store fits each answer it builds ([`fit_items`] for a list page,
//! an action's own [`Fit`] for a detail), and the CLI holds any server's answer to the
//! action's [`BudgetClass`](crate::registry::BudgetClass) with
//! [`fit_answer`], so a server that sends more than the budget is cut
//! explicitly (`meta.truncated: true`) instead of passed through.

use serde_json::{Map, Value, json};

/// Room kept for the envelope (`{"data": …, "meta": {…}}`) and a cursor
/// around `data`, so the whole printed document stays within the budget.
pub const ENVELOPE_RESERVE: usize = 1024;

/// The marker a cut text ends with.
pub const CUT_MARKER: &str = " … [truncated by the result budget]";

/// The compact JSON size of `value` in bytes, counted as it is written
/// rather than written into a buffer: a task.get measures its detail
/// against the budget on every request.
pub fn json_len(value: &Value) -> usize {
    serialized_len(value)
}

/// The compact JSON size of any serializable value (a `&str` as a JSON
/// string, quotes included).
pub fn serialized_len<T: serde::Serialize + ?Sized>(value: &T) -> usize {
    let mut counter = Counter(0);
    serde_json::to_writer(&mut counter, value).map_or(usize::MAX, |()| counter.0)
}

/// A writer that only counts the bytes written to it.
struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// How many of the leading items of `sizes` (each an item's JSON size)
/// fit in `room` bytes after `used` bytes of the rest of the page: a comma
/// each after the first, and always at least one, so a page always makes
/// progress.
pub fn fit_items(used: usize, sizes: impl IntoIterator<Item = usize>, room: usize) -> usize {
    let mut used = used;
    let mut kept = 0;
    for size in sizes {
        let size = size + 1;
        if kept > 0 && used + size > room {
            break;
        }
        used += size;
        kept += 1;
    }
    kept
}

/// The bytes serde_json writes for `c` inside a string.
pub fn char_json_len(c: char) -> usize {
    match c {
        '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
        c if u32::from(c) < 0x20 => 6,
        c => c.len_utf8(),
    }
}

/// Drops the last elements of the array in `slot`, keeping its first
/// `keep`, until about `over` bytes are freed (one pass, not one
/// serialisation per element); false when there is nothing to drop.
pub fn drop_tail(slot: &mut Value, over: usize, keep: usize) -> bool {
    let Some(items) = slot.as_array_mut() else {
        return false;
    };
    if items.len() <= keep {
        return false;
    }
    let mut freed = 0;
    while freed < over && items.len() > keep {
        let Some(item) = items.pop() else { break };
        freed += json_len(&item) + 1;
    }
    true
}

/// `halve` of every string within `slot` (a list's items and their
/// fields); false when none was long enough to cut.
pub fn halve_all(slot: &mut Value) -> bool {
    match slot {
        Value::String(_) => halve(slot),
        Value::Array(items) => items
            .iter_mut()
            .fold(false, |cut, item| halve_all(item) | cut),
        Value::Object(fields) => fields
            .values_mut()
            .fold(false, |cut, field| halve_all(field) | cut),
        _ => false,
    }
}

/// Cuts the string in `slot` to half its characters plus the marker;
/// false when it is not a string or too short to be worth cutting.
fn halve(slot: &mut Value) -> bool {
    let Some(text) = slot.as_str() else {
        return false;
    };
    // A string cut before is cut again before its marker, so each cut
    // shortens it and a loop of cuts ends.
    let text = text.strip_suffix(CUT_MARKER).unwrap_or(text);
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= 40 {
        return false;
    }
    let mut cut: String = chars[..chars.len() / 2].iter().collect();
    cut.push_str(CUT_MARKER);
    *slot = json!(cut);
    true
}

/// The last resort for a value no shape-aware cut brought within `room`:
/// repeatedly halves the longest long string (ending it in the marker);
/// then, once, cuts every string that takes more than [`WORDY`] bytes as
/// JSON to its first 40 characters, so that a receipt of many items (a
/// create's fifty tasks with long, escape-heavy titles) keeps every item
/// rather than lose some; then drops the last half of every list of
/// several that holds no such list itself, all in one pass (lists inside
/// items before the items: every item of a batch's answer is the result of
/// one), else halves any string past 40 characters, until it fits or
/// nothing is left to cut.
fn shrink(value: &mut Value, room: usize) {
    let long_text = |v: &Value| v.as_str().is_some_and(|s| s.len() > 1024);
    // Text still longer than a cut leaves it (40 characters and the marker).
    let text = |v: &Value| {
        v.as_str()
            .is_some_and(|s| s.strip_suffix(CUT_MARKER).unwrap_or(s).chars().count() > 40)
    };
    let mut wordy_cut = false;
    while json_len(value) > room {
        if let Some(slot) = largest(value, &long_text) {
            halve(slot);
        } else if !wordy_cut {
            // One pass over the whole value: linear however many strings.
            wordy_cut = true;
            cut_wordy(value);
        } else if halve_innermost(value) {
            // The innermost lists first, so a list inside each item (a
            // refused claim's `candidates`, advice) is cut before any of
            // the items, each the result of one; all of them in one pass,
            // and half at a time: a hostile answer may hold millions.
        } else if let Some(slot) = largest(value, &text)
            && halve(slot)
        {
            // Shorter each time: a string cut to its marker is not picked
            // for ever.
        } else {
            break;
        }
    }
}

/// Drops the last half of every list of several items inside `value`
/// (itself included) that holds no such list; false when there is none.
fn halve_innermost(value: &mut Value) -> bool {
    /// Whether `value` is or holds a list of several, cutting the
    /// innermost ones as it goes (so a list whose lists were cut is not).
    fn walk(value: &mut Value) -> (bool, bool) {
        match value {
            Value::Array(items) => {
                let (mut inner, mut cut) = (false, false);
                for item in items.iter_mut() {
                    let (many, did) = walk(item);
                    inner |= many;
                    cut |= did;
                }
                if !inner && items.len() > 1 {
                    items.truncate(items.len() / 2);
                    return (true, true);
                }
                (inner || items.len() > 1, cut)
            }
            Value::Object(map) => map.values_mut().fold((false, false), |(m, c), v| {
                let (many, did) = walk(v);
                (m || many, c || did)
            }),
            _ => (false, false),
        }
    }
    walk(value).1
}

/// The JSON size past which a string is cut by [`cut_wordy`].
const WORDY: usize = 128;

/// Cuts every string inside `value` whose JSON takes more than [`WORDY`]
/// bytes to its first 40 characters and the marker.
fn cut_wordy(value: &mut Value) {
    match value {
        Value::String(text) if serialized_len(text.as_str()) > WORDY => {
            let mut cut: String = text.chars().take(40).collect();
            cut.push_str(CUT_MARKER);
            *text = cut;
        }
        Value::Array(items) => items.iter_mut().for_each(cut_wordy),
        Value::Object(map) => map.values_mut().for_each(cut_wordy),
        _ => {}
    }
}

/// The largest value inside `value` (itself included) that `wanted`
/// accepts, by JSON size.
fn largest<'v>(value: &'v mut Value, wanted: &dyn Fn(&Value) -> bool) -> Option<&'v mut Value> {
    #[derive(Clone)]
    enum Step {
        Key(String),
        Index(usize),
    }
    fn find(
        value: &Value,
        wanted: &dyn Fn(&Value) -> bool,
        path: &mut Vec<Step>,
        best: &mut Option<(usize, Vec<Step>)>,
    ) {
        if wanted(value) {
            let size = json_len(value);
            if best.as_ref().is_none_or(|(b, _)| size > *b) {
                *best = Some((size, path.clone()));
            }
        }
        match value {
            Value::Object(map) => {
                for (key, child) in map {
                    path.push(Step::Key(key.clone()));
                    find(child, wanted, path, best);
                    path.pop();
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    path.push(Step::Index(i));
                    find(child, wanted, path, best);
                    path.pop();
                }
            }
            _ => {}
        }
    }
    let mut best = None;
    find(value, wanted, &mut Vec::new(), &mut best);
    let (_, path) = best?;
    let mut slot = value;
    for step in path {
        slot = match step {
            Step::Key(key) => slot.get_mut(&key)?,
            Step::Index(i) => slot.get_mut(i)?,
        };
    }
    Some(slot)
}

/// A server's answer after [`fit_answer`].
#[derive(Debug, PartialEq)]
pub enum Fitted {
    /// Within the budget, unchanged.
    Whole,
    /// A list page whose items were cut to the first `kept`: its
    /// `next_cursor` (the server's, past items no longer here) is removed,
    /// so the caller can ask again for exactly `kept` items to continue.
    Page { kept: usize },
    /// Anything else, cut in place.
    Cut,
}

/// An action's own way to cut its `data` to a budget in bytes, the least
/// essential first (`Action::fit`; a task's detail: its sections, then its
/// longest texts). It may set `truncated: true` on what it returns.
pub type Fit = fn(Value, usize) -> Value;

/// Holds a decoded answer (`data`, `meta`) to `budget` bytes, however
/// large the server sent it. A page (`data.items`) keeps the items that fit;
/// an object is cut by the action's own `fit`, when it has one; whatever is
/// still too large by the generic last resort. Any cut sets
/// `meta.truncated: true`.
pub fn fit_answer(
    data: &mut Value,
    meta: &mut Map<String, Value>,
    budget: usize,
    fit: Option<Fit>,
) -> Fitted {
    let room = budget.saturating_sub(ENVELOPE_RESERVE);
    let size = |data: &Value, meta: &Map<String, Value>| {
        json_len(data) + json_len(&Value::Object(meta.clone()))
    };
    if size(data, meta) <= room {
        return Fitted::Whole;
    }
    meta.insert("truncated".into(), json!(true));
    let mut fitted = Fitted::Cut;
    if let Some(items) = data.get("items").and_then(Value::as_array) {
        let rest = {
            let mut shell = data.clone();
            shell["items"] = json!([]);
            json_len(&shell) + json_len(&Value::Object(meta.clone()))
        };
        let kept = fit_items(rest, items.iter().map(json_len), room);
        if kept < items.len() {
            meta.remove("next_cursor");
            data["items"]
                .as_array_mut()
                .expect("checked above")
                .truncate(kept);
            fitted = Fitted::Page { kept };
        }
    } else if let Some(fit) = fit
        && data.is_object()
    {
        let room_for_data = budget.saturating_sub(json_len(&Value::Object(meta.clone())));
        *data = fit(std::mem::take(data), room_for_data);
        if let Some(Value::Bool(true)) = data.as_object_mut().and_then(|d| d.remove("truncated")) {
            meta.insert("truncated".into(), json!(true));
        }
    }
    let data_room = room.saturating_sub(json_len(&Value::Object(meta.clone())));
    shrink(data, data_room);
    fitted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_len_counts_the_bytes_serde_json_writes() {
        for value in [
            json!(null),
            json!({}),
            json!({"title": "quote \" backslash \\ tab \t bell \u{7} é 漢 🎉", "n": [1, -2.5, true]}),
            json!({"items": [{"a": {"b": []}}, "x".repeat(5000)]}),
        ] {
            assert_eq!(
                json_len(&value),
                serde_json::to_vec(&value).unwrap().len(),
                "{value}"
            );
        }
    }

    /// A create's receipt of fifty tasks whose titles escape to more than
    /// the budget keeps every task (its number above all), their titles
    /// cut, and says it was cut.
    #[test]
    fn a_receipt_of_many_wordy_items_keeps_every_item() {
        let title = "\u{1}".repeat(200);
        let tasks: Vec<Value> = (1..=50)
            .map(|n| {
                json!({"number": n, "channel": "eng", "scope_id": format!("tsk_{n:032}"),
                       "title": title, "status": "todo", "priority": "none", "assignee": null,
                       "parent_number": null, "created_by": "@alice",
                       "created_at": "2026-12-02T06:00:00.000000Z",
                       "updated_at": "2026-12-02T06:00:00.000000Z"})
            })
            .collect();
        let mut data = json!({"tasks": tasks, "reused": false});
        let mut meta = Map::new();
        let budget = 64 * 1024;
        assert!(json_len(&data) > budget);
        fit_answer(&mut data, &mut meta, budget, None);
        assert_eq!(meta.get("truncated"), Some(&json!(true)));
        let kept = data["tasks"].as_array().unwrap();
        assert_eq!(kept.len(), 50);
        assert_eq!(kept[49]["number"], 50);
        assert!(kept[0]["title"].as_str().unwrap().ends_with(CUT_MARKER));
        assert!(json_len(&data) + json_len(&Value::Object(meta)) <= budget);
    }

    /// A set_claim's failures, each with candidates whose titles escape to
    /// more than the budget: every failure is kept (the result of a number
    /// the caller sent), their candidates cut first.
    #[test]
    fn every_item_of_a_batch_is_kept_before_its_advice() {
        let title = "\u{1}".repeat(200);
        let failures: Vec<Value> = (1000..1050)
            .map(|n| {
                let candidates: Vec<Value> = (1..=5)
                    .map(|c| json!({"field": "numbers", "value": c, "title": title}))
                    .collect();
                json!({"number": n, "code": "task_not_found",
                       "message": format!("No live task #{n} on board `big`."),
                       "candidates": candidates})
            })
            .collect();
        let mut data =
            json!({"claimed": true, "updated_count": 0, "tasks": [], "failures": failures});
        let mut meta = Map::new();
        let budget = 64 * 1024;
        assert!(json_len(&data) > budget);
        fit_answer(&mut data, &mut meta, budget, None);
        assert_eq!(meta.get("truncated"), Some(&json!(true)));
        let kept = data["failures"].as_array().unwrap();
        assert_eq!(kept.len(), 50);
        assert_eq!(kept[49]["number"], 1049);
        assert!(!kept[49]["candidates"].as_array().unwrap().is_empty());
        assert!(json_len(&data) + json_len(&Value::Object(meta)) <= budget);
    }

    #[test]
    fn fit_items_keeps_a_prefix_and_always_one() {
        assert_eq!(fit_items(10, [10, 10, 10], 100), 3);
        assert_eq!(fit_items(10, [30, 30, 30], 75), 2);
        assert_eq!(
            fit_items(10, [500, 1], 100),
            1,
            "the first item always goes"
        );
        assert_eq!(fit_items(0, [], 100), 0);
    }

    #[test]
    fn an_answer_within_budget_is_untouched() {
        let mut data = json!({"items": [{"n": 1}]});
        let mut meta = Map::new();
        assert_eq!(
            fit_answer(&mut data, &mut meta, 64 * 1024, None),
            Fitted::Whole
        );
        assert_eq!(data, json!({"items": [{"n": 1}]}));
        assert!(meta.is_empty());
    }

    #[test]
    fn an_oversized_page_keeps_the_items_that_fit_and_drops_the_servers_cursor() {
        let item = json!({"title": "x".repeat(1000)});
        let mut data = json!({"items": vec![item; 200]});
        let mut meta = Map::new();
        meta.insert("next_cursor".into(), json!("c_server"));
        let budget = 64 * 1024;
        let Fitted::Page { kept } = fit_answer(&mut data, &mut meta, budget, None) else {
            panic!("a page")
        };
        assert!(kept > 10 && kept < 200, "{kept}");
        assert_eq!(data["items"].as_array().unwrap().len(), kept);
        assert_eq!(meta.get("truncated"), Some(&json!(true)));
        assert!(meta.get("next_cursor").is_none());
        assert!(json_len(&json!({"data": data, "meta": meta})) <= budget);
    }

    #[test]
    fn any_other_answer_is_cut_to_the_budget_with_a_marker() {
        let labels = vec!["a"; 50_000];
        let mut data = json!({"task": {"title": "t".repeat(300_000), "labels": labels}});
        let mut meta = Map::new();
        let budget = 64 * 1024;
        assert_eq!(fit_answer(&mut data, &mut meta, budget, None), Fitted::Cut);
        assert!(json_len(&json!({"data": data, "meta": meta})) <= budget);
        assert!(
            data["task"]["title"]
                .as_str()
                .unwrap()
                .ends_with(CUT_MARKER)
        );
        assert_eq!(meta.get("truncated"), Some(&json!(true)));
    }

    #[test]
    fn a_characters_json_bytes_are_the_ones_serde_json_writes() {
        for c in (0..0x80u8)
            .map(char::from)
            .chain(['é', '€', '😀', '\u{2028}'])
        {
            assert_eq!(
                char_json_len(c) + 2,
                serialized_len(&c.to_string()),
                "{c:?}"
            );
        }
    }
}
