//! The `--format text` vocabulary: a table, a labelled record and a styled
//! status word, sized to the terminal. Registry entries compose these into
//! their own views (`Action::text`), so the renderer stays domain-free.

use anstyle::Effects;
/// How a piece of text looks: its colour and effects. (anstyle calls it a
/// `Style`; here [`Style`] is what the terminal can show.)
pub use anstyle::Style as Look;
use serde_json::Value;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// The width of text that is never cut (piped, no `COLUMNS`).
const UNCUT: usize = 1 << 16;

/// Table headers and record labels.
pub const HEADING: Look = Look::new().effects(Effects::BOLD);

/// How text may be styled on this terminal.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub width: usize,
    pub color: bool,
}

impl Style {
    /// Colour only on a terminal that takes escapes, and never with
    /// `NO_COLOR` set to anything (an empty value is unset, as
    /// no-color.org says).
    /// Text is cut to the terminal's width; text piped elsewhere only to a
    /// width `COLUMNS` asks for, as gh and kubectl leave piped text whole.
    pub fn detect(stdout_is_terminal: bool) -> Style {
        let columns = || std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok());
        let width = if stdout_is_terminal {
            terminal_size::terminal_size()
                .map(|(w, _)| w.0 as usize)
                .or_else(columns)
                .unwrap_or(100)
        } else {
            columns().unwrap_or(UNCUT)
        }
        .max(40);
        let no_color =
            std::env::var_os(crate::env_vars::NO_COLOR.name).is_some_and(|v| !v.is_empty());
        let color = stdout_is_terminal && !no_color && takes_escapes();
        Style { width, color }
    }

    /// `text` in `look`, when this terminal takes colour.
    pub fn paint(&self, text: &str, look: Look) -> String {
        if self.color && look != Look::new() {
            format!("{}{text}{}", look.render(), look.render_reset())
        } else {
            text.to_string()
        }
    }
}

/// Whether the terminal takes escape sequences: not `TERM=dumb` (Emacs'
/// shell, some CI logs), which shows them as text.
pub fn takes_escapes() -> bool {
    std::env::var_os(crate::env_vars::TERM.name).is_none_or(|term| term != "dumb")
}

/// A character that could drive the terminal or reorder what it shows: the
/// C0 and C1 controls and DEL (ESC starts an escape sequence, BEL rings, CSI
/// is ESC's one-byte form), and Unicode's bidi controls (`Bidi_Control`:
/// the overrides and isolates U+202A–U+202E and U+2066–U+2069, and the
/// marks U+200E, U+200F and U+061C), which make text read in another order
/// than it is stored ("Trojan Source").
fn drives_the_terminal(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
                | '\u{200E}'
                | '\u{200F}'
                | '\u{061C}'
                | '\u{2028}'
                | '\u{2029}'
        )
}

