//! Where a problem stands: a place in one of the files a config was loaded from, by index, so
//! that a diagnostic can be raised by any layer that holds a located value and shown by the one
//! that holds the files.

use std::num::NonZeroU32;

/// Index of a file in the loaded files (`config::model::Sources`). 32 bits: a span is on every
/// key and value of a config, and no load reads four billion files.
pub(crate) type FileId = u32;

/// Where a value stands in a config file. 24 bytes: a large config holds one on every key and
/// every value, so each field is 32 bits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    /// The file, an index into the loaded files (`config::model::Sources`).
    pub file: FileId,
    /// Byte offset of the value's first character ([`Span::start`] as a `usize`). 32 bits
    /// suffice: a file is read only up to 32 MiB.
    pub offset: u32,
    /// Length of the value in bytes (at least 1 so it can be underlined).
    pub len: u32,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
    /// The template instance this value was written for, plus one ([`Span::instance`]): the
    /// niche of a non-zero number keeps the option in 4 bytes.
    instance: Option<NonZeroU32>,
}

impl Span {
    /// A span written in the config itself (no template instance).
    pub fn new(file: u32, offset: u32, len: u32, line: u32, column: u32) -> Span {
        Span {
            file,
            offset,
            len,
            line,
            column,
            instance: None,
        }
    }

    /// The template instance this value was written for, when it comes from a template: an
    /// index into the loaded instances (`config::model::Sources::instances`), so a problem in
    /// the template's text also names the instance that produced it.
    pub fn instance(&self) -> Option<u32> {
        self.instance.map(|stored| stored.get() - 1)
    }

    /// This span, written for the template instance `index`.
    pub fn with_instance(self, index: u32) -> Span {
        Span {
            // No load has four billion instances (a file expands to at most two million
            // values); the last index saturates rather than wrapping to "none".
            instance: NonZeroU32::new(index.saturating_add(1)),
            ..self
        }
    }

    /// The index of the file in the loaded files, for looking it up.
    pub fn file_index(&self) -> usize {
        self.file as usize
    }

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

#[cfg(test)]
mod tests {
    use super::*;

    /// A span is on every key and value of a loaded config: a regression in its size is a
    /// regression in the peak memory of every large load.
    #[test]
    fn a_span_is_24_bytes() {
        assert_eq!(std::mem::size_of::<Span>(), 24);
    }

    #[test]
    fn the_instance_reads_back_as_written() {
        let span = Span::new(1, 2, 3, 4, 5);
        assert_eq!(span.instance(), None);
        assert_eq!(span.with_instance(0).instance(), Some(0));
        assert_eq!(span.with_instance(41).instance(), Some(41));
        assert!(span < span.with_instance(0));
        assert!(span.with_instance(0) < span.with_instance(1));
    }
}
