//! [`ToSocketAddrs`]: what `bind`, `connect`, `send_to` and
//! [`lookup_host`] accept, turned into socket addresses without blocking the
//! worker.
//!
//! std has a trait of the same name, but its `to_socket_addrs` is a plain
//! function: for a host name (`"example.com:80"`) it calls the system
//! resolver (`getaddrinfo`), which may read files, ask a DNS server and wait
//! seconds for the answer. Called from a task, that wait blocks the worker
//! thread and every task queued on it; on a current-thread runtime, the
//! whole runtime.
//!
//! So ours, like Tokio's, splits the inputs in two:
//!
//! * an address already (`SocketAddr`, `(IpAddr, u16)`, a string that
//!   parses as `"127.0.0.1:8080"` or `"[::1]:8080"`, a `("127.0.0.1", 80)`
//!   pair): parsed on the spot, no thread, no waiting;
//! * anything else is a host name: the resolver runs on the blocking pool
//!   (`spawn_blocking`), and the task awaits its `JoinHandle`, so the
//!   worker runs other tasks meanwhile.
//!
//! The trait is *sealed*: its one method is on a supertrait in a private
//! module, so a program can pass any of the types below but cannot
//! implement the trait or call the method; it may change without breaking
//! anyone. [`first_that_works`] is the loop `bind` and `connect` run over
//! the addresses a name resolves to.
//!
//! Book: Chapter 8, "Sockets".

use crate::task::JoinHandle;
use std::future::Future;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// Converts or resolves, without blocking the thread, to one or more
/// socket addresses: what `bind`, `connect`, `send_to` and
/// [`lookup_host`] take.
///
/// Implemented for `SocketAddr` (and its V4 and V6 forms), `(IpAddr, u16)`
/// (and the V4 and V6 forms), `&[SocketAddr]`, `str` and `String`
/// (`"host:port"`), `(&str, u16)` and `(String, u16)`, and references to
/// any of them. A string or pair that is an IP address is parsed at once; a
/// host name is resolved on the blocking pool.
///
/// Sealed: it cannot be implemented outside `rt`.
pub trait ToSocketAddrs: sealed::Resolve {}

mod sealed {
    /// The method behind [`ToSocketAddrs`](super::ToSocketAddrs), out of
    /// reach of programs.
    pub trait Resolve {
        /// Starts the conversion.
        #[doc(hidden)]
        fn resolve(&self) -> super::Resolution;
    }
}

/// Performs a DNS resolution: the socket addresses `host` stands for (a
/// `"name:port"` string, a `(name, port)` pair, an address), as Tokio's
/// `net::lookup_host` does. A name is resolved on the blocking pool; an
/// address is only parsed. The iterator may be empty, depending on what the
/// resolver answers.
///
/// ```
/// # rt::Runtime::new().unwrap().block_on(async {
/// let addrs: Vec<_> = rt::net::lookup_host("127.0.0.1:80").await?.collect();
/// assert_eq!(addrs, ["127.0.0.1:80".parse().unwrap()]);
/// # Ok::<(), std::io::Error>(())
/// # }).unwrap();
/// ```
pub async fn lookup_host<T: ToSocketAddrs>(
    host: T,
) -> io::Result<impl Iterator<Item = SocketAddr>> {
    host.resolve().await
}

/// Runs `attempt` on each address `addrs` stands for, in order, until one
/// succeeds; otherwise returns the last error (or, if there was no
/// address at all, an `InvalidInput` error).
pub(crate) async fn first_that_works<T, F>(
    addrs: impl ToSocketAddrs,
    mut attempt: impl FnMut(SocketAddr) -> F,
) -> io::Result<T>
where
    F: Future<Output = io::Result<T>>,
{
    let mut last_error = None;
    for addr in addrs.resolve().await? {
        match attempt(addr).await {
            Ok(done) => return Ok(done),
            Err(error) => last_error = Some(error),
        }
    }
    Err(last_error.unwrap_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "could not resolve to any address",
        )
    }))
}

/// The first address `addrs` stands for.
pub(crate) async fn first(addrs: impl ToSocketAddrs) -> io::Result<SocketAddr> {
    first_that_works(addrs, |addr| std::future::ready(Ok(addr))).await
}

/// A conversion under way: the addresses already, or the blocking pool's
/// job that resolves a name.
#[doc(hidden)]
#[derive(Debug)]
pub enum Resolution {
    /// Parsed: no waiting (`None` once taken).
    Parsed(Option<Vec<SocketAddr>>),
    /// A name, being resolved on the blocking pool.
    Resolving(JoinHandle<io::Result<Vec<SocketAddr>>>),
}

