//! The words of task search, one definition for both engines. The runtime
//! cuts the text itself and gives each engine the same terms: SQLite's FTS5
//! index (`ascii` tokenizer, which keeps the runtime's words whole) and
//! PostgreSQL's `tsvector` column, so the same query matches the same tasks
//! on either engine.
//!
//! A task is indexed under its words and their English stems (the Snowball
//! stemmer of `rust-stemmers`): `Releases deployed` → `releases`, `releas`,
//! `deployed`, `deploy`. A query needs every one of its words, each found
//! either as a prefix of an indexed word (`rel` finds `release`) or as the
//! stem of an indexed word (`deploying` finds `deployment`: both stem to
//! `deploy`). The stem is matched whole, not as a prefix, so `running`
//! (stem `run`) does not find `runtime`.

use std::sync::LazyLock;

use rust_stemmers::{Algorithm, Stemmer};
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Query words beyond this many are ignored.
pub const MAX_QUERY_WORDS: usize = 16;

static ENGLISH: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

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

/// The English stem of a word from [`words`], when it differs from the
/// word: `releases` → `releas`, `study` → `studi`, `v2` → none.
pub fn stem(word: &str) -> Option<String> {
    let stem = ENGLISH.stem(word);
    (!stem.is_empty() && stem != word).then(|| stem.into_owned())
}

/// One indexed word: the word, and its stem when that differs. Both stand
/// at the word's position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    pub word: String,
    pub stem: Option<String>,
}

/// What the index holds for `text`: each of its [`words`] with its stem.
pub fn terms(text: &str) -> Vec<Term> {
    words(text)
        .into_iter()
        .map(|word| Term {
            stem: stem(&word),
            word,
        })
        .collect()
}

/// `text` as the space-separated terms SQLite's FTS5 index is fed:
/// `Releases out` → `releases releas out`.
pub fn index_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for term in terms(text) {
        for w in std::iter::once(&term.word).chain(&term.stem) {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(w);
        }
    }
    out
}

/// What one query word matches: indexed words it begins (`prefix`), or
/// indexed words and stems equal to its stem (`stem`, when it has one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryWord {
    pub prefix: String,
    pub stem: Option<String>,
}

/// English function words (articles, pronouns, auxiliaries, conjunctions,
/// prepositions, question words), sorted: a query that has other words
/// leaves these out, so `fix the login bug` finds `Login bug` and `how to
/// deploy` finds `Deploy runbook`. Negations and words of direction (`not`,
/// `no`, `up`, `down`, `off`, `out`) carry a task's meaning and stay.
const FUNCTION_WORDS: [&str; 66] = [
    "a", "about", "after", "an", "and", "are", "as", "at", "be", "been", "before", "being", "but",
    "by", "can", "could", "did", "do", "does", "for", "from", "had", "has", "have", "how", "i",
    "if", "in", "into", "is", "it", "its", "me", "my", "of", "on", "onto", "or", "our", "should",
    "so", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this",
    "those", "to", "us", "was", "we", "were", "what", "when", "where", "which", "who", "why",
    "will", "with", "would",
];

/// Whether `word` (from [`words`]) is one of [`FUNCTION_WORDS`].
fn is_function_word(word: &str) -> bool {
    FUNCTION_WORDS.binary_search(&word).is_ok()
}

/// The words a search for `text` requires, at most [`MAX_QUERY_WORDS`]:
/// its words without `FUNCTION_WORDS`, or all of them when it has no
/// other (`the` still finds `The theme`); empty when the text has no word
/// at all (only punctuation).
pub fn query_words(text: &str) -> Vec<QueryWord> {
    // A function word written as a member ref (`@will login`, a member
    // named `will`) names someone: left out, the search would answer
    // everyone's `login`. Kept, it finds what has the word, and an empty
    // page names the member as a filter (`store::hints`). (A word for the
    // caller, `@me`, is refused before any search: `list::check`.)
    let named: Vec<String> = text
        .split_whitespace()
        .filter(|token| token.starts_with('@'))
        .flat_map(words)
        .collect();
    let mut words = words(text);
    if words.iter().any(|w| !is_function_word(w)) {
        words.retain(|w| !is_function_word(w) || named.contains(w));
    }
    words.truncate(MAX_QUERY_WORDS);
    words
        .into_iter()
        .map(|prefix| QueryWord {
            stem: stem(&prefix),
            prefix,
        })
        .collect()
}

/// A search hit's relevance, the same on both engines: for each query
/// word, 2 when it matches a word of the title and 1 when it matches one
/// of the description (as the search matches: a prefix of a word, or the
/// word's stem whole), summed, and negated so that lower comes first as a
/// relevance cursor expects. Ties are broken by number. Each engine writes
/// it in its own SQL over the terms it indexed (`relevance_sql` in each
/// store's `tasks.rs`); `store::tests` holds the engines to one order.
pub const TITLE_WEIGHT: i64 = 2;
/// A description match's share of [`TITLE_WEIGHT`]'s relevance.
pub const DESCRIPTION_WEIGHT: i64 = 1;

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
        assert!(
            FUNCTION_WORDS.is_sorted(),
            "binary_search needs them sorted"
        );
        let prefixes = |text: &str| -> Vec<String> {
            query_words(text).into_iter().map(|w| w.prefix).collect()
        };
        assert_eq!(
            prefixes("Fix the login bug in Safari"),
            ["fix", "login", "bug", "safari"]
        );
        // Written as a member ref, a function word is kept.
        assert_eq!(prefixes("@will login"), ["will", "login"]);
        assert_eq!(prefixes("login will fail"), ["login", "fail"]);
        assert_eq!(prefixes("how to deploy"), ["deploy"]);
        assert_eq!(
            prefixes("does not start"),
            ["not", "start"],
            "a negation stays"
        );
        assert_eq!(
            prefixes("The THE a"),
            ["the", "the", "a"],
            "only function words: all kept"
        );
        let padded = format!("{}{}", "the x ".repeat(10), "y z");
        assert_eq!(
            prefixes(&padded).len(),
            12,
            "function words count toward no bound"
        );
        let many = "w ".repeat(40);
        assert_eq!(query_words(&many).len(), MAX_QUERY_WORDS);
    }

    #[test]
    fn word_forms_share_a_stem() {
        let stems = |words: &[&str]| -> Vec<String> {
            words
                .iter()
                .map(|w| stem(w).unwrap_or_else(|| w.to_string()))
                .collect()
        };
        assert_eq!(stems(&["release", "releases", "released"]), ["releas"; 3]);
        assert_eq!(
            stems(&["deploying", "deployment", "deployed", "deploy"]),
            ["deploy"; 4]
        );
        assert_eq!(stems(&["studies", "study"]), ["studi"; 2]);
        assert_eq!(stem("v2"), None);
        assert_eq!(stem("東京"), None);
        assert_eq!(stem("2"), None);
    }

    #[test]
    fn the_index_holds_words_and_differing_stems_and_queries_keep_the_word() {
        assert_eq!(index_text("Releases: v2, Café"), "releases releas v2 cafe");
        assert_eq!(index_text("?!"), "");
        assert_eq!(
            query_words("Deploying rel"),
            [
                QueryWord {
                    prefix: "deploying".into(),
                    stem: Some("deploy".into())
                },
                QueryWord {
                    prefix: "rel".into(),
                    stem: None
                },
            ]
        );
    }
}
