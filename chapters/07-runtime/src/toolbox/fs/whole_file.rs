//! A whole file in one call: [`read`], [`read_to_string`], [`write`],
//! [`copy`]. Each moves its path (and, for `write`, its bytes) to the
//! blocking pool, where the `std::fs` function of the same name runs.
//!
//! Book: Chapter 7, "The budget and the blocking pool", section "Files:
//! why they go to the blocking pool".

use super::asyncify;
use std::io;
use std::path::Path;

path_functions! {
    /// Reads the whole file at `path` into a `Vec<u8>`
    /// (`std::fs::read` on the blocking pool).
    ///
    /// ```
    /// # rt::Runtime::new().unwrap().block_on(async {
    /// let path = std::env::temp_dir().join(format!("rt-doc-read-{}", std::process::id()));
    /// rt::fs::write(&path, b"bytes").await?;
    /// assert_eq!(rt::fs::read(&path).await?, b"bytes");
    /// rt::fs::remove_file(&path).await?;
    /// # Ok::<(), std::io::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    ///
    /// As `std::fs::read`: `NotFound` if there is no such file, and so on.
    fn read -> Vec<u8>;
    /// Reads the whole file at `path` into a `String`
    /// (`std::fs::read_to_string` on the blocking pool).
    ///
    /// # Errors
    ///
    /// As `std::fs::read_to_string`; a file that is not UTF-8 is an error of
    /// kind `InvalidData`.
    fn read_to_string -> String;
}

/// Writes `contents` as the whole of the file at `path`, creating it if it
/// does not exist and truncating it if it does (`std::fs::write` on the
/// blocking pool). The bytes are copied once, to move them to the pool.
///
/// # Panics
///
/// When awaited outside a runtime.
pub async fn write(path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> io::Result<()> {
    let path = path.as_ref().to_owned();
    let contents = contents.as_ref().to_owned();
    asyncify(move || std::fs::write(path, contents)).await
}

/// Copies the contents and permissions of the file `from` to `to`,
/// replacing `to`; returns the number of bytes copied (`std::fs::copy` on
/// the blocking pool).
///
/// # Panics
///
/// When awaited outside a runtime.
pub async fn copy(from: impl AsRef<Path>, to: impl AsRef<Path>) -> io::Result<u64> {
    let (from, to) = (from.as_ref().to_owned(), to.as_ref().to_owned());
    asyncify(move || std::fs::copy(from, to)).await
}
