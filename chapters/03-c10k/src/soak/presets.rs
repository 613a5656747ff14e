//! The book's servers by name, as command lines.
//!
//! Each chapter's `serve` is a binary in the same target directory as this
//! one (`target/release/chapter-04`, ...), and the HTTP server is
//! Chapter 7's example (`target/release/examples/http`). A preset names the
//! binary and the arguments; the binaries must be built first, for example
//! `cargo build --release -p chapter-01 -p chapter-04 -p chapter-05
//! -p chapter-06 -p chapter-07 --bins --example http`.

use std::io;
use std::path::{Path, PathBuf};

use super::child::ServerCommand;
use super::exchange::Protocol;

/// Every preset, in chapter order: (name, binary, arguments, protocol).
pub const PRESETS: [(&str, &str, &[&str], Protocol); 8] = [
    (
        "ch01",
        "chapter-01",
        &["serve", "--addr", "127.0.0.1:{port}"],
        Protocol::Echo,
    ),
    (
        "ch03",
        "chapter-03",
        &["serve", "--addr", "127.0.0.1:0"],
        Protocol::Echo,
    ),
    (
        "ch04-et",
        "chapter-04",
        &["serve", "--addr", "127.0.0.1:0", "--mode", "et"],
        Protocol::Echo,
    ),
    (
        "ch04-lt",
        "chapter-04",
        &["serve", "--addr", "127.0.0.1:0", "--mode", "lt"],
        Protocol::Echo,
    ),
    (
        "ch05",
        "chapter-05",
        &["serve", "--addr", "127.0.0.1:0"],
        Protocol::Echo,
    ),
    (
        "ch06",
        "chapter-06",
        &["serve", "--addr", "127.0.0.1:0"],
        Protocol::Echo,
    ),
    (
        "ch07",
        "chapter-07",
        &["serve", "--addr", "127.0.0.1:0"],
        Protocol::Echo,
    ),
    (
        "http",
        "examples/http",
        &["serve", "--addr", "127.0.0.1:0"],
        Protocol::Http,
    ),
];

/// The names of every preset, for help and errors.
pub fn names() -> Vec<&'static str> {
    PRESETS.iter().map(|p| p.0).collect()
}

/// The preset `name` with its binary in `bin_dir`, or a clear error.
pub fn resolve(name: &str, bin_dir: &Path) -> io::Result<ServerCommand> {
    let Some((name, binary, args, protocol)) = PRESETS.iter().find(|p| p.0 == name) else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "--server {name:?}: no such preset; the presets are {}",
                names().join(", ")
            ),
        ));
    };
    let program: PathBuf = bin_dir.join(binary);
    if !program.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!(
                "server {name}: {} does not exist; build it first (see `chapter-03 soak --help`)",
                program.display()
            ),
        ));
    }
    Ok(ServerCommand {
        name: name.to_string(),
        program,
        args: args.iter().map(|a| a.to_string()).collect(),
        protocol: *protocol,
    })
}

/// The directory of the running binary: where Cargo put its siblings.
pub fn default_bin_dir() -> io::Result<PathBuf> {
    let exe = std::env::current_exe()?;
    exe.parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| io::Error::other("the running binary has no directory"))
}
