//! A byte stream in two halves: one that reads and one that writes, so that
//! reading and writing can go on at the same time (an echo server's copy
//! loop, a client that sends while it receives). TCP and Unix streams split
//! the same way, so the halves are written once, as the macro
//! [`stream_halves!`], which `tcp/split.rs` and `unix/split.rs` each expand
//! for their stream type.
//!
//! Why is that possible without a lock? The driver keeps a reader slot and a
//! writer slot per socket (`scheduled_io.rs`), and the kernel lets one
//! thread `read` a socket while another `write`s it. So a half is nothing
//! but a reference to the stream that promises to use one direction only:
//!
//! * `split(&mut self)` lends the stream to a `ReadHalf` and a `WriteHalf`
//!   that borrow it: free, but both halves live in the caller's scope (two
//!   futures joined in one task);
//! * `into_split(self)` puts the stream in an `Arc` shared by an
//!   `OwnedReadHalf` and an `OwnedWriteHalf`, which can move to two tasks.
//!   Dropping the owned write half shuts down the write direction (the peer
//!   reads end of stream), as in Tokio; `forget` drops it without that.
//!   `reunite` puts the two halves of one stream back together, and refuses
//!   (with `ReuniteError`, handing both back) halves of two different
//!   streams.
//!
//! Each half reads or writes through the stream's `RegisteredSource`
//! (`core/io_driver/registered_source.rs`), like the stream itself.
//!
//! Book: Chapter 8, "Sockets".

