//! Result budgets (§8.3), held by both binaries with the same code: the
//! runtime's store fits each answer it builds ([`fit_items`] for a list page,
//! [`fit_detail`] for a task), and the CLI holds any server's answer to the
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

fn serialized_len<T: serde::Serialize + ?Sized>(value: &T) -> usize {
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

/// Room kept in a task detail for its sections' `next` calls, which the
/// store adds after the cuts (`link_sections`): a channel name, a cursor and
/// the fixed arguments stay well under this.
pub const LINKS_RESERVE: usize = 640;

/// One task detail held to `budget` bytes (§8.3), cutting the least
/// essential first: subtask summaries, then the oldest checkpoints but the
/// newest (each section keeps `total`, says `truncated: true`, and gets a
/// `next` call that reads the rest), then the description's tail down to
/// its first [`DESCRIPTION_FLOOR`] characters (ending in a visible
/// marker), then the strings of attachments, URLs and checklist items
/// (each cut one ending in the marker, every item kept), then the rest of
/// the description, and only then trailing items. Any cut sets `truncated: true`, which the CLI shows as
/// `meta.truncated`. Schema bounds make the last steps reachable only with
/// pathological input (every field at its maximum of escaped characters).
///
/// The newest checkpoint stays: the section's `next` reads the checkpoints
/// older than the oldest one shown, so a section cut to nothing would name
/// this very call again, and an agent following it would loop. Within the
/// schema's bounds one checkpoint always fits beside the rest once the
/// description and lists are cut; only past them is it dropped at the end.
pub fn fit_detail(mut detail: Value, budget: usize) -> Value {
    let room = budget.saturating_sub(ENVELOPE_RESERVE + LINKS_RESERVE);
    if json_len(&detail) <= room {
        return detail;
    }
    // Set first, so that every cut below counts its bytes.
    detail["truncated"] = json!(true);
    for (section, keep) in [("subtasks", 0), ("checkpoints", 1)] {
        while json_len(&detail) > room {
            let over = json_len(&detail) - room;
            if !drop_tail(&mut detail[section]["items"], over, keep) {
                break;
            }
            detail[section]["truncated"] = json!(true);
        }
    }
    // The description is what an agent reads first: its tail goes, but its
    // first DESCRIPTION_FLOOR characters stay until the lists' strings
    // have given what they can.
    cut_description(&mut detail, room, DESCRIPTION_FLOOR);
    // The lists keep every item, their long strings cut with the marker
    // (a list that only loses items would look complete); only if that is
    // not enough do trailing items go.
    for field in ["attachments", "urls", "checklist"] {
        while json_len(&detail) > room && halve_all(&mut detail[field]) {}
    }
    cut_description(&mut detail, room, 0);
    for field in ["attachments", "urls", "checklist"] {
        while json_len(&detail) > room {
            let over = json_len(&detail) - room;
            if !drop_tail(&mut detail[field], over, 0) {
                break;
            }
        }
    }
    // Past the schema's bounds only (a server's own data): the budget wins.
    while json_len(&detail) > room {
        let over = json_len(&detail) - room;
        if !drop_tail(&mut detail["checkpoints"]["items"], over, 0) {
            break;
        }
        detail["checkpoints"]["truncated"] = json!(true);
    }
    detail
}

/// The characters of a description kept while the lists' strings can
/// still be cut (as many as a checkpoint's summary may have).
const DESCRIPTION_FLOOR: usize = 4000;

/// Cuts the tail of `detail`'s description, ending it in the marker, by
/// as much as brings `detail` within `room`, keeping at least its first
/// `floor` characters; nothing when it fits, or when the description is no
/// longer than `floor`.
fn cut_description(detail: &mut Value, room: usize, floor: usize) {
    let over = json_len(detail).saturating_sub(room);
    let Some(text) = detail["description"].as_str().filter(|_| over > 0) else {
        return;
    };
    let now = serialized_len(text);
    let text = text.strip_suffix(CUT_MARKER).unwrap_or(text);
    // The prefix's bytes as JSON, so that it and the marker fit.
    let wanted = now.saturating_sub(over + serialized_len(CUT_MARKER));
    let mut used = 0;
    let fits = text
        .char_indices()
        .find(|&(_, c)| {
            used += char_json_len(c);
            used > wanted
        })
        .map_or(text.len(), |(at, _)| at);
    let floor = text
        .char_indices()
        .nth(floor)
        .map_or(text.len(), |(at, _)| at);
    let end = fits.max(floor);
    if end < text.len() {
        detail["description"] = json!(format!("{}{CUT_MARKER}", &text[..end]));
    }
}

/// The bytes serde_json writes for `c` inside a string.
fn char_json_len(c: char) -> usize {
    match c {
        '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
        c if u32::from(c) < 0x20 => 6,
        c => c.len_utf8(),
    }
}

/// Drops the last elements of the array in `slot`, keeping its first
/// `keep`, until about `over` bytes are freed (one pass, not one
/// serialisation per element); false when there is nothing to drop.
fn drop_tail(slot: &mut Value, over: usize, keep: usize) -> bool {
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

/// [`halve`] of every string within `slot` (a list's items and their
/// fields); false when none was long enough to cut.
fn halve_all(slot: &mut Value) -> bool {
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
/// rather than lose some; then drops the last element of the largest array
/// that has more than one, else halves any string past 40 characters, until
/// it fits or nothing is left to cut.
fn shrink(value: &mut Value, room: usize) {
    let long_text = |v: &Value| v.as_str().is_some_and(|s| s.len() > 1024);
    let many = |v: &Value| v.as_array().is_some_and(|a| a.len() > 1);
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
        } else if let Some(Value::Array(items)) = largest(value, &many) {
            // Half at a time: a hostile answer may hold millions.
            items.truncate(items.len() / 2);
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

/// Holds a decoded answer (`data`, `meta`) to `budget` bytes, however
/// large the server sent it. A page (`data.items`) keeps the items that fit;
/// a task detail is cut by [`fit_detail`]; whatever is still too large by
/// the generic last resort. Any cut sets `meta.truncated: true`.
pub fn fit_answer(data: &mut Value, meta: &mut Map<String, Value>, budget: usize) -> Fitted {
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
    } else if data.get("number").is_some() && data.get("subtasks").is_some() {
        let room_for_data = budget.saturating_sub(json_len(&Value::Object(meta.clone())));
        *data = fit_detail(std::mem::take(data), room_for_data);
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
        fit_answer(&mut data, &mut meta, budget);
        assert_eq!(meta.get("truncated"), Some(&json!(true)));
        let kept = data["tasks"].as_array().unwrap();
        assert_eq!(kept.len(), 50);
        assert_eq!(kept[49]["number"], 50);
        assert!(kept[0]["title"].as_str().unwrap().ends_with(CUT_MARKER));
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
        assert_eq!(fit_answer(&mut data, &mut meta, 64 * 1024), Fitted::Whole);
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
        let Fitted::Page { kept } = fit_answer(&mut data, &mut meta, budget) else {
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
        assert_eq!(fit_answer(&mut data, &mut meta, budget), Fitted::Cut);
        assert!(json_len(&json!({"data": data, "meta": meta})) <= budget);
        assert!(
            data["task"]["title"]
                .as_str()
                .unwrap()
                .ends_with(CUT_MARKER)
        );
        assert_eq!(meta.get("truncated"), Some(&json!(true)));
    }

    /// Checkpoints big enough to crowd out the rest (each summary 4,000
    /// control characters, six JSON bytes each, as the schema allows) keep
    /// the newest: a section cut to nothing would make its `next` this
    /// same call, read again and again.
    #[test]
    fn a_detail_keeps_its_newest_checkpoint_and_cuts_the_description_instead() {
        let wide = |n: usize| "\u{1}".repeat(n);
        let checkpoints: Vec<Value> = (0..7)
            .rev()
            .map(|i| json!({"id": i, "summary": wide(4000)}))
            .collect();
        let checklist: Vec<Value> = (0..50).map(|_| json!({"text": wide(500)})).collect();
        let attachments: Vec<Value> = (0..20)
            .map(|_| json!({"name": wide(200), "url": format!("https://e.com/{}", "a".repeat(1980))}))
            .collect();
        let detail = json!({"number": 1, "title": "t", "description": wide(10_000),
            "checklist": checklist, "attachments": attachments, "blocker": wide(1000),
            "subtasks": {"items": [], "total": 0, "truncated": false},
            "checkpoints": {"items": checkpoints, "total": 7, "truncated": false}});
        let budget = 256 * 1024;
        let cut = fit_detail(detail, budget);
        assert_eq!(cut["checkpoints"]["truncated"], json!(true));
        let kept: Vec<&Value> = cut["checkpoints"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|item| &item["id"])
            .collect();
        assert_eq!(kept, [&json!(6)], "the newest checkpoint stays");
        assert!(
            cut["description"].as_str().unwrap().ends_with(CUT_MARKER),
            "the description gave way"
        );
        assert!(json_len(&cut) <= budget - ENVELOPE_RESERVE - LINKS_RESERVE);
    }

    /// A task detail with every field at its schema bound, each character
    /// `unit` (a URL after its scheme and host), and no sections.
    fn a_task_at_its_bounds_of(unit: &str) -> Value {
        let wide = |n: usize| unit.repeat(n);
        let url = || format!("https://e.com/{}", wide(1980));
        json!({"number": 1, "title": wide(200), "description": wide(10_000),
            "checklist": (0..50).map(|_| json!({"text": wide(500), "done": false})).collect::<Vec<_>>(),
            "urls": (0..20).map(|_| url()).collect::<Vec<_>>(),
            "attachments": (0..20).map(|_| json!({"name": wide(200), "url": url(), "media_type": wide(100)})).collect::<Vec<_>>(),
            "blocker": wide(1000),
            "subtasks": {"items": [], "total": 0, "truncated": false},
            "checkpoints": {"items": [], "total": 0, "truncated": false}})
    }

    /// Lists at their bounds of escaped characters (the audit's task: 20
    /// URLs and 20 attachments of 2,000) keep every item, each cut string
    /// ending in the marker: a list that only lost items would look whole.
    #[test]
    fn a_detail_cuts_its_lists_strings_before_their_items() {
        let detail = a_task_at_its_bounds_of("\u{1}");
        let budget = 256 * 1024;
        let cut = fit_detail(detail, budget);
        assert!(json_len(&cut) <= budget - ENVELOPE_RESERVE - LINKS_RESERVE);
        for field in ["urls", "attachments"] {
            let items = cut[field].as_array().unwrap();
            assert_eq!(items.len(), 20, "{field} kept every item");
            assert!(items[19].to_string().contains(CUT_MARKER.trim()), "{field}");
        }
        assert_eq!(cut["checklist"].as_array().unwrap().len(), 50);
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

    /// The conformance audit's task: every field at its bound of four-byte
    /// characters (490 KB). The description kept nothing before; now its
    /// first 4,000 characters stay, and the lists' strings give the rest.
    #[test]
    fn a_detail_of_wide_text_keeps_the_head_of_its_description() {
        let detail = a_task_at_its_bounds_of("😀");
        let description = detail["description"].as_str().unwrap().to_string();
        let budget = 256 * 1024;
        let cut = fit_detail(detail, budget);
        assert!(json_len(&cut) <= budget - ENVELOPE_RESERVE - LINKS_RESERVE);
        let kept = cut["description"].as_str().unwrap();
        let head = kept.strip_suffix(CUT_MARKER).unwrap();
        assert!(description.starts_with(head));
        assert_eq!(head.chars().count(), DESCRIPTION_FLOOR);
        assert_eq!(cut["checklist"].as_array().unwrap().len(), 50);
    }

    /// A detail a little over its room loses only the description's tail,
    /// as much as it must and no more; the lists stay whole.
    #[test]
    fn a_detail_just_over_its_room_loses_only_the_descriptions_tail() {
        let room = 256 * 1024 - ENVELOPE_RESERVE - LINKS_RESERVE;
        let checklist: Vec<Value> = (0..50)
            .map(|_| json!({"text": "c".repeat(500), "done": false}))
            .collect();
        let urls: Vec<Value> = (0..20)
            .map(|_| json!(format!("https://e.com/{}", "u".repeat(1980))))
            .collect();
        let mut detail = json!({"number": 1, "title": "t", "description": "",
            "checklist": checklist.clone(), "urls": urls.clone(),
            "subtasks": {"items": [], "total": 0, "truncated": false},
            "checkpoints": {"items": [], "total": 0, "truncated": false}});
        // Quoted, escaped and plain characters, 3,000 bytes over.
        let fill = room - json_len(&detail) + 3000;
        let unit = "a\"é\n";
        let description = unit.repeat(fill / (serialized_len(unit) - 2) + 1);
        detail["description"] = json!(description);
        let cut = fit_detail(detail, 256 * 1024);
        let size = json_len(&cut);
        assert!(size <= room && size + 8 >= room, "{size} of {room}");
        let head = cut["description"]
            .as_str()
            .unwrap()
            .strip_suffix(CUT_MARKER)
            .unwrap();
        assert!(description.starts_with(head) && head.len() > 4000);
        assert_eq!(cut["checklist"], json!(checklist));
        assert_eq!(cut["urls"], json!(urls));
        assert_eq!(cut["truncated"], json!(true));
    }

    #[test]
    fn a_detail_is_cut_by_its_sections_first() {
        let checkpoints: Vec<Value> = (0..400)
            .map(|i| json!({"id": i, "summary": "s".repeat(1000)}))
            .collect();
        let mut data = json!({"number": 1, "title": "t", "description": "d",
            "subtasks": {"items": [], "total": 0, "truncated": false},
            "checkpoints": {"items": checkpoints, "total": 400, "truncated": false}});
        let mut meta = Map::new();
        let budget = 256 * 1024;
        assert_eq!(fit_answer(&mut data, &mut meta, budget), Fitted::Cut);
        assert_eq!(data["checkpoints"]["truncated"], json!(true));
        assert_eq!(data["checkpoints"]["total"], json!(400));
        assert_eq!(data["description"], json!("d"), "the section went first");
        assert!(data.get("truncated").is_none(), "the flag moves to meta");
        assert_eq!(meta.get("truncated"), Some(&json!(true)));
        assert!(json_len(&json!({"data": data, "meta": meta})) <= budget);
    }
}
