//! The write-back's types: the edits it makes, what it leaves to a person, and what proposing
//! reads; shared by the module and its files, which do not import each other.

use std::fmt::Write as _;

use serde_json::Value;

use super::locate::Located;
use crate::config::model::Sources;
use crate::config::yaml::Node;
use crate::live::LiveState;

/// One value to replace: the bytes at `offset..offset + len` of `file` become `text`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Edit {
    /// The file, by `FileId`.
    pub file: usize,
    /// Byte offset of the value.
    pub offset: usize,
    /// Its length in bytes.
    pub len: usize,
    /// The replacement.
    pub text: String,
    /// The drifted object's address.
    pub address: String,
    /// The field path inside it.
    pub path: String,
    /// The JSON pointer of the value in the expanded config (of the list, for an append).
    pub pointer: String,
    /// What the edit does to the config's tree.
    pub effect: Effect,
}

/// What an [`Edit`] does to the config's tree, for [`verify`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Effect {
    /// The value at the pointer becomes this live value.
    Set(Value),
    /// The entry or list item at the pointer goes (deleted live).
    Remove,
    /// This item is added at the end of the list at the pointer (added live).
    Append(Value),
    /// This entry is added to its mapping at the pointer's key (adopted).
    Add(Value),
}

/// How structural drift is handled.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Options {
    /// Keep tiles deleted live in the config, and list them, instead of removing them.
    pub keep_deleted: bool,
}

/// A drifted field converge will not edit, and why.
/// Why a person must write an object that exists live and not in the config.
pub(crate) const LIVE_ONLY: &str = "live only: add it to the config, or apply to remove it";

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ManualEdit {
    /// `file:line` where it is written, when it is written somewhere.
    pub place: Option<String>,
    /// The drifted object's address.
    pub address: String,
    /// The field path inside it (empty: the whole object).
    pub path: String,
    /// The live value; `None` when it is missing live or a secret.
    pub live: Option<Value>,
    /// Why a person has to make this edit.
    pub reason: String,
}

impl ManualEdit {
    /// The line `drift --write` prints for it; the live value as JSON (a secret never).
    pub(crate) fn line(&self) -> String {
        let mut line = String::from("edit by hand");
        if let Some(place) = &self.place {
            let _ = write!(line, " at {place}");
        }
        let _ = write!(line, ": {}", self.address);
        if !self.path.is_empty() {
            let _ = write!(line, " {}", self.path);
        }
        match &self.live {
            Some(value) => {
                let _ = write!(line, " is {value} live");
            }
            None if self.reason.contains("secret") => {}
            // An object the live state has and the config does not (an endpoint attached by
            // hand): it is there, not missing.
            None if self.reason == LIVE_ONLY => line.push_str(" exists live only"),
            None => line.push_str(" is missing live"),
        }
        let _ = write!(line, " ({})", self.reason);
        line
    }
}

/// What a write-back would do: the edits, and what it leaves to a person.
#[derive(Debug, Clone, Default)]
pub(crate) struct Proposal {
    /// Values to splice, in file and offset order.
    pub edits: Vec<Edit>,
    /// Drift a person has to write into the config.
    pub manual: Vec<ManualEdit>,
    /// The addresses of the config's objects missing live, left untouched for apply.
    pub for_apply: Vec<String>,
}

impl Proposal {
    /// The line saying what was left for apply (`None` when nothing was).
    pub(crate) fn for_apply_line(&self) -> Option<String> {
        let count = self.for_apply.len();
        (count > 0).then(|| {
            format!(
                "{count} object{s} missing live left for apply: {}",
                self.for_apply.join(", "),
                s = if count == 1 { "" } else { "s" },
            )
        })
    }
}

/// What proposing reads.
pub(crate) struct Context<'c> {
    pub sources: &'c Sources,
    pub located: &'c Located,
    pub live: &'c LiveState,
    pub options: Options,
}

/// `file:line` of a node.
pub(crate) fn place(sources: &Sources, node: &Node) -> String {
    span_place(sources, node.span)
}

/// `file:line` of a span.
pub(crate) fn span_place(sources: &Sources, span: crate::diagnostic::Span) -> String {
    let path = sources
        .file(span.file_index())
        .map(|f| f.path.display().to_string())
        .unwrap_or_default();
    format!("{path}:{}", span.line)
}
