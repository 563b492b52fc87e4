//! `--only` patterns over addresses: `*` matches any run of characters (dots included, so
//! `dashboard.prod.*` takes every dashboard of the stack), `?` exactly one. No other syntax.
//!
//! [`matches`] tests one address; [`could_match`] tests a whole family of addresses at once
//! (`dashboard.prod["` any name `"]`), so a run can tell which lists a pattern needs before it
//! reads any (see [`super::address`]).

/// Whether `address` matches `pattern` as a whole. An object addressed by its live name
/// (`dashboard.prod["Old board"]`, reported or pruned) also matches as if a dot came before the
/// bracket, so `dashboard.prod.*` takes it like every other dashboard of the stack.
pub(crate) fn matches(pattern: &str, address: &str) -> bool {
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
pub(crate) fn distance(pattern: &str, address: &str) -> usize {
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
pub(crate) fn closest<'a>(pattern: &str, addresses: &[&'a str], limit: usize) -> Vec<&'a str> {
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

/// One piece of an address family: text that is always there, or any run of characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Part {
    /// Literal text.
    Text(String),
    /// Any run of characters, possibly empty (a live name, an endpoint id).
    Any,
}

/// Whether `pattern` matches at least one address of the family `parts` (its literal texts
/// with anything in place of each [`Part::Any`]). For a family without `Any` this is
/// [`matches`] on that one address, bracket form aside: a family stands for its text as written.
pub(crate) fn could_match(pattern: &str, parts: &[Part]) -> bool {
    #[derive(Clone, Copy, PartialEq)]
    enum Token {
        Char(char),
        One,
        Many,
    }
    let pattern: Vec<Token> = pattern
        .chars()
        .map(|c| match c {
            '*' => Token::Many,
            '?' => Token::One,
            c => Token::Char(c),
        })
        .collect();
    let family: Vec<Token> = parts
        .iter()
        .flat_map(|part| match part {
            Part::Text(text) => text.chars().map(Token::Char).collect::<Vec<_>>(),
            Part::Any => vec![Token::Many],
        })
        .collect();
    // Both are automata over characters; a string both accept exists iff the end of both is
    // reachable in their product. States are (position in pattern, position in family); at most
    // (|pattern| + 1) x (|family| + 1) of them, each visited once.
    let (n, m) = (pattern.len(), family.len());
    let mut seen = vec![false; (n + 1) * (m + 1)];
    let mut stack = vec![(0usize, 0usize)];
    while let Some((i, j)) = stack.pop() {
        let slot = i * (m + 1) + j;
        if seen[slot] {
            continue;
        }
        seen[slot] = true;
        if i == n && j == m {
            return true;
        }
        let (p, f) = (pattern.get(i).copied(), family.get(j).copied());
        // A `*` on either side may match nothing.
        if p == Some(Token::Many) {
            stack.push((i + 1, j));
        }
        if f == Some(Token::Many) {
            stack.push((i, j + 1));
        }
        // Or both take one character they can agree on.
        match (p, f) {
            (Some(Token::Many), Some(Token::Char(_))) => stack.push((i, j + 1)),
            (Some(Token::One | Token::Char(_)), Some(Token::Many)) => stack.push((i + 1, j)),
            (Some(Token::One), Some(Token::Char(_))) => stack.push((i + 1, j + 1)),
            (Some(Token::Char(a)), Some(Token::Char(b))) if a == b => stack.push((i + 1, j + 1)),
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::{Part, closest, could_match, distance, matches};

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

    fn family(text: &str) -> Vec<Part> {
        // `#` stands for `Part::Any` in these tests.
        let mut parts = Vec::new();
        for (index, piece) in text.split('#').enumerate() {
            if index > 0 {
                parts.push(Part::Any);
            }
            if !piece.is_empty() {
                parts.push(Part::Text(piece.to_string()));
            }
        }
        parts
    }

    #[test]
    fn a_family_without_wildcards_matches_as_its_address_does() {
        for (pattern, address) in [
            ("dashboard.prod.*", "dashboard.prod.api-health"),
            ("service.*.scaling", "pipe.analytics.orders.scaling"),
            ("pipe.analytics.orde?s", "pipe.analytics.orderss"),
            ("a*b*c", "axxbyyc"),
            ("a*b*c", "axxbyy"),
            ("*", ""),
            ("", "x"),
            ("alert.*.x?", "alert.prod.xy"),
        ] {
            assert_eq!(
                could_match(pattern, &family(address)),
                matches(pattern, address),
                "{pattern} on {address}"
            );
        }
    }

    #[test]
    fn a_family_with_a_name_matches_when_some_name_would() {
        let strays = family("dashboard.prod[\"#\"]");
        assert!(could_match("dashboard.prod[*", &strays));
        assert!(could_match("dashboard.prod[\"Old*", &strays));
        assert!(could_match("*Old board\"]", &strays));
        assert!(could_match("dashboard.pro?[\"x\"]", &strays));
        assert!(could_match("*", &strays));
        assert!(!could_match("dashboard.staging*", &strays));
        assert!(!could_match("alert.*", &strays));
        assert!(!could_match("dashboard.prod.api", &strays));
        assert!(!could_match("*scaling", &strays));
        let endpoints = family("service.a.private_endpoint[#]");
        assert!(could_match(
            "service.a.private_endpoint[vpce-1]",
            &endpoints
        ));
        assert!(could_match("service.*", &endpoints));
        assert!(!could_match("service.*.scaling", &endpoints));
        assert!(!could_match("service.a.private_endpoint[x", &endpoints));
        // Two wildcards in a row on both sides.
        assert!(could_match("a**?*b", &family("a#?#b")));
        assert!(!could_match("a?", &family("a")));
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
