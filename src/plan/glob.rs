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

#[cfg(test)]
mod tests {
    use super::matches;

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
