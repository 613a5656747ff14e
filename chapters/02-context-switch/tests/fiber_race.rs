//! The fiber race of `examples/fiber_race/`, at quick sizes: every key is
//! there and every figure is positive and finite. No timing is asserted (the
//! machine is shared and noisy); the book quotes a full run.

// `Sizes::full` and `Sizes::quick` are the example's; the test sets its own.
#[allow(dead_code)]
#[path = "../examples/fiber_race/race.rs"]
mod race;

use chapter_01::console::Console;

#[test]
fn the_race_reports_both_switches_and_their_ratio() {
    let sizes = race::Sizes {
        rounds: 3,
        round_trips: 10_000,
    };
    let json = race::race(&Console::new(true), sizes)
        .expect("the race runs")
        .to_json();
    assert_eq!(json["experiment"], "fiber-race");
    for key in [
        "green_switch_ns",
        "green_switch_p10_ns",
        "green_switch_p90_ns",
        "green_switch_min_ns",
        "green_switch_max_ns",
        "green_switch_saving_all_ns",
        "green_switch_by_call_ns",
        "green_switch_saving_all_flags_differ_ns",
        "corosensei_switch_ns",
        "corosensei_switch_p10_ns",
        "corosensei_switch_p90_ns",
        "corosensei_switch_min_ns",
        "corosensei_switch_max_ns",
        "ratio_vs_corosensei",
        "ratio_vs_corosensei_p10",
        "ratio_vs_corosensei_p90",
        "ratio_vs_corosensei_min",
        "ratio_vs_corosensei_max",
    ] {
        let value = json[key]
            .as_f64()
            .unwrap_or_else(|| panic!("{key} missing in {json}"));
        assert!(value.is_finite() && value > 0.0, "{key} = {value}");
    }
    let (min, median, max) = (
        json["ratio_vs_corosensei_min"].as_f64().unwrap(),
        json["ratio_vs_corosensei"].as_f64().unwrap(),
        json["ratio_vs_corosensei_max"].as_f64().unwrap(),
    );
    assert!(min <= median && median <= max, "{min} {median} {max}");
    assert_eq!(json["rounds"], 3);
}
