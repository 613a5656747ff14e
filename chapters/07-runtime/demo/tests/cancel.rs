//! `chapter-07 cancel --json`: the naive `select!` loop loses bytes, the
//! fixed one loses none. Counts only: how many bytes the naive loop loses
//! depends on timing, that it loses some does not.

#![cfg(not(miri))]
#![cfg(not(loom))]

use chapter_01::cli_check::json_of;
use std::process::Command;

#[test]
fn the_naive_loop_loses_bytes_and_the_fixed_one_none() {
    let output = Command::new(env!("CARGO_BIN_EXE_chapter-07"))
        .args(["cancel", "--records", "100", "--json"])
        .output()
        .expect("the binary runs");
    let json = json_of(&output);
    assert_eq!(json["experiment"], "cancel");
    assert_eq!(json["sent_bytes"], 100 * 1024);
    let naive_lost = json["naive_lost_bytes"].as_u64().unwrap();
    assert!(naive_lost > 0, "{json}");
    assert!(
        json["naive_intact_records"].as_u64().unwrap() < 100,
        "{json}"
    );
    assert_eq!(json["fixed_lost_bytes"], 0, "{json}");
    assert_eq!(json["fixed_intact_records"], 100, "{json}");
}
