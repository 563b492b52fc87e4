//! Edited config files written so that a reader never sees half a file and nobody's work is
//! lost: each new text goes to a temporary file beside its target (same directory, so the
//! rename stays on one file system and is atomic), and just before the renames every target is
//! read again; one that differs from the text the edit was made from (someone saved it
//! meanwhile) stops the whole write, and no file is replaced. A file named through a symlink
//! (or a chain of them) is written through it: the link's final target is replaced the same
//! way, beside itself, and the link stays a link pointing where it did.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// One file to replace: where, the text the edit was made from, and the new text.
pub(crate) struct Replacement<'t> {
    /// The file.
    pub path: &'t Path,
    /// Its text when the config was read.
    pub old: &'t str,
    /// What it becomes.
    pub new: &'t str,
}

/// Why nothing was written.
#[derive(Debug, thiserror::Error)]
pub(crate) enum WriteError {
    /// The file no longer holds the text the edit was made from.
    #[error("`{path}` changed on disk since converge read it; nothing was written")]
    ChangedOnDisk {
        /// The file.
        path: String,
    },
    /// The file system refused.
    #[error("cannot write `{path}`: {cause}; nothing was written")]
    Io {
        /// The file.
        path: String,
        /// What the system said.
        cause: std::io::Error,
    },
}

/// Replaces every file or none (short of the system failing between two renames).
pub(crate) fn replace_all(files: &[Replacement<'_>]) -> Result<(), WriteError> {
    unchanged(files)?;
    let mut temporaries: Vec<(PathBuf, PathBuf, &Path)> = Vec::new();
    let made = files.iter().try_for_each(|file| {
        let target = target(file.path)?;
        let temporary = temporary(file, &target)?;
        temporaries.push((temporary, target, file.path));
        Ok(())
    });
    // Read again right before the renames: an editor that saved while the temporaries were
    // written must not lose its work.
    let checked = made.and_then(|()| unchanged(files));
    if let Err(error) = checked {
        for (temporary, _, _) in &temporaries {
            let _ = fs::remove_file(temporary);
        }
        return Err(error);
    }
    for (temporary, target, path) in &temporaries {
        fs::rename(temporary, target).map_err(|cause| {
            let _ = fs::remove_file(temporary);
            io(path, cause)
        })?;
    }
    Ok(())
}

/// Every file still holds the text the edit was made from.
fn unchanged(files: &[Replacement<'_>]) -> Result<(), WriteError> {
    for file in files {
        let now = fs::read(file.path).map_err(|cause| io(file.path, cause))?;
        if now != file.old.as_bytes() {
            return Err(WriteError::ChangedOnDisk {
                path: file.path.display().to_string(),
            });
        }
    }
    Ok(())
}

/// The file a rename must replace for `path`: `path` itself, or for a symlink the file its
/// chain of links ends at (a rename over the link would turn it into a regular file and leave
/// the file it points to as it was).
fn target(path: &Path) -> Result<PathBuf, WriteError> {
    let metadata = fs::symlink_metadata(path).map_err(|cause| io(path, cause))?;
    if metadata.file_type().is_symlink() {
        fs::canonicalize(path).map_err(|cause| io(path, cause))
    } else {
        Ok(path.to_path_buf())
    }
}

/// The new text in a new file beside `target` (the file the rename replaces), with its
/// permissions.
fn temporary(file: &Replacement<'_>, target: &Path) -> Result<PathBuf, WriteError> {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = target.parent().filter(|d| !d.as_os_str().is_empty());
    let temporary = dir
        .unwrap_or(Path::new("."))
        .join(format!(".{name}.converge-{}.tmp", std::process::id()));
    let written = (|| {
        let mut out = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temporary)?;
        out.write_all(file.new.as_bytes())?;
        out.sync_all()?;
        let permissions = fs::metadata(target)?.permissions();
        fs::set_permissions(&temporary, permissions)
    })();
    written.map_err(|cause| {
        let _ = fs::remove_file(&temporary);
        io(file.path, cause)
    })?;
    Ok(temporary)
}

fn io(path: &Path, cause: std::io::Error) -> WriteError {
    WriteError::Io {
        path: path.display().to_string(),
        cause,
    }
}
