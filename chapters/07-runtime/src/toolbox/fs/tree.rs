//! Changing the tree of names: making and removing directories, renaming,
//! linking, and resolving links ([`create_dir`], [`create_dir_all`],
//! [`DirBuilder`], [`remove_file`], [`remove_dir`], [`remove_dir_all`],
//! [`rename`], [`hard_link`], [`symlink`], [`canonicalize`],
//! [`read_link`]). Each is the `std::fs` call of the same name on the
//! blocking pool.
//!
//! Book: Chapter 7, "The budget and the blocking pool", section "Files:
//! why they go to the blocking pool".

use super::asyncify;
use std::io;
use std::path::{Path, PathBuf};

path_functions! {
    /// Makes the directory `path`; its parent must exist
    /// (`std::fs::create_dir` on the blocking pool).
    ///
    /// # Errors
    ///
    /// `AlreadyExists` if `path` exists, `NotFound` if its parent does not.
    fn create_dir -> ();
    /// Makes the directory `path` and any missing parents; a directory that
    /// already exists is not an error (`std::fs::create_dir_all` on the
    /// blocking pool).
    fn create_dir_all -> ();
    /// Removes the file (or symbolic link) at `path`
    /// (`std::fs::remove_file` on the blocking pool).
    fn remove_file -> ();
    /// Removes the empty directory `path` (`std::fs::remove_dir` on the
    /// blocking pool).
    fn remove_dir -> ();
    /// Removes the directory `path` and everything in it
    /// (`std::fs::remove_dir_all` on the blocking pool: one pool job for the
    /// whole tree).
    fn remove_dir_all -> ();
}

/// Renames `from` to `to`, replacing `to` if it is a file
/// (`std::fs::rename` on the blocking pool).
///
/// # Panics
///
/// When awaited outside a runtime.
pub async fn rename(from: impl AsRef<Path>, to: impl AsRef<Path>) -> io::Result<()> {
    let (from, to) = (from.as_ref().to_owned(), to.as_ref().to_owned());
    asyncify(move || std::fs::rename(from, to)).await
}

/// Makes `link` a second name for the file `original`
/// (`std::fs::hard_link` on the blocking pool).
///
/// # Panics
///
/// When awaited outside a runtime.
pub async fn hard_link(original: impl AsRef<Path>, link: impl AsRef<Path>) -> io::Result<()> {
    let (original, link) = (original.as_ref().to_owned(), link.as_ref().to_owned());
    asyncify(move || std::fs::hard_link(original, link)).await
}

/// Makes `link` a symbolic link to `original`
/// (`std::os::unix::fs::symlink` on the blocking pool).
///
/// # Panics
///
/// When awaited outside a runtime.
#[cfg(unix)]
pub async fn symlink(original: impl AsRef<Path>, link: impl AsRef<Path>) -> io::Result<()> {
    let (original, link) = (original.as_ref().to_owned(), link.as_ref().to_owned());
    asyncify(move || std::os::unix::fs::symlink(original, link)).await
}

path_functions! {
    /// The absolute form of `path`, with every symbolic link resolved and no
    /// `.` or `..` left (`std::fs::canonicalize` on the blocking pool).
    fn canonicalize -> PathBuf;
    /// What the symbolic link `path` points to (`std::fs::read_link` on the
    /// blocking pool).
    fn read_link -> PathBuf;
}

/// Makes directories with chosen options: Tokio's `DirBuilder`, a
/// `std::fs::DirBuilder` whose `create` runs on the blocking pool.
///
/// ```
/// # rt::Runtime::new().unwrap().block_on(async {
/// let root = std::env::temp_dir().join(format!("rt-doc-dirbuilder-{}", std::process::id()));
/// rt::fs::DirBuilder::new().recursive(true).create(root.join("a/b")).await?;
/// assert!(rt::fs::metadata(root.join("a/b")).await?.is_dir());
/// rt::fs::remove_dir_all(&root).await?;
/// # Ok::<(), std::io::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Default)]
pub struct DirBuilder {
    /// Make missing parents too, and accept a directory that exists.
    recursive: bool,
    /// The permission bits of new directories (before the umask).
    #[cfg(unix)]
    mode: Option<u32>,
}

impl DirBuilder {
    /// A builder that makes one directory, with default permissions.
    pub fn new() -> Self {
        DirBuilder::default()
    }

    /// With `true`, `create` also makes missing parents and does not fail
    /// when the directory already exists (as `create_dir_all`).
    pub fn recursive(&mut self, recursive: bool) -> &mut Self {
        self.recursive = recursive;
        self
    }

    /// The permission bits of the directories made (`0o777` by default,
    /// less the process's umask).
    #[cfg(unix)]
    pub fn mode(&mut self, mode: u32) -> &mut Self {
        self.mode = Some(mode);
        self
    }

    /// Makes the directory `path` with these options, on the blocking pool.
    ///
    /// # Panics
    ///
    /// When awaited outside a runtime.
    pub async fn create(&self, path: impl AsRef<Path>) -> io::Result<()> {
        let path = path.as_ref().to_owned();
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(self.recursive);
        #[cfg(unix)]
        if let Some(mode) = self.mode {
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, mode);
        }
        asyncify(move || builder.create(path)).await
    }
}
