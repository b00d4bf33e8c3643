//! Secrets kept out of what is shown: a word of a command line, an input
//! key or a path that is shaped like a token (`tokens`), and every word
//! of another program's message that could be a secret (`secrets`),
//! replaced by `<redacted>` wherever it stands. Both surfaces use it: the
//! CLI for what it repeats of a command line, a profile or another
//! process's stderr; the runtime for what it repeats of a request.

/// Whether `word` (a run of ASCII letters, digits, `_` and `-`) is shaped
/// like a token typed where it does not belong: 16 or more characters with
/// a letter and a digit, not one of this runtime's ids (`tsk_…`, `ws_…`,
/// …: names, not secrets), and one of: this runtime's `at_` prefix;
/// letters of both cases mixed as random text mixes them
/// ([`random_case`]: a key, a JWT's parts); no lowercase at all (an AWS
/// key id, a base32 seed); or 32 or more characters (a hex key). A name
/// (a dated file, a handle, `SprintPlanning2024`) shows.
fn is_token_like(word: &str) -> bool {
    let has = |test: fn(&char) -> bool| word.chars().any(|c| test(&c));
    // A secret by its issuer's prefix, whatever its letters' case; a JWT's
    // part by the base64 of `{"` that starts its header and payload.
    let charset = word
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "_-".contains(c));
    if charset
        && ((word.len() >= 16 && SECRET_PREFIXES.iter().any(|p| word.starts_with(p)))
            || (word.len() >= 12 && word.starts_with("eyJ")))
    {
        return true;
    }
    word.len() >= 16
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-".contains(c))
        && has(char::is_ascii_alphabetic)
        && has(char::is_ascii_digit)
        && !crate::ids::IdKind::ALL
            .iter()
            .any(|id| word.starts_with(id.prefix()))
        && (word.starts_with(crate::ids::TOKEN_PREFIX)
            || random_case(word)
            || !has(char::is_ascii_lowercase)
            || word.len() >= 32)
}

/// Prefixes issuers give their secrets (GitLab, GitHub, Slack, OpenAI and
/// Anthropic, npm, PyPI, AWS): a word that starts so is one, even in one
/// case of letters.
const SECRET_PREFIXES: [&str; 12] = [
    "glpat-",
    "gldt-",
    "ghp_",
    "gho_",
    "ghs_",
    "github_pat_",
    "xox",
    "sk-",
    "npm_",
    "pypi-",
    "AKIA",
    "ASIA",
];

/// Whether the letters of `word` switch case as random text does: both
/// cases at least twice, and a switch at three in ten neighbouring letters
/// or more (random base64 switches at about half; `SprintPlanning` at one
/// in six).
fn random_case(word: &str) -> bool {
    let letters: Vec<bool> = word
        .chars()
        .filter(char::is_ascii_alphabetic)
        .map(|c| c.is_ascii_uppercase())
        .collect();
    let upper = letters.iter().filter(|u| **u).count();
    let lower = letters.len() - upper;
    let switches = letters.windows(2).filter(|pair| pair[0] != pair[1]).count();
    upper >= 2 && lower >= 2 && switches * 10 >= 3 * (letters.len() - 1)
}

/// Whether `word` (a run of the standard base64 alphabet, `+/=` with
/// letters and digits) is a secret written in it: 24 or more characters
/// holding a `/` or `+`, not starting as an absolute path does, with a
/// digit and letters switching case as random text does (an AWS secret
/// key, an Azure key).
fn base64_secret(word: &str) -> bool {
    word.len() >= 24
        && word.contains(['/', '+'])
        && !word.starts_with('/')
        && word.chars().any(|c| c.is_ascii_digit())
        && random_case(word)
}

/// `text` with every [`is_token_like`] word, and every [`base64_secret`],
/// replaced by `<redacted>`: what a usage error repeats of a command line,
/// where a token may have been typed by mistake. Every run of letters,
/// digits, `_` and `-` is judged, wherever it stands (beside a `/`, a `.`,
/// each part of a JWT), so a token never shows; names show.
pub(crate) fn tokens(text: &str) -> String {
    let text = redact_words(
        text,
        |c| c.is_ascii_alphanumeric() || "+/=_-".contains(c),
        base64_secret,
    );
    redact_words(
        &text,
        |c| c.is_ascii_alphanumeric() || "_-".contains(c),
        is_token_like,
    )
}

/// `line` with every word that could be a secret replaced by `<redacted>`:
/// a run of 16 or more letters (of any script), digits and `_-+=/.:`
/// holding both a letter and a digit (a token, a key, a password),
/// whatever it is a part of.
pub(crate) fn secrets(line: &str) -> String {
    redact_words(
        line,
        |c| c.is_alphanumeric() || "_-+=/.:".contains(c),
        |word| {
            word.chars().count() >= 16
                && word.chars().any(char::is_alphabetic)
                && word.chars().any(|c| c.is_ascii_digit())
                && !names_a_server(word)
        },
    )
}

/// Whether `word` is a server's address as messages name one:
/// `HOST:PORT` or `HOST:PORT/DATABASE`, the host a dotted lowercase name or
/// an IPv4 address (`127.0.0.1:5432/agentteam`, `db.internal:5432`). The
/// one message that says which server failed keeps it.
fn names_a_server(word: &str) -> bool {
    let (address, database) = word.split_once('/').unwrap_or((word, ""));
    let Some((host, port)) = address.split_once(':') else {
        return false;
    };
    host.contains('.')
        && host
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || ".-".contains(c))
        && !port.is_empty()
        && port.len() <= 5
        && port.chars().all(|c| c.is_ascii_digit())
        && database
            .chars()
            .all(|c| c.is_alphanumeric() || "_-.".contains(c))
}

