//! Field shapes every domain shares: the workspace's boards and members,
//! which any domain's actions name the same way (a task's board, a
//! member it is assigned to). A domain's own shapes live in its module
//! (`task/fields.rs`).

use serde_json::Value;

use crate::registry::schema::pattern;

// Lengths are bounded by each field's `maxLength`, not inside the patterns:
// a bounded repetition such as `{0,79}` compiles into a regex program ~80
// times larger, compiled on every CLI call.
pub const CHANNEL_PATTERN: &str = "^[a-z0-9][a-z0-9_-]*$";
pub const MEMBER_REF_PATTERN: &str = "^@[a-z0-9][a-z0-9_.-]*$";
/// A link: an http(s) URL without blanks.
pub const URL_PATTERN: &str = "^https?://\\S+$";
/// The longest member ref (`@handle`).
pub const MEMBER_REF_MAX: usize = 40;

/// A board by its name (`channel`).
pub fn channel() -> Value {
    pattern(
        "Board (channel) name without `#`, e.g. `demo`.",
        CHANNEL_PATTERN,
        80,
    )
}

/// A member by `@` and handle.
pub fn member_ref(description: &str) -> Value {
    pattern(description, MEMBER_REF_PATTERN, MEMBER_REF_MAX as u64)
}
