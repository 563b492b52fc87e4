//! Where a problem stands: a place in one of the files a config was loaded from, by index, so
//! that a diagnostic can be raised by any layer that holds a located value and shown by the one
//! that holds the files.

/// Index of a file in the loaded files (`config::model::Sources`).
pub(crate) type FileId = usize;

/// Where a value stands in a config file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    /// The file, an index into the loaded files (`config::model::Sources`).
    pub file: FileId,
    /// Byte offset of the value's first character.
    pub offset: usize,
    /// Length of the value in bytes (at least 1 so it can be underlined).
    pub len: usize,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// The template instance this value was written for, when it comes from a template: an
    /// index into the loaded instances (`config::model::Sources::instances`), so a problem in
    /// the template's text also names the instance that produced it.
    pub instance: Option<u32>,
}
