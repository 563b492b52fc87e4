//! A value and where it was written, and the files and template instances a config was loaded
//! from: what every config type's spans point into.

use std::ops::Deref;
use std::path::PathBuf;
use std::sync::Arc;

use crate::diagnostic::Span;

/// A value and where it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Located<T> {
    /// The value.
    pub value: T,
    /// Where it was written.
    pub span: Span,
}

impl<T> Located<T> {
    /// Wraps a value with its span.
    pub fn new(value: T, span: Span) -> Self {
        Located { value, span }
    }
}

impl<T> Deref for Located<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

/// One loaded config file: its path as given and its text, for diagnostics.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Path as the user named it (or as found in a directory).
    pub path: PathBuf,
    /// The file's text.
    pub text: Arc<str>,
}

/// The files a config was loaded from, indexed by `FileId`.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// The files, in load order.
    pub files: Vec<SourceFile>,
    /// The template instances the config expanded to, indexed by [`Span::instance`].
    pub instances: Vec<InstanceOrigin>,
}

/// Where a template instance comes from: the value of [`Span::instance`] points here, so a
/// value copied from a template says which template and which instance it was written for.
#[derive(Debug, Clone, PartialEq)]
pub struct InstanceOrigin {
    /// The template's name under `templates:`.
    pub template: String,
    /// Where the template is declared (its name).
    pub template_span: Span,
    /// The instance's key in its section, e.g. `api-errors[checkout]`.
    pub key: String,
    /// Where the instance is written (its `key:` value, or its first `matrix` value).
    pub span: Span,
}

impl Sources {
    /// The file a span points into.
    pub(crate) fn file(&self, index: usize) -> Option<&SourceFile> {
        self.files.get(index)
    }

    /// The template instance a span was written for, if any.
    pub(crate) fn instance(&self, span: Span) -> Option<&InstanceOrigin> {
        self.instances.get(usize::try_from(span.instance()?).ok()?)
    }
}
