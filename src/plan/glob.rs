//! `--only` patterns over addresses: `*` matches any run of characters (dots included, so
//! `dashboard.prod.*` takes every dashboard of the stack), `?` exactly one. No other syntax.

/// Whether `address` matches `pattern` as a whole. An object addressed by its live name
/// (`dashboard.prod["Old board"]`, reported or pruned) also matches as if a dot came before the
/// bracket, so `dashboard.prod.*` takes it like every other dashboard of the stack.
pub fn matches(pattern: &str, address: &str) -> bool {
    wildcard(pattern, address)
        || address
            .find("[\"")
            .is_some_and(|at| wildcard(pattern, &format!("{}.{}", &address[..at], &address[at..])))
}

fn wildcard(pattern: &str, address: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let text: Vec<char> = address.chars().collect();
    // Iterative wildcard matching with one backtrack point: linear in practice, no recursion.
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some('*') => {
                star = Some((p, t));
                p += 1;
            }
            Some('?') => {
                p += 1;
                t += 1;
            }
            Some(c) if *c == text[t] => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    p = sp + 1;
                    t = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|c| *c == '*')
}

/// How many characters of `pattern` must be changed, added or removed for it to match
/// `address` (`*` and `?` match for free): `pipe.analytic.*` is 1 from
/// `pipe.analytics.orders.scaling`. Name-addressed objects count as [`matches`] reads them.
pub fn distance(pattern: &str, address: &str) -> usize {
    let plain = edit_distance(pattern, address);
    match address.find("[\"") {
        Some(at) => plain.min(edit_distance(
            pattern,
            &format!("{}.{}", &address[..at], &address[at..]),
        )),
        None => plain,
    }
}

fn edit_distance(pattern: &str, text: &str) -> usize {
    let text: Vec<char> = text.chars().collect();
    // One row per pattern character: row[j] is the cost of matching the pattern so far
    // against the first j characters of the text.
    let mut row: Vec<usize> = (0..=text.len()).collect();
    for p in pattern.chars() {
        let mut next = Vec::with_capacity(row.len());
        next.push(row[0] + usize::from(p != '*'));
        for j in 1..=text.len() {
            let cost = match p {
                '*' => row[j].min(next[j - 1]),
                _ => {
                    let substitute = usize::from(p != '?' && p != text[j - 1]);
                    (row[j - 1] + substitute)
                        .min(row[j] + 1)
                        .min(next[j - 1] + 1)
                }
            };
            next.push(cost);
        }
        row = next;
    }
    row[text.len()]
}

/// The addresses closest to a pattern that matches none of them (at most `limit`, in the
/// order given), for a "did you mean" list.
pub fn closest<'a>(pattern: &str, addresses: &[&'a str], limit: usize) -> Vec<&'a str> {
    let scored: Vec<(usize, &str)> = addresses
        .iter()
        .map(|address| (distance(pattern, address), *address))
        .collect();
    let Some(best) = scored.iter().map(|(d, _)| *d).min() else {
        return Vec::new();
    };
    scored
        .into_iter()
        .filter(|(d, _)| *d == best)
        .map(|(_, address)| address)
        .take(limit)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{closest, distance, matches};

    #[test]
    fn distance_counts_the_edits_a_pattern_needs_to_match() {
        assert_eq!(
            distance("pipe.analytic.*", "pipe.analytics.orders.scaling"),
            1
        );
        assert_eq!(
            distance("pipe.analytics.*", "pipe.analytics.orders.scaling"),
            0
        );
        assert_eq!(distance("dashbaord.prod.*", "dashboard.prod.api-health"), 2);
        assert_eq!(
            distance("service.?nalytics.scalng", "service.analytics.scaling"),
            1
        );
        assert_eq!(distance("", "ab"), 2);
        assert_eq!(
            distance("dashboard.prod.*", "dashboard.prod[\"Old board\"]"),
            0
        );
        let addresses = [
            "service.analytics.scaling",
            "pipe.analytics.orders.scaling",
            "pipe.analytics.events.scaling",
            "alert.prod.api-errors",
        ];
        assert_eq!(
            closest("pipe.analytic.*", &addresses, 5),
            [
                "pipe.analytics.orders.scaling",
                "pipe.analytics.events.scaling"
            ]
        );
        assert_eq!(
            closest("alert.prod.api-erors", &addresses, 5),
            ["alert.prod.api-errors"]
        );
        assert!(closest("x", &[], 5).is_empty());
    }

    #[test]
    fn star_and_question_mark() {
        assert!(matches("dashboard.prod.*", "dashboard.prod.api-health"));
        assert!(matches("*", "service.analytics.scaling"));
        assert!(matches("service.*.scaling", "service.analytics.scaling"));
        assert!(!matches(
            "service.*.scaling",
            "pipe.analytics.orders.scaling"
        ));
        assert!(matches(
            "pipe.analytics.orde?s.*",
            "pipe.analytics.orders.scaling"
        ));
        assert!(!matches("pipe.analytics.orde?s", "pipe.analytics.orderss"));
        assert!(matches("*scaling", "pipe.a.b.scaling"));
        assert!(!matches("alert.*", "dashboard.prod.x"));
        assert!(matches("a*b*c", "axxbyyc"));
        // Name-addressed objects (pruned or reported) belong to their stack's glob too.
        assert!(matches("dashboard.prod.*", "dashboard.prod[\"Old board\"]"));
        assert!(matches("alert.prod.*", "alert.prod[\"Old alert\"]"));
        assert!(matches(
            "dashboard.prod[\"Old*",
            "dashboard.prod[\"Old board\"]"
        ));
        assert!(!matches(
            "dashboard.staging.*",
            "dashboard.prod[\"Old board\"]"
        ));
        assert!(!matches("a*b*c", "axxbyy"));
        assert!(matches("", ""));
        assert!(!matches("", "x"));
    }
}
