//! What every kind's writer shares: keys made from names, node builders, and the state of a
//! stack being written.

use std::collections::{BTreeMap, BTreeSet};

use super::yaml::Node;
use crate::api::wire::Dashboard;
use crate::live::StackLive;

/// A stack being written: what each of its kinds needs from the ones before it.
pub(crate) struct StackWriting<'a> {
    /// The stack's key.
    pub key: &'a str,
    /// Its ownership tag (`converge:<key>`).
    pub tag: String,
    /// What was read from it.
    pub live: &'a StackLive,
    /// The dashboards exported so far, by id: their key and the dashboard (alerts name them).
    pub dashboards: BTreeMap<&'a str, (String, &'a Dashboard)>,
    /// One line per object left out, saying why.
    pub warnings: &'a mut Vec<String>,
    /// Whether the stack is on the observability API (which writes webhooks; the managed
    /// stack's only lists them).
    pub observability: bool,
}

/// The ASCII letters an accented Latin letter reads as (`é` is `e`, `ß` is `ss`), so a key
/// made from `Café` stays readable; `None` for anything else.
fn ascii_fold(c: char) -> Option<&'static str> {
    let lower = c.to_lowercase().next().unwrap_or(c);
    Some(match lower {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'ą' => "a",
        'æ' => "ae",
        'ç' | 'ć' | 'č' => "c",
        'ď' | 'đ' | 'ð' => "d",
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ė' | 'ę' | 'ě' => "e",
        'ğ' => "g",
        'ì' | 'í' | 'î' | 'ï' | 'ī' | 'į' | 'ı' => "i",
        'ł' | 'ľ' | 'ĺ' => "l",
        'ñ' | 'ń' | 'ň' => "n",
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ő' => "o",
        'œ' => "oe",
        'ř' | 'ŕ' => "r",
        'ś' | 'š' | 'ş' | 'ș' => "s",
        'ß' => "ss",
        'ť' | 'ţ' | 'ț' => "t",
        'þ' => "th",
        'ù' | 'ú' | 'û' | 'ü' | 'ū' | 'ů' | 'ű' | 'ų' => "u",
        'ý' | 'ÿ' => "y",
        'ź' | 'ż' | 'ž' => "z",
        _ => return None,
    })
}

/// A key from a name: lowercase ASCII letters and digits (accented Latin letters folded to
/// theirs), other runs turned into one `-`.
pub(crate) fn slug(name: &str, fallback: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if let Some(letters) = ascii_fold(c) {
            out.push_str(letters);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-').to_string();
    if out.is_empty() {
        fallback.to_string()
    } else {
        out
    }
}

/// Hands out unique keys: the first `orders` is `orders`, the next `orders-2`.
#[derive(Default)]
pub(crate) struct Keys(BTreeSet<String>);

impl Keys {
    /// `wanted`, or the first of `wanted-2`, `wanted-3`... not yet handed out.
    pub(crate) fn take(&mut self, wanted: String) -> String {
        if self.0.insert(wanted.clone()) {
            return wanted;
        }
        let mut n = 2;
        loop {
            let candidate = format!("{wanted}-{n}");
            if self.0.insert(candidate.clone()) {
                return candidate;
            }
            n += 1;
        }
    }
}

/// A string node.
pub(crate) fn str(text: &str) -> Node {
    Node::Str(text.to_string())
}

/// An `${env:NAME}` reference.
pub(crate) fn reference(name: &str) -> Node {
    Node::Reference(format!("${{env:{name}}}"))
}

/// A map entry.
pub(crate) fn entry(key: &str, node: Node) -> (String, Node) {
    (key.to_string(), node)
}

/// The value when it is there and not empty: what the planner compares.
pub(crate) fn non_empty(value: &Option<String>) -> Option<&str> {
    value.as_deref().filter(|s| !s.is_empty())
}
