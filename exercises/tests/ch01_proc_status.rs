//! Tests for exercise ch01_proc_status (`exercises/ch01/proc_status.rs`).

#[cfg_attr(not(feature = "solutions"), path = "../ch01/proc_status.rs")]
#[cfg_attr(feature = "solutions", path = "../solutions/ch01/proc_status.rs")]
#[allow(dead_code, unused_variables, unused_imports)]
mod proc_status;

mod ch01_proc_status {
    use super::proc_status::{Memory, ParseError, parse_memory};

    const STATUS: &str = "Name:\tchapter-01\nUmask:\t0022\nState:\tS (sleeping)\n\
        VmPeak:\t   20480 kB\nVmSize:\t   18000 kB\nVmLck:\t       0 kB\nVmHWM:\t    4100 kB\n\
        VmRSS:\t    4000 kB\nRssAnon:\t    1000 kB\nThreads:\t3\n\
        voluntary_ctxt_switches:\t17\nnonvoluntary_ctxt_switches:\t2\n";

    #[test]
    fn finds_the_three_fields() {
        assert_eq!(
            parse_memory(STATUS),
            Ok(Memory {
                size_kib: 18000,
                rss_kib: 4000,
                threads: 3
            })
        );
    }

    #[test]
    fn order_does_not_matter() {
        let reversed: String = STATUS.lines().rev().map(|l| format!("{l}\n")).collect();
        assert_eq!(parse_memory(&reversed), parse_memory(STATUS));
    }

    #[test]
    fn names_match_exactly() {
        // `VmRSSX` and `RssAnon` are other fields; with `VmRSS` renamed away
        // the field is missing, not taken from a look-alike.
        let text = STATUS.replace("VmRSS:", "VmRSSX:");
        assert_eq!(parse_memory(&text), Err(ParseError::Missing("VmRSS")));
    }

    #[test]
    fn a_missing_field_is_named() {
        let text = STATUS.replace("Threads:\t3\n", "");
        assert_eq!(parse_memory(&text), Err(ParseError::Missing("Threads")));
        let kernel_thread = STATUS
            .lines()
            .filter(|l| !l.starts_with("Vm"))
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(
            parse_memory(&kernel_thread),
            Err(ParseError::Missing("VmSize"))
        );
    }

    #[test]
    fn a_bad_value_or_unit_is_malformed() {
        for (from, to, field) in [
            ("VmRSS:\t    4000 kB", "VmRSS:\t    lots kB", "VmRSS"),
            ("VmRSS:\t    4000 kB", "VmRSS:\t    4000 MB", "VmRSS"),
            ("VmSize:\t   18000 kB", "VmSize:\t   18000", "VmSize"),
            ("VmSize:\t   18000 kB", "VmSize:\t   -5 kB", "VmSize"),
            ("Threads:\t3", "Threads:\t3.5", "Threads"),
            ("Threads:\t3", "Threads:\t3 kB", "Threads"),
            ("Threads:\t3", "Threads:", "Threads"),
        ] {
            let text = STATUS.replace(from, to);
            match parse_memory(&text) {
                Err(ParseError::Malformed { field: f, line }) => {
                    assert_eq!(f, field, "for {to:?}");
                    assert_eq!(line, to, "the error carries the offending line");
                }
                other => panic!("{to:?} gave {other:?}"),
            }
        }
    }

    #[test]
    fn reads_a_real_process() {
        let text = std::fs::read_to_string("/proc/self/status").unwrap();
        let memory = parse_memory(&text).unwrap();
        assert!(memory.threads >= 1);
        assert!(memory.rss_kib > 0);
        assert!(memory.size_kib >= memory.rss_kib);
    }
}
