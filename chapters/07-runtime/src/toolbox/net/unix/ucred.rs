//! [`UCred`]: who is at the other end of a Unix stream, as the kernel
//! recorded it when the connection was made (`SO_PEERCRED`, Linux).
//!
//! Book: Chapter 8, "Sockets".

use std::io;
use std::os::fd::AsRawFd;

/// A user ID, as [`UCred::uid`] returns it.
#[allow(non_camel_case_types)]
pub type uid_t = u32;

/// A group ID, as [`UCred::gid`] returns it.
#[allow(non_camel_case_types)]
pub type gid_t = u32;

/// A process ID, as [`UCred::pid`] returns it.
#[allow(non_camel_case_types)]
pub type pid_t = i32;

/// The credentials of the process at the other end of a Unix stream, from
/// [`UnixStream::peer_cred`](crate::net::UnixStream::peer_cred): those it
/// had when the connection was made (see `peer_cred`).
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub struct UCred {
    pid: Option<pid_t>,
    uid: uid_t,
    gid: gid_t,
}

impl UCred {
    /// The peer's effective user ID.
    pub fn uid(&self) -> uid_t {
        self.uid
    }

    /// The peer's effective group ID.
    pub fn gid(&self) -> gid_t {
        self.gid
    }

    /// The peer's process ID. Always `Some` on Linux, the one platform rt
    /// runs on; Tokio returns `None` where the platform cannot tell.
    pub fn pid(&self) -> Option<pid_t> {
        self.pid
    }
}

/// Reads `SO_PEERCRED` from a connected Unix stream socket.
pub(crate) fn peer_cred(socket: &impl AsRawFd) -> io::Result<UCred> {
    let mut cred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: the descriptor is an open socket that `socket` owns for the
    // length of the call; `cred` is a writable `ucred` and `len` holds its
    // size, which the kernel writes no more than.
    let r = unsafe {
        libc::getsockopt(
            socket.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&raw mut cred).cast(),
            &raw mut len,
        )
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    if len as usize != std::mem::size_of::<libc::ucred>() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "SO_PEERCRED returned a short ucred",
        ));
    }
    Ok(UCred {
        pid: Some(cred.pid),
        uid: cred.uid,
        gid: cred.gid,
    })
}
