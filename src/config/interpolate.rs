//! `${env:NAME}` and `${env:NAME:-default}` in strings. `$${` writes a literal `${`.
//!
//! Only strings interpolate: a number or a boolean is written literally, so the schema can check
//! its type and range before any variable is known (pull-request checks run without secrets).

/// A string after interpolation.
#[derive(Debug, Clone, PartialEq)]
pub struct Expanded {
    /// The text with every set variable (or default) substituted; unset references stay as written.
    pub text: String,
    /// Variables that are unset and have no default.
    pub unset: Vec<String>,
}

/// A malformed reference.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InterpolationError {
    /// `${` without a closing `}`.
    #[error("a `${{` is not closed by `}}`")]
    Unclosed,
    /// `${...}` that is not `${env:...}`.
    #[error(
        "`{reference}` is not an environment reference; write `${{env:NAME}}` (or `$${{` for a literal `${{`)"
    )]
    NotEnv {
        /// The reference as written.
        reference: String,
    },
    /// `${env:NAME}` with a name that is not a variable name.
    #[error(
        "`{name}` is not a valid variable name (letters, digits and `_`, not starting with a digit)"
    )]
    BadName {
        /// The name as written.
        name: String,
    },
}

/// Expands the references in `raw`. `Err` describes a malformed reference.
pub fn expand(
    raw: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Expanded, InterpolationError> {
    let mut text = String::with_capacity(raw.len());
    let mut unset = Vec::new();
    let mut rest = raw;
    while let Some(pos) = rest.find('$') {
        text.push_str(&rest[..pos]);
        let after = &rest[pos..];
        if let Some(tail) = after.strip_prefix("$${") {
            text.push_str("${");
            rest = tail;
            continue;
        }
        let Some(body_start) = after.strip_prefix("${") else {
            text.push('$');
            rest = &after[1..];
            continue;
        };
        let Some(end) = body_start.find('}') else {
            return Err(InterpolationError::Unclosed);
        };
        let body = &body_start[..end];
        let reference = &after[..end + 3];
        let Some(spec) = body.strip_prefix("env:") else {
            return Err(InterpolationError::NotEnv {
                reference: reference.to_string(),
            });
        };
        let (name, default) = match spec.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (spec, None),
        };
        if !valid_name(name) {
            return Err(InterpolationError::BadName {
                name: name.to_string(),
            });
        }
        match (env(name), default) {
            (Some(value), _) => text.push_str(&value),
            (None, Some(default)) => text.push_str(default),
            (None, None) => {
                text.push_str(reference);
                unset.push(name.to_string());
            }
        }
        rest = &body_start[end + 1..];
    }
    text.push_str(rest);
    Ok(Expanded { text, unset })
}

/// The names of the variables `raw` refers to (`${env:NAME}` and `${env:NAME:-default}`), in
/// order; `$${` escapes and malformed references are skipped (`expand` reports those).
pub(crate) fn references(raw: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut rest = raw;
    while let Some(pos) = rest.find('$') {
        let after = &rest[pos..];
        if let Some(tail) = after.strip_prefix("$${") {
            rest = tail;
            continue;
        }
        let Some(body) = after.strip_prefix("${env:") else {
            rest = &after[1..];
            continue;
        };
        let Some(end) = body.find('}') else {
            break;
        };
        let spec = &body[..end];
        let name = spec.split_once(":-").map_or(spec, |(name, _)| name);
        if valid_name(name) {
            names.push(name);
        }
        rest = &body[end + 1..];
    }
    names
}

/// The variable name when `raw` is exactly one `${env:NAME}` with no default: the only form a
/// secret field accepts, since a default would be a literal secret in the file.
pub(crate) fn secret_reference(raw: &str) -> Option<&str> {
    let name = raw.strip_prefix("${env:")?.strip_suffix('}')?;
    valid_name(name).then_some(name)
}

fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        (name == "SET").then(|| "value".to_string())
    }

    #[test]
    fn substitutes_defaults_and_keeps_unset() {
        let e = expand("a-${env:SET}-${env:NOPE:-dflt}-${env:MISSING}", &env).unwrap();
        assert_eq!(e.text, "a-value-dflt-${env:MISSING}");
        assert_eq!(e.unset, vec!["MISSING".to_string()]);
    }

    #[test]
    fn escapes_and_plain_dollars() {
        let e = expand("cost $5 and $${env:X}", &env).unwrap();
        assert_eq!(e.text, "cost $5 and ${env:X}");
        assert!(e.unset.is_empty());
    }

    #[test]
    fn malformed_references_are_errors() {
        assert!(expand("${env:SET", &env).is_err());
        assert!(expand("${file:x}", &env).is_err());
        assert!(expand("${env:1BAD}", &env).is_err());
    }

    #[test]
    fn references_name_every_variable_but_escapes() {
        assert_eq!(
            references("a ${env:ONE} $${env:NOT} ${env:TWO:-x} ${env:1BAD} $5 ${env:THREE}"),
            vec!["ONE", "TWO", "THREE"]
        );
        assert!(references("${env:OPEN").is_empty());
    }

    #[test]
    fn secret_references_take_no_default() {
        assert_eq!(secret_reference("${env:KEY}"), Some("KEY"));
        assert_eq!(secret_reference("${env:KEY:-literal}"), None);
        assert_eq!(secret_reference("hunter2"), None);
    }
}
