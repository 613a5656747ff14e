//! Reference solution for ch10_short_write.

use std::future::Future;
use std::io;

/// One write operation, as a completion-based runtime offers it.
pub trait Writer {
    /// Submits a write of `buf[offset..]` and resolves when its completion
    /// arrives: how many bytes the kernel took (possibly fewer than
    /// offered), or the error; and the buffer, back.
    fn write_at(
        &mut self,
        buf: Vec<u8>,
        offset: usize,
    ) -> impl Future<Output = (io::Result<usize>, Vec<u8>)>;
}

/// Writes all of `buf`, resubmitting after short writes; gives `buf` back.
pub async fn write_all(writer: &mut impl Writer, mut buf: Vec<u8>) -> (io::Result<()>, Vec<u8>) {
    let mut offset = 0;
    while offset < buf.len() {
        let (result, back) = writer.write_at(buf, offset).await;
        buf = back;
        match result {
            Ok(0) => return (Err(io::ErrorKind::WriteZero.into()), buf),
            Ok(n) => offset += n,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return (Err(err), buf),
        }
    }
    (Ok(()), buf)
}
