//! Single keys from the terminal, for `watch`: `h`, `r` and `q` act at
//! once, without Enter.
//!
//! A terminal normally hands a program whole lines (*canonical* mode), echoes
//! what is typed, and turns Ctrl-C into SIGINT. [`KeyMode::enable`] switches
//! those three off with `tcsetattr`, so each byte arrives as it is typed, is
//! not echoed, and Ctrl-C arrives as byte 3 (so `watch` can stop its test run
//! and restore the terminal before it exits, instead of dying with the
//! terminal left in this mode). Output processing is left on, so `\n` still
//! starts a new line. Dropping the guard restores the terminal as it was.

use std::io::{self, IsTerminal};
use std::mem::MaybeUninit;

/// Ctrl-C, as a byte, once the terminal no longer turns it into a signal.
pub const CTRL_C: u8 = 3;
/// Ctrl-D.
pub const CTRL_D: u8 = 4;

/// The terminal's settings before [`KeyMode::enable`], put back on drop.
pub struct KeyMode {
    saved: libc::termios,
}

impl KeyMode {
    /// Switches standard input to key-at-a-time mode; `None` if it is not a
    /// terminal (then keys arrive a line at a time, as typed).
    pub fn enable() -> io::Result<Option<KeyMode>> {
        if !io::stdin().is_terminal() {
            return Ok(None);
        }
        let mut saved = MaybeUninit::<libc::termios>::uninit();
        // SAFETY: tcgetattr fills the termios it is given when it returns 0,
        // and we read it only then.
        let saved = unsafe {
            if libc::tcgetattr(libc::STDIN_FILENO, saved.as_mut_ptr()) != 0 {
                return Err(io::Error::last_os_error());
            }
            saved.assume_init()
        };
        let mut keys = saved;
        keys.c_lflag &= !(libc::ICANON | libc::ECHO | libc::ISIG);
        keys.c_cc[libc::VMIN] = 1;
        keys.c_cc[libc::VTIME] = 0;
        set(&keys)?;
        Ok(Some(KeyMode { saved }))
    }
}

impl Drop for KeyMode {
    fn drop(&mut self) {
        let _ = set(&self.saved);
    }
}

fn set(settings: &libc::termios) -> io::Result<()> {
    // SAFETY: `settings` is a valid termios, read by tcsetattr only.
    if unsafe { libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, settings) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
