//! Bad input to every subcommand and option of `chapter-07`: one clear error
//! line, a non-zero exit, never a panic or a hang (the rule and the values
//! are in `chapters/01-threads/tests/support/bad_input.rs`).

// Real processes: Miri runs the library's tests only.
#![cfg(not(miri))]
#![cfg(not(loom))]

#[path = "../../../01-threads/tests/support/bad_input.rs"]
mod support;

#[test]
fn every_option_refuses_bad_values_in_one_line() {
    let cases = support::check_every_option(&support::Binary {
        exe: env!("CARGO_BIN_EXE_chapter-07"),
        hidden: &["load"],
        zero_ok: &[("echo", "deadline-ms")],
        billion_ok: &[],
    });
    eprintln!("{cases} bad-input cases");
}

/// The examples readers run with arguments, `compare` and `report`, when
/// `cargo test` built them (a whole `cargo test -p chapter-07` or the
/// workspace's does; `--test bad_input` alone does not, and then this test
/// says so and passes).
#[test]
fn the_examples_refuse_bad_values_in_one_line_too() {
    // target/debug/deps/bad_input-HASH -> target/debug/examples/NAME
    let deps = std::env::current_exe().unwrap();
    let examples = deps.parent().unwrap().parent().unwrap().join("examples");
    for (name, hidden, zero_ok) in [
        ("compare", &["serve"][..], &[("http", "idle")][..]),
        ("report", &["serve"][..], &[][..]),
    ] {
        let exe = examples.join(name);
        if !exe.exists() {
            eprintln!("{} not built: skipped", exe.display());
            continue;
        }
        let exe: &'static str = Box::leak(exe.display().to_string().into_boxed_str());
        let cases = support::check_every_option(&support::Binary {
            exe,
            hidden,
            zero_ok,
            billion_ok: &[],
        });
        eprintln!("{name}: {cases} bad-input cases");
    }
}