/// Expands, in the module of a stream type `$stream` whose peer and local
/// addresses are `$addr`, to its four halves, `ReuniteError`, and the
/// `split`/`into_split` functions the stream's methods call.
macro_rules! stream_halves {
    ($stream:ident, $addr:ty) => {
        use ::std::sync::Arc;

        #[doc = concat!("The read half of a borrowed split ([`", stringify!($stream), "::split`]).")]
        #[derive(Debug)]
        pub struct ReadHalf<'a>(&'a $stream);

        #[doc = concat!("The write half of a borrowed split ([`", stringify!($stream), "::split`]).")]
        /// `close` shuts down the write direction; dropping it does not.
        #[derive(Debug)]
        pub struct WriteHalf<'a>(&'a $stream);

        // ANCHOR: owned
        #[doc = concat!("The read half of an owned split ([`", stringify!($stream), "::into_split`]).")]
        #[derive(Debug)]
        pub struct OwnedReadHalf {
            stream: Arc<$stream>,
        }

        #[doc = concat!("The write half of an owned split ([`", stringify!($stream), "::into_split`]).")]
        /// Dropping it shuts down the write direction of the stream.
        #[derive(Debug)]
        pub struct OwnedWriteHalf {
            stream: Arc<$stream>,
            shutdown_on_drop: bool,
        }
        // ANCHOR_END: owned

        /// [`OwnedWriteHalf::reunite`] was given halves of two different
        /// streams; both are handed back, unchanged.
        #[derive(Debug)]
        pub struct ReuniteError(pub OwnedReadHalf, pub OwnedWriteHalf);

        pub(super) fn split(stream: &mut $stream) -> (ReadHalf<'_>, WriteHalf<'_>) {
            (ReadHalf(stream), WriteHalf(stream))
        }

        pub(super) fn into_split(stream: $stream) -> (OwnedReadHalf, OwnedWriteHalf) {
            let stream = Arc::new(stream);
            let read = OwnedReadHalf {
                stream: stream.clone(),
            };
            let write = OwnedWriteHalf {
                stream,
                shutdown_on_drop: true,
            };
            (read, write)
        }

        $crate::net::halves::half_methods!(ReadHalf<'_>, |half| half.0, $stream, $addr, read);
        $crate::net::halves::half_methods!(OwnedReadHalf, |half| &half.stream, $stream, $addr, read);
        $crate::net::halves::half_methods!(WriteHalf<'_>, |half| half.0, $stream, $addr, write);
        $crate::net::halves::half_methods!(OwnedWriteHalf, |half| &half.stream, $stream, $addr, write);

        impl OwnedReadHalf {
            /// Puts the stream back together; see [`OwnedWriteHalf::reunite`].
            pub fn reunite(self, other: OwnedWriteHalf) -> Result<$stream, ReuniteError> {
                other.reunite(self)
            }
        }

        impl OwnedWriteHalf {
            // ANCHOR: reunite
            /// Puts the two halves of one `into_split` back into the
            /// stream; halves of different streams are refused and handed
            /// back in the error. The write direction stays open.
            pub fn reunite(mut self, other: OwnedReadHalf) -> Result<$stream, ReuniteError> {
                if !Arc::ptr_eq(&self.stream, &other.stream) {
                    return Err(ReuniteError(other, self));
                }
                self.shutdown_on_drop = false;
                let stream = self.stream.clone();
                drop(self);
                drop(other);
                Ok(Arc::into_inner(stream).expect("the two halves held the only references"))
            }
            // ANCHOR_END: reunite

            /// Drops the write half without shutting down the write
            /// direction (it closes with the stream, when the read half is
            /// dropped too).
            pub fn forget(mut self) {
                self.shutdown_on_drop = false;
            }
        }

        // ANCHOR: drop
        impl Drop for OwnedWriteHalf {
            fn drop(&mut self) {
                if self.shutdown_on_drop {
                    // The peer reads end of stream, as when Tokio's write
                    // half drops; an error (the peer already gone) has
                    // nobody to go to.
                    let _ = self.stream.io.shutdown_write();
                }
            }
        }
        // ANCHOR_END: drop

        $crate::net::shared::stream_traits!(read ReadHalf<'_>, |half| half.0.io);
        $crate::net::shared::stream_traits!(read OwnedReadHalf, |half| half.stream.io);
        $crate::net::shared::stream_traits!(write WriteHalf<'_>, |half| half.0.io);
        $crate::net::shared::stream_traits!(write OwnedWriteHalf, |half| half.stream.io);

        /// In Tokio's words, for TCP and Unix streams alike.
        impl ::std::fmt::Display for ReuniteError {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str("tried to reunite halves that are not from the same socket")
            }
        }

        impl ::std::error::Error for ReuniteError {}
    };
}
pub(crate) use stream_halves;

/// The methods of one half, `$half`, of a `$stream`: the addresses,
/// `ready` and `AsRef`, and the reading (`read`) or the writing (`write`)
/// side of the stream's readiness API. Each is the stream's own method.
macro_rules! half_methods {
    ($half:ty, |$this:ident| $get:expr, $stream:ident, $addr:ty, $side:ident) => {
        impl $half {
            /// The peer's address.
            pub fn peer_addr(&self) -> ::std::io::Result<$addr> {
                self.as_ref().peer_addr()
            }

            /// This end's address.
            pub fn local_addr(&self) -> ::std::io::Result<$addr> {
                self.as_ref().local_addr()
            }

            #[doc = concat!("[`", stringify!($stream), "::ready`] on the whole stream.")]
            pub async fn ready(&self, interest: $crate::io::Interest) -> ::std::io::Result<$crate::io::Ready> {
                self.as_ref().ready(interest).await
            }

            $crate::net::halves::half_methods!(@$side $stream);
        }

        impl AsRef<$stream> for $half {
            fn as_ref(&self) -> &$stream {
                let $this = self;
                $get
            }
        }
    };
    (@read $stream:ident) => {
        #[doc = concat!("[`", stringify!($stream), "::readable`].")]
        pub async fn readable(&self) -> ::std::io::Result<()> {
            self.as_ref().readable().await
        }

        #[doc = concat!("[`", stringify!($stream), "::try_read`].")]
        pub fn try_read(&self, buf: &mut [u8]) -> ::std::io::Result<usize> {
            self.as_ref().try_read(buf)
        }

        #[doc = concat!("[`", stringify!($stream), "::try_read_vectored`].")]
        pub fn try_read_vectored(&self, bufs: &mut [::std::io::IoSliceMut<'_>]) -> ::std::io::Result<usize> {
            self.as_ref().try_read_vectored(bufs)
        }

        #[doc = concat!("[`", stringify!($stream), "::try_read_buf`].")]
        pub fn try_read_buf<B: ::bytes::BufMut>(&self, buf: &mut B) -> ::std::io::Result<usize> {
            self.as_ref().try_read_buf(buf)
        }
    };
    (@write $stream:ident) => {
        #[doc = concat!("[`", stringify!($stream), "::writable`].")]
        pub async fn writable(&self) -> ::std::io::Result<()> {
            self.as_ref().writable().await
        }

        #[doc = concat!("[`", stringify!($stream), "::try_write`].")]
        pub fn try_write(&self, buf: &[u8]) -> ::std::io::Result<usize> {
            self.as_ref().try_write(buf)
        }

        #[doc = concat!("[`", stringify!($stream), "::try_write_vectored`].")]
        pub fn try_write_vectored(&self, bufs: &[::std::io::IoSlice<'_>]) -> ::std::io::Result<usize> {
            self.as_ref().try_write_vectored(bufs)
        }
    };
}
pub(crate) use half_methods;
