//! Secrets and identities the runtime mints: bearer tokens (`at_` + 32
//! random bytes, base64url), which are stored only as their SHA-256 and
//! compared in constant time, and the random opaque ids of workspaces,
//! agents, task scopes, workflow runs and callback effects. It depends on
//! nothing else of the runtime; the store and the server call it.

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::error::{Failure, code};
use crate::ids::IdKind;

pub use crate::ids::TOKEN_PREFIX;

/// How long a token lives unless `--ttl` says otherwise: a day.
pub const DEFAULT_TTL: Duration = Duration::from_secs(24 * 3600);
/// The longest lifetime `--ttl` accepts: 90 days.
pub const MAX_TTL: Duration = Duration::from_secs(90 * 24 * 3600);

pub fn micros(duration: Duration) -> i64 {
    i64::try_from(duration.as_micros()).unwrap_or(i64::MAX)
}

/// A token lifetime: seconds, or a number with `s`, `m`, `h` or `d`
/// (`90s`, `15m`, `12h`, `7d`); from 1 s to [`MAX_TTL`].
pub fn parse_ttl(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (digits, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => text.split_at(i),
        None => (text, "s"),
    };
    let scale = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => 0,
    };
    let seconds = digits
        .parse::<u64>()
        .ok()
        .filter(|_| scale > 0)
        .and_then(|n| n.checked_mul(scale))
        .ok_or_else(|| "expected seconds or a number with s, m, h or d, e.g. 15m".to_string())?;
    if seconds == 0 || seconds > MAX_TTL.as_secs() {
        return Err(format!(
            "a token lives from 1 s to {} days",
            MAX_TTL.as_secs() / 86_400
        ));
    }
    Ok(Duration::from_secs(seconds))
}

fn random<const N: usize>() -> Result<[u8; N], Failure> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).map_err(|e| {
        tracing::error!(error = %e, "the OS random source failed");
        Failure::new(code::SERVER_ERROR, "The server could not generate an id.")
    })?;
    Ok(bytes)
}

/// A fresh token and the hash to store for it.
pub fn new_token() -> Result<(String, [u8; 32]), Failure> {
    let token = format!("{TOKEN_PREFIX}{}", URL_SAFE_NO_PAD.encode(random::<32>()?));
    let hash = hash_token(&token);
    Ok((token, hash))
}

pub fn hash_token(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// Constant-time equality, so a lookup hit cannot be told from a near miss by timing.
pub fn hashes_match(stored: &[u8], presented: &[u8; 32]) -> bool {
    stored.ct_eq(presented).into()
}

/// Lowercase hex: the ids below and the store's digests.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `ws_…`, `ag_…`, `run_…`, `cbe_…`: 12 random bytes in lowercase hex.
pub fn new_id(kind: IdKind) -> Result<String, Failure> {
    Ok(format!("{}{}", kind.prefix(), hex(&random::<12>()?)))
}

/// A task scope id: `tsk_` + 32 lowercase hex digits.
pub fn new_scope_id() -> Result<String, Failure> {
    Ok(format!(
        "{}{}",
        IdKind::TaskScope.prefix(),
        hex(&random::<16>()?)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_and_ids_have_their_documented_shapes() {
        let (token, hash) = new_token().unwrap();
        assert!(token.starts_with("at_") && token.len() == 46, "{token}");
        assert!(hashes_match(&hash, &hash_token(&token)));
        assert!(!hashes_match(&hash, &hash_token("at_other")));
        assert!(!hashes_match(&hash[..31], &hash));
        let scope = new_scope_id().unwrap();
        assert_eq!(scope.len(), 36);
        assert!(
            scope[4..]
                .chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
        assert!(new_id(IdKind::Workspace).unwrap().starts_with("ws_"));
    }

    #[test]
    fn ttls_parse_with_units_and_stay_within_bounds() {
        assert_eq!(parse_ttl("90").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_ttl("15m").unwrap(), Duration::from_secs(900));
        assert_eq!(parse_ttl("12h").unwrap(), Duration::from_secs(43_200));
        assert_eq!(parse_ttl("90d").unwrap(), MAX_TTL);
        for bad in [
            "0",
            "91d",
            "",
            "m",
            "5w",
            "-5s",
            "1.5h",
            "99999999999999999999d",
        ] {
            assert!(parse_ttl(bad).is_err(), "{bad}");
        }
        assert!(DEFAULT_TTL <= Duration::from_secs(86_400));
    }
}
