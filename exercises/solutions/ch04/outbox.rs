//! Reference solution for ch04_outbox.

use std::collections::VecDeque;
use std::io::{self, Write};

/// Bytes accepted for sending but not yet written to the socket.
#[derive(Debug, Default)]
pub struct Outbox {
    queue: VecDeque<u8>,
}

/// Writes what the socket takes now; 0 when it is full.
fn write_some(socket: &mut impl Write, data: &[u8]) -> io::Result<usize> {
    loop {
        match socket.write(data) {
            Ok(n) => return Ok(n),
            Err(err) if err.kind() == io::ErrorKind::WouldBlock => return Ok(0),
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
}

impl Outbox {
    /// Sends `data`: now if possible, later for the rest.
    pub fn send(&mut self, socket: &mut impl Write, data: &[u8]) -> io::Result<()> {
        let mut written = 0;
        if self.queue.is_empty() {
            while written < data.len() {
                let n = write_some(socket, &data[written..])?;
                if n == 0 {
                    break;
                }
                written += n;
            }
        }
        self.queue.extend(&data[written..]);
        Ok(())
    }

    /// Writes queued bytes; returns whether the queue is empty.
    pub fn flush(&mut self, socket: &mut impl Write) -> io::Result<bool> {
        while !self.queue.is_empty() {
            let (front, _) = self.queue.as_slices();
            let n = write_some(socket, front)?;
            if n == 0 {
                return Ok(false);
            }
            self.queue.drain(..n);
        }
        Ok(true)
    }

    /// Bytes queued.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
