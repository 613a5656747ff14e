//! Bad input to every subcommand and option of `chapter-06`: one clear error
//! line, a non-zero exit, never a panic or a hang (the rule and the values
//! are in `chapters/01-threads/tests/support/bad_input.rs`).

// It starts the binary as a child process, which Miri cannot do: Miri runs
// the library's tests only.
#![cfg(not(miri))]

#[path = "../../01-threads/tests/support/bad_input.rs"]
mod support;

#[test]
fn every_option_refuses_bad_values_in_one_line() {
    let cases = support::check_every_option(&support::Binary {
        exe: env!("CARGO_BIN_EXE_chapter-06"),
        hidden: &[],
        zero_ok: &[],
        billion_ok: &[],
    });
    eprintln!("{cases} bad-input cases");
}