impl Resolution {
    fn parsed(addrs: impl IntoIterator<Item = SocketAddr>) -> Resolution {
        Resolution::Parsed(Some(addrs.into_iter().collect()))
    }

    /// Resolves `host` (a `"name:port"` string or a `(name, port)` pair)
    /// on the blocking pool, with std's resolver.
    fn on_blocking_pool<H>(host: H) -> Resolution
    where
        H: std::net::ToSocketAddrs + Send + 'static,
    {
        Resolution::Resolving(crate::task::spawn_blocking(move || {
            Ok(std::net::ToSocketAddrs::to_socket_addrs(&host)?.collect())
        }))
    }
}

impl Future for Resolution {
    type Output = io::Result<std::vec::IntoIter<SocketAddr>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.get_mut() {
            Resolution::Parsed(addrs) => Poll::Ready(Ok(addrs
                .take()
                .expect("a Resolution is not polled after it completed")
                .into_iter())),
            Resolution::Resolving(job) => {
                // A panic in the resolver (or a runtime shutting down)
                // becomes an `io::Error`.
                let addrs = ready!(Pin::new(job).poll(cx))??;
                Poll::Ready(Ok(addrs.into_iter()))
            }
        }
    }
}

// ANCHOR: resolve_str
impl ToSocketAddrs for str {}

impl sealed::Resolve for str {
    fn resolve(&self) -> Resolution {
        match self.parse::<SocketAddr>() {
            Ok(addr) => Resolution::parsed([addr]),
            Err(_) => Resolution::on_blocking_pool(self.to_owned()),
        }
    }
}

impl ToSocketAddrs for (&str, u16) {}

impl sealed::Resolve for (&str, u16) {
    fn resolve(&self) -> Resolution {
        let (host, port) = *self;
        match host.parse::<IpAddr>() {
            Ok(ip) => Resolution::parsed([SocketAddr::new(ip, port)]),
            Err(_) => Resolution::on_blocking_pool((host.to_owned(), port)),
        }
    }
}
// ANCHOR_END: resolve_str

impl ToSocketAddrs for String {}

impl sealed::Resolve for String {
    fn resolve(&self) -> Resolution {
        self.as_str().resolve()
    }
}

impl ToSocketAddrs for (String, u16) {}

impl sealed::Resolve for (String, u16) {
    fn resolve(&self) -> Resolution {
        (self.0.as_str(), self.1).resolve()
    }
}

/// Types that are an address already: parsed, never resolved.
macro_rules! addresses {
    ($($ty:ty => |$value:ident| $addr:expr;)*) => {$(
        impl ToSocketAddrs for $ty {}

        impl sealed::Resolve for $ty {
            fn resolve(&self) -> Resolution {
                let $value = *self;
                Resolution::parsed([SocketAddr::from($addr)])
            }
        }
    )*};
}

addresses! {
    SocketAddr => |addr| addr;
    SocketAddrV4 => |addr| addr;
    SocketAddrV6 => |addr| addr;
    (IpAddr, u16) => |pair| pair;
    (Ipv4Addr, u16) => |pair| pair;
    (Ipv6Addr, u16) => |pair| pair;
}

impl ToSocketAddrs for &[SocketAddr] {}

impl sealed::Resolve for &[SocketAddr] {
    fn resolve(&self) -> Resolution {
        Resolution::parsed(self.iter().copied())
    }
}

impl<T: ToSocketAddrs + ?Sized> ToSocketAddrs for &T {}

impl<T: sealed::Resolve + ?Sized> sealed::Resolve for &T {
    fn resolve(&self) -> Resolution {
        (**self).resolve()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::sealed::Resolve;
    use super::*;

    #[test]
    fn addresses_are_parsed_without_a_runtime() {
        // No runtime here: a conversion that needed the blocking pool would
        // panic.
        let mut cx = Context::from_waker(std::task::Waker::noop());
        let port = 8080;
        let literals: [&dyn Fn() -> Resolution; 6] = [
            &|| "127.0.0.1:8080".resolve(),
            &|| "[::1]:8080".to_string().resolve(),
            &|| ("10.0.0.1", port).resolve(),
            &|| (String::from("::1"), port).resolve(),
            &|| (Ipv4Addr::LOCALHOST, port).resolve(),
            &|| (&[SocketAddr::from(([127, 0, 0, 1], port))][..]).resolve(),
        ];
        for literal in literals {
            let mut resolution = literal();
            let Poll::Ready(Ok(mut addrs)) = Pin::new(&mut resolution).poll(&mut cx) else {
                panic!("a literal address was not ready at once");
            };
            assert_eq!(addrs.next().map(|addr| addr.port()), Some(port));
        }
    }
}
