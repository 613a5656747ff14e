//! What the checker's own tests share: a scratch copy of the workspace.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The workspace this package belongs to.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// A fresh copy of the sources a build of the exercises needs (manifests,
/// lock file, chapters, exercises; no build output, no checker state), at
/// the same place each time, so that builds of it are incremental. Build it
/// with `CARGO_TARGET_DIR` set to [`target`]: cargo holds no lock on that
/// while tests run, and the dependencies already built there are reused.
///
/// Every test that builds a copy uses this one place; cargo runs one test
/// binary at a time, and each binary has only one test that builds.
pub fn workspace_copy() -> PathBuf {
    let to = Path::new(env!("CARGO_TARGET_TMPDIR")).join("workspace-copy");
    let _ = std::fs::remove_dir_all(&to);
    std::fs::create_dir_all(&to).unwrap();
    let from = workspace();
    for top in [
        "Cargo.toml",
        "Cargo.lock",
        ".cargo",
        "chapters",
        "exercises",
    ] {
        // The chapters keep their times, so cargo sees them unchanged since
        // the last copy's build and does not compile them again. The
        // exercises get new times: tests change them, and a file put back
        // with an old time could look older than a build of the changed one.
        copy(&from.join(top), &to.join(top), top != "exercises");
    }
    to
}

/// The target directory the tests' copies build in.
pub fn target() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Copies `from` to `to`, a file or a tree, without build output or the
/// checker's state; with `keep_times`, each file keeps its modification time.
pub fn copy(from: &Path, to: &Path, keep_times: bool) {
    let Ok(metadata) = std::fs::symlink_metadata(from) else {
        return;
    };
    if metadata.is_dir() {
        let name = from.file_name().unwrap_or_default();
        if name == "target" || name == "node_modules" || name == ".checker" {
            return;
        }
        std::fs::create_dir_all(to).unwrap();
        let Ok(entries) = std::fs::read_dir(from) else {
            return;
        };
        for entry in entries {
            let entry = entry.unwrap();
            copy(&entry.path(), &to.join(entry.file_name()), keep_times);
        }
    } else if metadata.is_file() {
        // A file deleted since the directory was read is not needed.
        if let Err(err) = std::fs::copy(from, to) {
            assert_eq!(err.kind(), std::io::ErrorKind::NotFound, "{from:?}: {err}");
            return;
        }
        if keep_times {
            let file = std::fs::File::options().write(true).open(to).unwrap();
            file.set_modified(metadata.modified().unwrap()).unwrap();
        }
    }
}
