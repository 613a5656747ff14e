//! [`OpenOptions`]: how to open a [`File`], Tokio's builder around
//! `std::fs::OpenOptions`. The builder methods only record choices; `open`
//! makes the `open(2)` call on the blocking pool (an open can wait for the
//! disk, or for a network file system, as long as a read).
//!
//! Book: Chapter 7, "The budget and the blocking pool", section "Files:
//! why they go to the blocking pool".

use super::{File, asyncify};
use std::io;
use std::path::Path;

/// The builder's switches, each a method of `std::fs::OpenOptions` of the
/// same name: it records the choice in the `std` builder inside and returns
/// this one, for chaining.
macro_rules! switches {
    ($($(#[$doc:meta])* fn $name:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(&mut self, $name: bool) -> &mut OpenOptions {
            self.0.$name($name);
            self
        }
    )*};
}

/// Options for opening a file, as `std::fs::OpenOptions` with an `async`
/// [`open`](OpenOptions::open) that returns an rt [`File`].
///
/// ```
/// use rt::fs::OpenOptions;
/// use rt::io::AsyncWriteExt;
///
/// # rt::Runtime::new().unwrap().block_on(async {
/// let path = std::env::temp_dir().join(format!("rt-doc-open-options-{}", std::process::id()));
/// let mut log = OpenOptions::new().append(true).create(true).open(&path).await?;
/// log.write_all(b"one line\n").await?;
/// log.flush().await?;
/// assert_eq!(rt::fs::read_to_string(&path).await?, "one line\n");
/// rt::fs::remove_file(&path).await?;
/// # Ok::<(), std::io::Error>(())
/// # }).unwrap();
/// ```
#[derive(Clone, Debug)]
pub struct OpenOptions(std::fs::OpenOptions);

impl OpenOptions {
    /// All options off: set at least one of `read`, `write` or `append`
    /// before `open`.
    pub fn new() -> OpenOptions {
        OpenOptions(std::fs::OpenOptions::new())
    }

    switches! {
        /// Open for reading.
        fn read;
        /// Open for writing; without `truncate` or `append`, writes overwrite
        /// from the start.
        fn write;
        /// Open for appending: every write goes to the end of the file, even
        /// if another process has written there since (implies `write`).
        fn append;
        /// Cut an existing file to length 0 on opening (needs `write`).
        fn truncate;
        /// Create the file if it does not exist (needs `write` or `append`).
        fn create;
        /// Create the file, failing with `AlreadyExists` if it exists, in one
        /// atomic step; `create` and `truncate` are then ignored.
        fn create_new;
    }

    /// The permission bits of a file this creates (`0o666` by default,
    /// less the process's umask).
    #[cfg(unix)]
    pub fn mode(&mut self, mode: u32) -> &mut OpenOptions {
        std::os::unix::fs::OpenOptionsExt::mode(&mut self.0, mode);
        self
    }

    /// Extra `open(2)` flags, or-ed into those the options above choose.
    #[cfg(unix)]
    pub fn custom_flags(&mut self, flags: i32) -> &mut OpenOptions {
        std::os::unix::fs::OpenOptionsExt::custom_flags(&mut self.0, flags);
        self
    }

    /// Opens `path` with these options, on the blocking pool.
    ///
    /// # Errors
    ///
    /// As `std::fs::OpenOptions::open`: `NotFound`, `PermissionDenied`,
    /// `AlreadyExists` (with `create_new`), `InvalidInput` for a
    /// combination that makes no sense (no access mode, `truncate` without
    /// `write`).
    ///
    /// # Panics
    ///
    /// When awaited outside a runtime.
    pub async fn open(&self, path: impl AsRef<Path>) -> io::Result<File> {
        let (options, path) = (self.0.clone(), path.as_ref().to_owned());
        let std = asyncify(move || options.open(path)).await?;
        Ok(File::from_std(std))
    }
}

impl Default for OpenOptions {
    fn default() -> Self {
        Self::new()
    }
}

impl From<std::fs::OpenOptions> for OpenOptions {
    fn from(options: std::fs::OpenOptions) -> OpenOptions {
        OpenOptions(options)
    }
}
