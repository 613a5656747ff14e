//! What each future weighs, against a fiber's stack.
//!
//! A future's size is the size of its state machine: the largest set of
//! values that must survive any one `.await`, plus the state number. It is
//! known at compile time (`size_of_val`), it is all the memory a suspended
//! task needs (the executor boxes it once), and nothing grows at run time.
//! A stackful fiber (Chapter 2) reserves a whole stack instead, sized for
//! the deepest call it might make.
//!
//! [`measure`] builds each future of this chapter without polling it and
//! reports its size.

use std::io;
use std::mem::size_of_val;
use std::net::SocketAddr;

use crate::executor::Executor;
use crate::net::{TcpListener, TcpStream};
use crate::relay_future::RelaySession;
use crate::{echo, relay_async, time};

/// Sizes in bytes.
#[derive(Debug, Clone, Copy)]
pub struct Sizes {
    /// The hand-written relay session.
    pub future_relay: usize,
    /// The `async fn` relay session.
    pub async_relay: usize,
    /// The async echo handler (it holds its 4 KiB buffer).
    pub async_echo: usize,
    /// A `Sleep`.
    pub sleep: usize,
    /// A pending `Connect`.
    pub connect: usize,
    /// A Chapter 2 fiber's stack (reserved, not all touched).
    pub green_thread_stack: usize,
}

// ANCHOR: sizes
/// Builds each future (on a real loopback connection) and weighs it.
pub fn measure() -> io::Result<Sizes> {
    Executor::new()?.block_on(async {
        let listener = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0)))?;
        let addr = listener.local_addr()?;
        let connect = TcpStream::connect(addr);
        let connect_size = size_of_val(&connect);
        let a = connect.await?;
        let (b, _) = listener.accept().await?;
        let c = TcpStream::connect(addr).await?;
        let async_relay = relay_async::session(a, addr);
        let future_relay = RelaySession::new(b, addr);
        let async_echo = echo::echo(c);
        Ok(Sizes {
            future_relay: size_of_val(&future_relay),
            async_relay: size_of_val(&async_relay),
            async_echo: size_of_val(&async_echo),
            sleep: size_of_val(&time::sleep(std::time::Duration::from_secs(1))),
            connect: connect_size,
            green_thread_stack: chapter_02::green::scheduler::DEFAULT_STACK_BYTES,
        })
    })
}
// ANCHOR_END: sizes

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(
        miri,
        ignore = "uses the reactor (epoll, sockets), which Miri does not run"
    )]
    fn futures_weigh_less_than_a_fiber_stack() {
        let sizes = measure().unwrap();
        assert!(sizes.async_echo > crate::echo::BUFFER_BYTES, "{sizes:?}");
        for size in [sizes.future_relay, sizes.async_relay, sizes.async_echo] {
            assert!(size < sizes.green_thread_stack, "{sizes:?}");
        }
    }
}
