//! How often one validation may judge its whole input again, and how
//! deep: a judging's own messages judge nothing again ([`judging`]).
//!
//! A refused field's message may offer the value to write only once that
//! value is known to hold (`holds_at`), or say what a retry that changed
//! only that field would still be told (`judged_at`): each is a judging of
//! a copy of the whole input. An input of a hundred refused fields is
//! judged a hundred times more; for a few kilobytes that is nothing, but a
//! body of a megabyte (a `numbers` list of 100,000 `"#5"`s) was judged for
//! seconds, on the CLI and on a runtime replica alike. So one validation
//! judges again at most [`REJUDGED_BYTES`] of input in all (and at least
//! [`MIN_REJUDGINGS`] times): every message of an input of up to about
//! 40 KB is as it always was, and a larger one's later fields are told
//! their problem without a value to write (docs/security.md).

use std::cell::Cell;

use serde_json::Value;

/// The bytes of input one validation may judge again, in all.
pub(super) const REJUDGED_BYTES: usize = 4 << 20;

/// The judgings again one validation may always make, however large its
/// input.
pub(super) const MIN_REJUDGINGS: usize = 4;

thread_local! {
    /// Whether a validation is under way on this thread, and how many
    /// judgings again it has left (`None` until its first asks).
    static BUDGET: Cell<Option<Option<usize>>> = const { Cell::new(None) };
    /// Whether a [`judging`] is under way on this thread.
    static JUDGING: Cell<bool> = const { Cell::new(false) };
}

#[cfg(test)]
thread_local! {
    /// Judgings again made on this thread, ever.
    static MADE: Cell<usize> = const { Cell::new(0) };
}

/// Counts one judging again, for the tests.
fn made_one() {
    #[cfg(test)]
    MADE.set(MADE.get() + 1);
}

/// One validation's budget, from its start to its end: a validation begun
/// inside another (a hint's call judged) spends the outer one's.
pub(super) struct Budget {
    outer: bool,
}

impl Budget {
    pub(super) fn start() -> Budget {
        let outer = BUDGET.get().is_none();
        if outer {
            BUDGET.set(Some(None));
        }
        Budget { outer }
    }
}

impl Drop for Budget {
    fn drop(&mut self) {
        if self.outer {
            BUDGET.set(None);
        }
    }
}

/// Whether `input` may be judged again, as a whole, once more; spends one
/// judging when it may. Always, outside a validation.
pub(super) fn may_judge(input: &Value) -> bool {
    let left = match BUDGET.get() {
        None => {
            made_one();
            return true;
        }
        Some(Some(left)) => left,
        Some(None) => {
            let size = crate::budget::json_len(input).max(1);
            (REJUDGED_BYTES / size).max(MIN_REJUDGINGS)
        }
    };
    let may = left > 0;
    BUDGET.set(Some(Some(left.saturating_sub(1))));
    if may {
        made_one();
    }
    may
}

/// A judging again whose messages may judge nothing again themselves
/// (`judged_at`), from its start to its end: one level deep, or an input
/// of many such fields would be judged once per ordering of them.
pub(super) struct Judging;

impl Drop for Judging {
    fn drop(&mut self) {
        JUDGING.set(false);
    }
}

/// A [`Judging`] of `input`, spent from the budget as [`may_judge`] is;
/// `None` inside another, or with the budget spent.
pub(super) fn judging(input: &Value) -> Option<Judging> {
    if JUDGING.get() || !may_judge(input) {
        return None;
    }
    JUDGING.set(true);
    Some(Judging)
}

/// The judgings again made on this thread so far.
#[cfg(test)]
pub(super) fn made() -> usize {
    MADE.get()
}
