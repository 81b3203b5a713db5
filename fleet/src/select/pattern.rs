//! Cluster name patterns: `*` any run of characters, `?` one character, the rest literal.

/// True when `name` matches `pattern` whole.
pub fn matches_pattern(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    // Classic two-pointer glob with one backtrack point: linear in practice, no recursion.
    let (mut pi, mut ni, mut star, mut mark) = (0, 0, None, 0);
    while ni < n.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == n[ni]) {
            pi += 1;
            ni += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ni;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ni = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::matches_pattern;

    #[test]
    fn stars_and_question_marks() {
        assert!(matches_pattern("prod-*", "prod-eu-1"));
        assert!(matches_pattern("*-1", "prod-eu-1"));
        assert!(matches_pattern("prod-??-1", "prod-eu-1"));
        assert!(!matches_pattern("prod-?-1", "prod-eu-1"));
        assert!(!matches_pattern("prod", "prod-eu-1"));
        assert!(matches_pattern("*", ""));
    }
}
