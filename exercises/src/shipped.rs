//! The checker's own copy of every stub and reference solution, as shipped.
//!
//! `reset NAME` puts a stub back from here, not from git (a reader may have
//! no git history, or may have committed their own attempt), and `solution
//! NAME` prints the reference solution from here. The files are embedded at
//! build time with `include_str!`, one line per exercise below; a unit test
//! checks that the list and the catalog agree.
//!
//! The explanations that `solution NAME` prints with the code live in
//! `solutions/explanations.md`, one `## chNN_topic` section per exercise.

/// One exercise's shipped files.
pub struct Shipped {
    /// `chNN_topic`.
    pub name: &'static str,
    /// `chNN/topic.rs` as shipped.
    pub stub: &'static str,
    /// `solutions/chNN/topic.rs`.
    pub solution: &'static str,
}

macro_rules! shipped {
    ($($chapter:ident $topic:ident,)*) => {
        /// Every exercise's shipped stub and solution.
        pub const SHIPPED: &[Shipped] = &[$(
            Shipped {
                name: concat!(stringify!($chapter), "_", stringify!($topic)),
                stub: include_str!(concat!("../", stringify!($chapter), "/", stringify!($topic), ".rs")),
                solution: include_str!(concat!(
                    "../solutions/", stringify!($chapter), "/", stringify!($topic), ".rs"
                )),
            },
        )*];
    };
}

shipped! {
    ch01 proc_status,
    ch01 echo_loop,
    ch01 thread_pool,
    ch01 fork_wait,
    ch02 switch_cost,
    ch02 pin,
    ch02 green_yield,
    ch02 sattolo,
    ch03 histogram,
    ch03 source_plan,
    ch03 verify_echo,
    ch03 conn_cap,
    ch04 drain,
    ch04 outbox,
    ch04 interest,
    ch04 accept_all,
    ch05 timer_heap,
    ch05 slab,
    ch05 poll_timeout,
    ch05 next_tick,
    ch06 join,
    ch06 timeout,
    ch06 counting_waker,
    ch06 state_machine,
    ch06 scheduled_flag,
    ch07 wake_while_running,
    ch07 steal_half,
    ch07 lifo_slot,
    ch07 wheel_slot,
    ch07 clear_readiness,
    ch07 budget,
    ch07 counter,
    ch07 long_poll,
    ch07 join_waker,
    ch07 park_token,
    ch08 rotating_join,
    ch08 select_two,
    ch08 paused_timeout,
    ch08 counting_semaphore,
    ch08 notify_permit,
    ch08 joinset_fail_fast,
    ch09 hyper_read,
    ch09 hyper_write,
    ch09 rt_timer,
    ch09 graceful,
    ch10 sqe_batch,
    ch10 owned_read,
    ch10 cancel_park,
    ch10 short_write,
}

/// Every exercise's explanation of its reference solution.
const EXPLANATIONS: &str = include_str!("../solutions/explanations.md");

/// The shipped files of the exercise called `name`.
pub fn find(name: &str) -> Option<&'static Shipped> {
    SHIPPED.iter().find(|s| s.name == name)
}

/// The explanation of `name`'s reference solution: the text of its
/// `## name` section in `solutions/explanations.md`.
pub fn explanation(name: &str) -> Option<&'static str> {
    let heading = format!("## {name}\n");
    let start = EXPLANATIONS.find(&heading)? + heading.len();
    let rest = &EXPLANATIONS[start..];
    let end = rest.find("\n## ").map_or(rest.len(), |end| end + 1);
    Some(rest[..end].trim())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::EXERCISES;

    #[test]
    fn every_exercise_is_shipped_in_catalog_order() {
        let shipped: Vec<_> = SHIPPED.iter().map(|s| s.name).collect();
        let listed: Vec<_> = EXERCISES.iter().map(|e| e.name).collect();
        assert_eq!(shipped, listed);
    }

    #[test]
    fn every_solution_has_an_explanation_of_three_to_six_sentences() {
        for exercise in EXERCISES {
            let text = explanation(exercise.name)
                .unwrap_or_else(|| panic!("{}: no explanation", exercise.name));
            // A sentence ends with `.`, `?` or `!` before a space or the end
            // (so a dot inside code, `a.b()`, is no end).
            let chars: Vec<char> = text.chars().collect();
            let sentences = (0..chars.len())
                .filter(|&i| {
                    matches!(chars[i], '.' | '?' | '!')
                        && chars.get(i + 1).is_none_or(|c| c.is_whitespace())
                })
                .count();
            assert!(
                (3..=6).contains(&sentences),
                "{}: {sentences} sentences in its explanation",
                exercise.name
            );
        }
    }
}
