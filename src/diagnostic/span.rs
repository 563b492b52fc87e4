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
    /// Byte offset of the value's first character ([`Span::start`] as a `usize`). 32 bits
    /// suffice: a file is read only up to 32 MiB, and a span on every key and value of a
    /// large config is a good part of its memory.
    pub offset: u32,
    /// Length of the value in bytes (at least 1 so it can be underlined).
    pub len: u32,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
    /// The template instance this value was written for, when it comes from a template: an
    /// index into the loaded instances (`config::model::Sources::instances`), so a problem in
    /// the template's text also names the instance that produced it.
    pub instance: Option<u32>,
}

impl Span {
    /// The byte offset of the value's first character, for slicing the file's text.
    pub fn start(&self) -> usize {
        self.offset as usize
    }

    /// The byte offset just past the value, for slicing the file's text.
    pub fn end(&self) -> usize {
        self.start().saturating_add(self.len as usize)
    }

    /// The value's bytes in the file's text.
    pub fn range(&self) -> std::ops::Range<usize> {
        self.start()..self.end()
    }
}

/// A position or length in a file as a span field: files are read only up to 32 MiB, so it
/// fits; a larger number (no file the loader accepts) saturates instead of wrapping.
pub(crate) fn narrow(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