/// Serialized JSON made safe for a terminal, still the same JSON: serde_json
/// escapes only C0 controls, so DEL, C1 controls (a raw U+009B is a CSI on
/// many terminals), bidi overrides and line separators from a task's text
/// would reach the terminal raw; each is written as its `\uXXXX` escape
/// (they occur only inside strings, where the escape means the same
/// character to any JSON reader).
pub fn json_escape_terminal(json: String) -> String {
    if !json.chars().any(drives_the_terminal) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if drives_the_terminal(c) && c != '\n' {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// `text` made safe for a terminal, for text views (JSON keeps its text
/// exact and escapes these instead, [`json_escape_terminal`]): line breaks and tabs become spaces (a view is one line per
/// value), every other control or bidi character its visible escape, e.g.
/// ESC as `\u{1b}`.
pub fn escape(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(drives_the_terminal) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' | '\r' | '\t' => out.push(' '),
            c if drives_the_terminal(c) => out.push_str(&c.escape_unicode().to_string()),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The longest piece of caller input an error message repeats, in characters.
pub const ECHO_LIMIT: usize = 64;

/// `text` cut to at most `max` characters, the cut marked with `…`: how an
/// error message repeats caller input (a field name, a value), so a 300 KB
/// name is not sent back whole.
pub fn clip(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(max) {
        None => std::borrow::Cow::Borrowed(text),
        Some(_) => {
            let keep = max.saturating_sub(1);
            let end = text.char_indices().nth(keep).map_or(text.len(), |(i, _)| i);
            std::borrow::Cow::Owned(format!("{}…", &text[..end]))
        }
    }
}

/// `text` in at most `max` characters, cut in the middle where longer:
/// its start and its end kept, `…` between them. Titles alike at their
/// start (`Investigate the nightly failure on arm64`, `… on x86`) stay
/// told apart by their ends.
pub fn clip_middle(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= max {
        return std::borrow::Cow::Borrowed(text);
    }
    let kept = max.saturating_sub(1);
    let tail = kept / 3;
    // Each cut falls between characters that display apart: never before
    // a combining mark or after a joiner, nor inside a flag's pair.
    let mut head = kept - tail;
    while head > 0 && !breaks_before(&chars, head) {
        head -= 1;
    }
    let mut start = chars.len() - tail;
    while start < chars.len() && !breaks_before(&chars, start) {
        start += 1;
    }
    let head: String = chars[..head].iter().collect();
    let end: String = chars[start..].iter().collect();
    std::borrow::Cow::Owned(format!("{}…{}", head.trim_end(), end.trim_start()))
}

/// Whether `chars` may be cut before index `at`: what precedes and what
/// follows display as characters of their own.
fn breaks_before(chars: &[char], at: usize) -> bool {
    let joins = |c: char| {
        matches!(c,
            '\u{0300}'..='\u{036F}' | '\u{1AB0}'..='\u{1AFF}' | '\u{1DC0}'..='\u{1DFF}'
            | '\u{20D0}'..='\u{20FF}' | '\u{FE00}'..='\u{FE0F}' | '\u{FE20}'..='\u{FE2F}'
            | '\u{200D}' | '\u{1F3FB}'..='\u{1F3FF}' | '\u{E0020}'..='\u{E007F}')
    };
    let regional = |c: &char| ('\u{1F1E6}'..='\u{1F1FF}').contains(c);
    let (Some(&before), Some(&after)) = (chars.get(at.wrapping_sub(1)), chars.get(at)) else {
        return true;
    };
    if joins(after) || before == '\u{200D}' {
        return false;
    }
    // Flags are pairs of regional indicators: a cut falls after an even
    // number of them.
    let run = chars[..at].iter().rev().take_while(|c| regional(c)).count();
    !(regional(&after) && run % 2 == 1)
}

/// A scalar as a person reads it: strings bare (but [`escape`]d), null as `-`.
pub fn scalar(value: &Value) -> String {
    match value {
        Value::Null => "-".into(),
        Value::Array(items) if items.is_empty() => "-".into(),
        Value::String(s) => escape(s).into_owned(),
        Value::Array(items) if items.iter().all(|v| !v.is_object()) => {
            items.iter().map(scalar).collect::<Vec<_>>().join(", ")
        }
        Value::Array(items) => format!("{} item(s)", items.len()),
        other => other.to_string(),
    }
}

/// Truncates to `width` terminal columns, marking the cut with `…`; control
/// and bidi characters are [`escape`]d first.
pub fn truncate(text: &str, width: usize) -> String {
    let one_line = escape(text);
    if one_line.width() <= width {
        return one_line.into_owned();
    }
    let room = width.saturating_sub(1);
    let mut used = 0;
    let mut out = String::new();
    for c in one_line.chars() {
        used += c.width().unwrap_or(0);
        if used > room {
            break;
        }
        out.push(c);
    }
    out.push('…');
    out
}

/// A table of `rows` with `columns`; the last column takes the remaining
/// width and is truncated. `paint(column, value)` may style a cell.
pub fn table(
    rows: &[Value],
    columns: &[&str],
    style: &Style,
    paint: fn(&str, &str) -> Look,
) -> String {
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| columns.iter().map(|c| scalar(&r[*c])).collect())
        .collect();
    let mut widths: Vec<usize> = columns.iter().map(|c| c.width()).collect();
    for row in &cells {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(cell.width());
        }
    }
    let fixed: usize = widths[..columns.len() - 1].iter().map(|w| w + 2).sum();
    let last = style.width.saturating_sub(fixed).max(10);
    let mut out = String::new();
    let header: Vec<String> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| pad(&c.to_uppercase(), widths[i], i + 1 == columns.len()))
        .collect();
    out.push_str(&style.paint(header.join("  ").trim_end(), HEADING));
    out.push('\n');
    for row in &cells {
        let line: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(i, cell)| {
                let is_last = i + 1 == columns.len();
                let text = if is_last {
                    truncate(cell, last)
                } else {
                    pad(cell, widths[i], false)
                };
                style.paint(&text, paint(columns[i], cell))
            })
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// `text` filled with spaces to `width` columns (`format!`'s `{:<width$}`
/// counts chars, and a CJK char or an emoji takes two columns).
fn pad(text: &str, width: usize, last: bool) -> String {
    let fill = if last {
        0
    } else {
        width.saturating_sub(text.width())
    };
    format!("{text}{}", " ".repeat(fill))
}

/// `label: value` lines for the scalar fields of `record`, in its order.
pub fn record(record: &Value, skip: &[&str], style: &Style) -> String {
    let Some(object) = record.as_object() else {
        return scalar(record) + "\n";
    };
    let label_width = object
        .keys()
        .filter(|k| !skip.contains(&k.as_str()))
        .map(|k| k.len())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for (key, value) in object {
        if skip.contains(&key.as_str()) || value.is_object() {
            continue;
        }
        let text = truncate(
            &scalar(value),
            style.width.saturating_sub(label_width + 2).max(20),
        );
        out.push_str(&format!(
            "{}  {text}\n",
            style.paint(&format!("{:<label_width$}", escape(key)), HEADING)
        ));
    }
    out
}

/// No styling for any cell.
pub fn plain(_column: &str, _value: &str) -> Look {
    Look::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_for_a_terminal_carries_no_raw_control_and_means_the_same() {
        let value = serde_json::json!({
            "title": "a\u{9b}31mred\u{7f}\u{202e}txt\u{2028}end\u{1b}[0m",
            "plain": "café ✓",
        });
        for text in [
            serde_json::to_string(&value).unwrap(),
            serde_json::to_string_pretty(&value).unwrap(),
        ] {
            let safe = json_escape_terminal(text);
            assert!(
                !safe.chars().any(|c| drives_the_terminal(c) && c != '\n'),
                "{safe}"
            );
            assert!(
                safe.contains("\\u009b") && safe.contains("café ✓"),
                "{safe}"
            );
            let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
            assert_eq!(back, value);
        }
    }

    #[test]
    fn clip_middle_keeps_both_ends_and_whole_characters() {
        assert_eq!(clip_middle("short", 60), "short");
        let long = format!("{}{}", "a".repeat(50), "b".repeat(50));
        let cut = clip_middle(&long, 60);
        assert_eq!(cut.chars().count(), 60);
        assert!(cut.starts_with('a') && cut.ends_with('b') && cut.contains('…'));
        // Flags (pairs), combining marks and joined emoji are never split.
        let flags = "🇫🇷".repeat(40);
        let cut = clip_middle(&flags, 60);
        let (head, tail) = cut.split_once('…').unwrap();
        for part in [head, tail] {
            assert_eq!(part.chars().count() % 2, 0, "{cut}");
            assert!(
                part.chars()
                    .all(|c| ('\u{1F1E6}'..='\u{1F1FF}').contains(&c))
            );
            assert_eq!(part.replace("🇫🇷", ""), "", "{cut}");
        }
        let marks = "e\u{301}".repeat(40);
        let cut = clip_middle(&marks, 60);
        let (head, tail) = cut.split_once('…').unwrap();
        assert!(
            !tail.starts_with('\u{301}') && head.ends_with('\u{301}'),
            "{cut:?}"
        );
        let family = "👨\u{200D}👩\u{200D}👧".repeat(20);
        let cut = clip_middle(&family, 60);
        let (head, tail) = cut.split_once('…').unwrap();
        assert!(
            !head.ends_with('\u{200D}') && !tail.starts_with('\u{200D}'),
            "{cut:?}"
        );
        assert!(tail.starts_with('👨') && head.ends_with('👧'), "{cut:?}");
        assert!(cut.chars().count() <= 60);
    }

    #[test]
    fn clip_bounds_echoed_input_to_its_limit() {
        assert_eq!(clip("short", 64), "short");
        let exact = "x".repeat(64);
        assert_eq!(clip(&exact, 64), exact);
        let long = "é".repeat(300_000);
        let cut = clip(&long, 64);
        assert_eq!(cut.chars().count(), 64);
        assert!(cut.ends_with('…') && cut.starts_with("éé"), "{cut}");
    }

    #[test]
    fn control_and_bidi_characters_are_shown_escaped() {
        assert_eq!(escape("plain é 中"), "plain é 中");
        assert_eq!(
            escape("a\u{1b}[31mred\u{7}\u{7f}\u{9b}2J\u{85}"),
            "a\\u{1b}[31mred\\u{7}\\u{7f}\\u{9b}2J\\u{85}"
        );
        let marks = ['\u{200E}', '\u{200F}', '\u{061C}'];
        for c in ('\u{202A}'..='\u{202E}')
            .chain('\u{2066}'..='\u{2069}')
            .chain(marks)
        {
            assert_eq!(
                escape(&format!("x{c}y")),
                format!("x\\u{{{:x}}}y", c as u32)
            );
        }
        assert_eq!(escape("a\nb\r\tc"), "a b  c");
        // Every C0, DEL and C1 character is caught.
        for c in (0..0x20u32).chain(0x7f..0xa0).filter_map(char::from_u32) {
            assert!(
                !escape(&c.to_string()).chars().any(char::is_control),
                "{c:?}"
            );
        }
        let row = json!({"title": "\u{1b}]0;owned\u{7}", "number": 1});
        let out = table(
            &[row],
            &["number", "title"],
            &Style {
                width: 80,
                color: false,
            },
            plain,
        );
        assert!(
            !out.contains('\u{1b}') && out.contains("\\u{1b}]0;owned\\u{7}"),
            "{out}"
        );
    }

    #[test]
    fn tables_fit_the_width() {
        let style = Style {
            width: 40,
            color: false,
        };
        let rows = vec![
            json!({"number": 1, "title": "a very long title that will not fit in forty columns at all"}),
        ];
        let out = table(&rows, &["number", "title"], &style, plain);
        assert!(out.lines().all(|l| l.chars().count() <= 40), "{out}");
        assert!(out.contains('…'));
    }

    #[test]
    fn paint_writes_sgr_codes_only_when_colour_is_on() {
        let colour = Style {
            width: 40,
            color: true,
        };
        let green = anstyle::AnsiColor::Green.on_default();
        assert_eq!(colour.paint("done", green), "\x1b[32mdone\x1b[0m");
        assert_eq!(colour.paint("TITLE", HEADING), "\x1b[1mTITLE\x1b[0m");
        assert_eq!(colour.paint("todo", Look::new()), "todo");
        let no_colour = Style {
            color: false,
            ..colour
        };
        assert_eq!(no_colour.paint("done", green), "done");
    }

    /// Wide characters take two columns each: the cut falls by columns,
    /// and the next column starts at the same column on every line.
    #[test]
    fn cjk_and_emoji_cells_are_measured_in_columns() {
        let style = Style {
            width: 40,
            color: false,
        };
        let rows = vec![
            json!({"assignee": "ag_1", "title": "short"}),
            json!({"assignee": "担当者", "title": "日本語のとても長いタスクのタイトルがここに入ります"}),
            json!({"assignee": "🤖 bot", "title": "🚀 launch the rocket, then write up what happened"}),
        ];
        let out = table(&rows, &["assignee", "title"], &style, plain);
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines.iter().all(|l| l.width() <= 40), "{out}");
        let title_column: Vec<usize> = lines
            .iter()
            .zip(["TITLE", "short", "日本語", "🚀"])
            .map(|(line, title)| line[..line.find(title).unwrap()].width())
            .collect();
        assert_eq!(title_column, vec![title_column[0]; 4], "{out}");
        assert_eq!(truncate("日本語", 5), "日本…");
        assert_eq!(truncate("日本語", 6), "日本語");
    }
}
