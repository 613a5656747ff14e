//! Compile tests of `#[rt::main]` and `#[rt::test]`, and of the forms
//! `select!` must reject: what must compile (`ui/pass_*.rs`) and the error
//! each misuse gets (`ui/fail_*.rs`, with the expected message in the
//! `.stderr` beside it). The forms the macros accept are compiled by the
//! behaviour suite (`behaviour/macros_forms.rs`), against Tokio too.
//!
//! The messages depend on the compiler's wording, so after a toolchain
//! update regenerate them with `TRYBUILD=overwrite cargo test -p rt --test
//! macros_ui` and read the diff.
//!
//! Book: Chapter 7, "Writing programs on the runtime".

#![cfg(not(loom))]

#[test]
fn macros_compile_or_fail_clearly() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass_*.rs");
    cases.compile_fail("tests/ui/fail_*.rs");
}
