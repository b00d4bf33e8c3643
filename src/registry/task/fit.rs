//! How a task's detail is cut to its result budget (§8.3): the detail's
//! own order of what matters least, given to the CLI and the runtime as
//! `task_get`'s [`Fit`](crate::budget::Fit) (`Action::fit`), so that the
//! budget's plumbing knows no task field.

use serde_json::{Value, json};

use crate::budget::{
    CUT_MARKER, ENVELOPE_RESERVE, char_json_len, drop_tail, halve_all, json_len, serialized_len,
};

/// Room kept in a task detail for its sections' `next` calls, which the
/// store adds after the cuts (`link_sections`): a channel name, a cursor and
/// the fixed arguments stay well under this.
pub const LINKS_RESERVE: usize = 640;

/// One task detail held to `budget` bytes (§8.3), cutting the least
/// essential first: subtask summaries, then the oldest checkpoints but the
/// newest (each section keeps `total`, says `truncated: true`, and gets a
/// `next` call that reads the rest), then the description's tail down to
/// its first `DESCRIPTION_FLOOR` characters (ending in a visible
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
    // Only an object is a detail (a server may send anything): the rest is
    // the generic cuts' (`budget::fit_answer`).
    if json_len(&detail) <= room || !detail.is_object() {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::{Fitted, fit_answer};
    use serde_json::Map;

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
        assert_eq!(
            fit_answer(&mut data, &mut meta, budget, Some(fit_detail)),
            Fitted::Cut
        );
        assert_eq!(data["checkpoints"]["truncated"], json!(true));
        assert_eq!(data["checkpoints"]["total"], json!(400));
        assert_eq!(data["description"], json!("d"), "the section went first");
        assert!(data.get("truncated").is_none(), "the flag moves to meta");
        assert_eq!(meta.get("truncated"), Some(&json!(true)));
        assert!(json_len(&json!({"data": data, "meta": meta})) <= budget);
    }
}
