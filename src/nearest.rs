//! How near a typed word is to a known one, for "did you mean" hints on
//! both binaries (fields, routes, profiles, boards and handles).

/// Edit distance over chars: insertions, deletions, substitutions, and
/// swaps of two neighbours (optimal string alignment), so `dmeo` is one
/// slip from `demo`, as `demi` is.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // Three rows: two back (for a swap), the one before, this one.
    let mut two_back: Vec<usize> = vec![0; b.len() + 1];
    let mut before: Vec<usize> = (0..=b.len()).collect();
    let mut row: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        row[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (before[j] + 1)
                .min(row[j - 1] + 1)
                .min(before[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(two_back[j - 2] + 1);
            }
            row[j] = best;
        }
        std::mem::swap(&mut two_back, &mut before);
        std::mem::swap(&mut before, &mut row);
    }
    before[b.len()]
}

/// Whether `candidate` is close enough to `given` to be what a typo meant
/// (the rule of the unknown-field hint), letters compared in either case.
pub fn is_typo_of(given: &str, candidate: &str) -> bool {
    let distance = edit_distance(&given.to_lowercase(), &candidate.to_lowercase());
    distance <= (candidate.chars().count() / 3).clamp(1, 3)
}

#[cfg(test)]
mod tests {
    use super::edit_distance;

    #[test]
    fn counts_insertions_deletions_substitutions_and_swaps() {
        assert_eq!(edit_distance("assigne", "assignee"), 1);
        assert_eq!(edit_distance("", "ab"), 2);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("dmeo", "demo"), 1);
        assert_eq!(edit_distance("release-egn", "release-eng"), 1);
        assert_eq!(edit_distance("ca", "abc"), 3);
    }
}
