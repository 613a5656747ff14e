//! Keeps the book's count of the behaviour suite honest.
//!
//! Chapter 7's "Checking it" page (`book/src/ch07-checking.md`) tells the
//! reader to run `cargo test -p rt --test behaviour_tokio` and says how many
//! tests it runs. That number is written by hand, so it can drift when a
//! test is added. This test counts the suite's tests the way the page does:
//! every `#[test]` and `#[crate::rt::test(..)]` attribute in the files the
//! Tokio entry file compiles (the modules `behaviour/mod.rs` declares, and
//! the `pending_*.rs` files the entry file names by `#[path]`), and fails if
//! the page says otherwise. It also checks that the four entry files (Tokio
//! and rt, each multi-thread and current-thread) compile the same files, so
//! that "the same tests" on the page stays true.
//!
//! Book: Chapter 7, "Checking it".
#![cfg(not(loom))]
#![cfg(not(miri))]

use std::fs;
use std::path::{Path, PathBuf};

/// The four builds of the shared suite.
const ENTRY_FILES: [&str; 4] = [
    "behaviour_tokio.rs",
    "behaviour_rt.rs",
    "behaviour_tokio_current_thread.rs",
    "behaviour_rt_current_thread.rs",
];

/// The page's command line whose comment carries the count.
const PAGE_COMMAND: &str = "cargo test -p rt --test behaviour_tokio";

fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|err| panic!("read {}: {err}", path.display()))
}

/// The `behaviour/*.rs` files an entry file names with `#[path = ".."]`,
/// sorted: `mod.rs`, the shim and the `pending_*` files.
fn path_modules(entry: &str) -> Vec<String> {
    let mut files: Vec<String> = read(&tests_dir().join(entry))
        .lines()
        .filter_map(|line| {
            let rest = line.trim().strip_prefix("#[path = \"behaviour/")?;
            Some(rest.split('"').next()?.to_string())
        })
        .collect();
    files.sort();
    files
}

/// The files of the suite proper: what `behaviour/mod.rs` declares
/// (`pub mod name;`), and the entry file's `#[path]` modules but the shim
/// and `mod.rs` itself.
fn suite_files(entry: &str) -> Vec<String> {
    let mut files: Vec<String> = read(&tests_dir().join("behaviour/mod.rs"))
        .lines()
        .filter_map(|line| {
            let name = line.trim().strip_prefix("pub mod ")?.strip_suffix(';')?;
            Some(format!("{name}.rs"))
        })
        .collect();
    files.extend(
        path_modules(entry)
            .into_iter()
            .filter(|file| file != "mod.rs" && !file.starts_with("shim")),
    );
    files.sort();
    files
}

/// Test attributes in one file: `#[test]`, and the suite's own
/// `#[crate::rt::test(..)]` (the runtime's test macro, under either name).
fn count_tests(source: &str) -> usize {
    source
        .lines()
        .map(str::trim_start)
        .filter(|line| {
            *line == "#[test]"
                || line.starts_with("#[crate::rt::test")
                || line.starts_with("#[rt::test")
        })
        .count()
}

/// The number the page gives after `PAGE_COMMAND`, in its `# N tests` comment.
fn page_count() -> usize {
    let page = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../book/src/ch07-checking.md");
    let text = read(&page);
    let line = text
        .lines()
        .find(|line| line.starts_with(PAGE_COMMAND) && line.contains('#'))
        .unwrap_or_else(|| panic!("{} has no line `{PAGE_COMMAND}  # N tests`", page.display()));
    let comment = line.split('#').nth(1).expect("a comment");
    let number: String = comment
        .trim()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(char::is_ascii_digit)
        .collect();
    number
        .parse()
        .unwrap_or_else(|_| panic!("no number in the page's comment: {line}"))
}

#[test]
fn the_four_builds_compile_the_same_files() {
    let tokio = path_modules(ENTRY_FILES[0]);
    for entry in &ENTRY_FILES[1..] {
        let theirs: Vec<String> = path_modules(entry)
            .into_iter()
            .map(|file| file.replace("shim_rt", "shim_tokio"))
            .collect();
        assert_eq!(theirs, tokio, "{entry} and {} differ", ENTRY_FILES[0]);
    }
}

#[test]
fn the_page_gives_the_suites_test_count() {
    let files = suite_files(ENTRY_FILES[0]);
    let counted: usize = files
        .iter()
        .map(|file| count_tests(&read(&tests_dir().join("behaviour").join(file))))
        .sum();
    assert!(counted > 0, "no tests found in {files:?}");
    assert_eq!(
        page_count(),
        counted,
        "book/src/ch07-checking.md gives the wrong count for `{PAGE_COMMAND}`: \
         the suite has {counted} tests in {} files; change the page",
        files.len()
    );
}
