//! The words of task search, one definition for both engines. SQLite's
//! FTS5 index cuts text with its `unicode61` tokenizer (letters and digits
//! make words; case and diacritics are folded away); PostgreSQL stores the
//! words this module cuts, so the same query matches the same tasks on
//! either engine. A query is every word as a prefix, all of which must match.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Query words beyond this many are ignored.
pub const MAX_QUERY_WORDS: usize = 16;

/// `text` cut into lowercase words without diacritics: `Café-Déjà v2` →
/// `cafe`, `deja`, `v2`.
pub fn words(text: &str) -> Vec<String> {
    let mut folded = String::with_capacity(text.len());
    for ch in text.nfd().filter(|ch| !is_combining_mark(*ch)) {
        folded.extend(ch.to_lowercase());
    }
    folded
        .split(|ch: char| !ch.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// The words a search for `text` requires, at most [`MAX_QUERY_WORDS`];
/// empty when the text has no word at all (only punctuation).
pub fn query_words(text: &str) -> Vec<String> {
    let mut words = words(text);
    words.truncate(MAX_QUERY_WORDS);
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_cut_at_non_alphanumerics_and_folded() {
        let cut = words("Café-DÉJÀ vu: v1.2, naïve_ZOË 東京!");
        assert_eq!(
            cut,
            ["cafe", "deja", "vu", "v1", "2", "naive", "zoe", "東京"]
        );
        assert!(query_words("?!…").is_empty());
        let many = "w ".repeat(40);
        assert_eq!(query_words(&many).len(), MAX_QUERY_WORDS);
    }
}
