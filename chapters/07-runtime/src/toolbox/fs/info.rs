//! What the file system knows about a path: [`metadata`],
//! [`symlink_metadata`], [`try_exists`], and [`set_permissions`] to change
//! it. One `stat`-family system call each, on the blocking pool: short, but
//! a `stat` on a network file system or a cold disk can block as long as a
//! read.
//!
//! Book: Chapter 7, "The budget and the blocking pool", section "Files:
//! why they go to the blocking pool".

use super::asyncify;
use std::fs::{Metadata, Permissions};
use std::io;
use std::path::Path;

path_functions! {
    /// The metadata of the file or directory at `path`, following symbolic
    /// links (`std::fs::metadata` on the blocking pool).
    fn metadata -> Metadata;
    /// The metadata of `path` itself, without following a symbolic link
    /// (`std::fs::symlink_metadata` on the blocking pool).
    fn symlink_metadata -> Metadata;
}

/// `Ok(true)` if `path` names an existing file or directory (following
/// symbolic links), `Ok(false)` if it does not, and an error if the answer
/// is unknown, e.g. a parent directory may not be searched
/// (`Path::try_exists` on the blocking pool).
///
/// # Panics
///
/// When awaited outside a runtime.
pub async fn try_exists(path: impl AsRef<Path>) -> io::Result<bool> {
    let path = path.as_ref().to_owned();
    asyncify(move || path.try_exists()).await
}

/// Changes the permissions of the file or directory at `path`
/// (`std::fs::set_permissions` on the blocking pool).
///
/// # Panics
///
/// When awaited outside a runtime.
pub async fn set_permissions(path: impl AsRef<Path>, perm: Permissions) -> io::Result<()> {
    let path = path.as_ref().to_owned();
    asyncify(move || std::fs::set_permissions(path, perm)).await
}