/// `text` with every word (a run of characters `in_word` accepts) that
/// `secret` judges replaced by `<redacted>`, the rest kept as it was. A
/// word's trailing dots and colons are a sentence's, not the word's:
/// judged without them, and kept (`at <redacted>: no such file`).
fn redact_words(
    text: &str,
    in_word: impl Fn(char) -> bool,
    secret: impl Fn(&str) -> bool,
) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let core = word.trim_end_matches(['.', ':']);
        if secret(core) {
            out.push_str("<redacted>");
            out.push_str(&word[core.len()..]);
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in text.chars() {
        if in_word(c) {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line quoted from another program (a credential process's
    /// stderr) hides every word that could be a secret, and keeps a
    /// server's address, which says which server failed.
    #[test]
    fn secrets_are_hidden_and_server_addresses_kept() {
        assert_eq!(
            secrets("refused at_6aEU56b_EptJ67Q_LS32i4Yb (expired 2026-12-01)"),
            "refused <redacted> (expired 2026-12-01)"
        );
        assert_eq!(
            secrets("password=hunter2hunter2hunter2 for /etc/agentteam/creds.json"),
            "<redacted> for /etc/agentteam/creds.json"
        );
        assert_eq!(secrets("password:Секрет1234567890abc"), "<redacted>");
        // A server's address is no secret: the message says which failed.
        assert_eq!(
            secrets("PostgreSQL at at1@127.0.0.1:55499/at1 asks user `at1` for a password"),
            "PostgreSQL at at1@127.0.0.1:55499/at1 asks user `at1` for a password"
        );
        assert_eq!(
            secrets("at db.internal:5432/agentteam."),
            "at db.internal:5432/agentteam."
        );
        for secret in [
            "hunter2hunter2:12345",
            "Ab3.xYz9.Qq:5432/x",
            "a.b:1/c/AbCdEf123456789",
        ] {
            assert!(secrets(secret).contains("<redacted>"), "{secret}");
        }
        // A sentence's colon after a hidden word is kept, so it still reads.
        assert_eq!(
            secrets("Cannot reach al@/tmp/pg:24531/agentteam: No such file"),
            "Cannot reach al@<redacted>: No such file"
        );
    }

    /// A usage error hides a token-shaped word wherever it stands, and
    /// leaves paths, URLs, flags and short words as they were.
    #[test]
    fn a_usage_error_hides_token_shaped_words_only() {
        let token = "at_6aEU56b_EptJ67Q_LS32i4Yb";
        assert_eq!(
            tokens(&format!("unexpected value '{token}' for '--token-stdin'")),
            "unexpected value '<redacted>' for '--token-stdin'"
        );
        assert_eq!(
            tokens(&format!("--token-stdin={token}")),
            "--token-stdin=<redacted>"
        );
        assert_eq!(tokens(&format!("it is {token}.")), "it is <redacted>.");
        // Beside path characters, and each part of a dotted token (a JWT).
        for (given, shown) in [
            (format!("'{token}/'"), "'<redacted>'"),
            (format!("~/{token}.json"), "~/<redacted>.json"),
            (
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U".to_string(),
                "<redacted>.<redacted>.<redacted>",
            ),
            ("ya29.a0AfH6SMBx3kP9vQ2zR7tY1uW4".to_string(), "ya29.<redacted>"),
            (format!("key {}", "0123456789abcdef".repeat(2)), "key <redacted>"),
            // An AWS key id and secret, a base32 seed, an Azure key.
            ("AKIAIOSFODNN7EXAMPLE".to_string(), "<redacted>"),
            // An issuer's prefix in one case of letters; a short JWT's parts.
            ("glpat-k3j9x2m5q8w1z7v4b6n0#2".to_string(), "<redacted>#2"),
            (
                "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.sig".to_string(),
                "<redacted>.<redacted>.sig",
            ),
            ("JBSWY3DPEHPK3PXP".to_string(), "<redacted>"),
            ("'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'".to_string(), "'<redacted>'"),
            (
                "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==".to_string(),
                "<redacted>",
            ),
        ] {
            assert_eq!(tokens(&given), shown);
        }
        for kept in [
            "Cannot open input file /home/me/tasks-2024.json",
            "Cannot open input file /tmp/a/tasks-2024-release.json: No such file",
            "Cannot open input file ./sprint-backlog-2024-q3",
            "No store at /srv/missing-backup-2024-12.db yet",
            "No agent `builder-2024-agent-x` in the workspace",
            "Cannot read input file sprint-2024-backlog-dir",
            "Cannot open input file tsk_9076f1cd8f25db179a79c5b1cf59824f",
            "Cannot open input file ./SprintPlanning2024-Q3/task.json",
            "No profile `Staging-Cluster2024`",
            "Cannot open input file /home/JohnSmith/Projects2024/tasks.json",
            "Cannot open input file src/runtime/store/postgres/target.rs",
            "http://127.0.0.1:8787/api/v1",
            "unexpected argument '--credential-process' found",
            "at_short 3600 agent_mutation",
        ] {
            assert_eq!(tokens(kept), kept);
        }
    }
}
