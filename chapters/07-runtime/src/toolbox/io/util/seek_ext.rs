//! `AsyncSeekExt`: Tokio's seeking methods, on every `AsyncSeek`.
//!
//! The same pattern as `read_ext.rs`: the trait a stream implements has one
//! poll method, `poll_seek`, and the extension trait turns it into awaitable
//! methods with Tokio's names: `seek`, `rewind`, `stream_position`. Each
//! returns `futures::io`'s `Seek` future, whose output is Tokio's
//! (`io::Result<u64>`, the new position from the start).
//!
//! Tokio's `AsyncSeek` has two methods where `futures::io`'s has one:
//! `start_seek` then `poll_complete`. A program that only awaits these
//! methods does not see the difference (`io/mod.rs` says where the two
//! trait families differ).
//!
//! Book: Chapter 8, "Sockets", section "Tokio's names: the extension traits".

use futures::io::{AsyncSeek, Seek};
use std::io::SeekFrom;

/// Seeking methods for every [`AsyncSeek`], with Tokio's names and
/// signatures (`tokio::io::AsyncSeekExt`).
///
/// ```
/// use rt::io::{AsyncReadExt, AsyncSeekExt};
/// use std::io::SeekFrom;
///
/// # rt::Runtime::new().unwrap().block_on(async {
/// let mut cursor = futures::io::Cursor::new(b"abcdef".to_vec());
/// assert_eq!(cursor.seek(SeekFrom::End(-2)).await?, 4);
/// let mut byte = [0u8; 1];
/// cursor.read_exact(&mut byte).await?;
/// assert_eq!(&byte, b"e");
/// assert_eq!(cursor.stream_position().await?, 5);
/// assert_eq!(cursor.rewind().await?, 0);
/// # Ok::<(), std::io::Error>(())
/// # }).unwrap();
/// ```
pub trait AsyncSeekExt: AsyncSeek {
    futures_io_methods! {
        AsyncSeekExt;

        /// Moves the cursor to `pos` and returns the new position, counted in
        /// bytes from the start.
        ///
        /// # Errors
        ///
        /// A position before the start is an error of kind `InvalidInput`;
        /// otherwise as the stream's `poll_seek`.
        fn seek(&mut self, pos: SeekFrom) -> Seek<'_, Self>;
    }

    /// Moves the cursor back to the start; the position returned is 0.
    fn rewind(&mut self) -> Seek<'_, Self>
    where
        Self: Unpin,
    {
        self.seek(SeekFrom::Start(0))
    }

    /// The cursor's position, counted from the start, without moving it
    /// (a seek of 0 from the current position).
    fn stream_position(&mut self) -> Seek<'_, Self>
    where
        Self: Unpin,
    {
        self.seek(SeekFrom::Current(0))
    }
}

impl<S: AsyncSeek + ?Sized> AsyncSeekExt for S {}
