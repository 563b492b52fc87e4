//! The ownership tag: `converge:<stack key>` on every dashboard converge creates or updates.
//! What converge owns in a stack is what carries its tag (and the alerts on it); `export` reads
//! the stack key back from it. Built and read here only.

use super::hash::{OFFSET, fnv1a};
use crate::api::limits::TAG_MAX;

/// What every ownership tag starts with.
const PREFIX: &str = "converge:";

/// The tag converge puts on every dashboard it creates or updates, naming the stack: at most 32
/// characters (the API's tag limit); a long stack key is cut and suffixed with a hash so two
/// long keys still get different tags.
pub(crate) fn ownership_tag(stack: &str) -> String {
    let full = format!("{PREFIX}{stack}");
    if full.chars().count() <= TAG_MAX {
        return full;
    }
    let hash = fnv1a(stack.as_bytes(), OFFSET) as u32;
    let keep = TAG_MAX - PREFIX.len() - 9;
    let head: String = stack.chars().take(keep).collect();
    format!("{PREFIX}{head}~{hash:08x}")
}

/// The stack a tag names, when it is an ownership tag; a cut tag keeps its `~hash` (it cannot
/// be turned back into its key).
pub(crate) fn owner(tag: &str) -> Option<&str> {
    tag.strip_prefix(PREFIX)
}
