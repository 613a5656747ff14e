//! `join!` and `try_join!`: run several futures concurrently on the current
//! task, and wait for all of them (or, for `try_join!`, for the first
//! error).
//!
//! `join!(a, b, c)` turns each operand into its future (an operand may be
//! anything `.await` accepts: a future, or an `IntoFuture` such as a
//! builder), pins the three futures on the caller's stack, wraps each in a
//! [`MaybeDone`](super::MaybeDone), and awaits one `poll_fn` that polls
//! every unfinished branch each time the task is woken. No task is spawned
//! and nothing is allocated: the branches run *concurrently* (interleaved
//! at their `.await` points), never in parallel.
//!
//! The order in which the branches are polled matters under the budget
//! (`task/coop.rs`): the budget is per task, so a first branch that is
//! always ready could spend all of it, and the later branches would see
//! `Pending` from every leaf they touch on every poll. So the branch polled
//! first rotates, one step per poll, as Tokio's does; `join!(biased; ...)`
//! polls in the order written.
//!
//! `macro_rules!` cannot count, so the macro first *normalizes* its input:
//! each branch is tagged with one `_` per branch before it (to pick its
//! field out of a tuple by pattern: `let (_, _, ref mut branch, ..) =
//! branches;`) and with its index as `0 + 1 + 1`.
//!
//! `try_join!` is the same loop with two differences, so both macros hand
//! their operands to one hidden macro, `__join_all!`, with a `kind` that
//! picks them: a `try_join!` branch that finishes with `Err` ends the join
//! at once, and the outputs are handed back in `Ok`.
//!
//! Book: Chapter 8, "join!, select! and cancellation".

/// Waits for every future; returns their outputs as a tuple, in the order
/// written.
///
/// ```
/// # let runtime = rt::Runtime::new().unwrap();
/// # runtime.block_on(async {
/// let (a, b) = rt::join!(async { 1 }, async { "two" });
/// assert_eq!((a, b), (1, "two"));
/// # });
/// ```
///
/// The futures run concurrently on the current task. The one polled first
/// rotates on every poll (so one that is always ready cannot spend the
/// whole budget); `join!(biased; a, b)` always polls in the order written.
/// Each operand may be any `IntoFuture`; `join!()` is `()`.
#[macro_export]
macro_rules! join {
    ($($input:tt)*) => {
        $crate::__join_all!(kind = join; $($input)*)
    };
}

/// Waits for every future to return `Ok`, and returns `Ok` of their values
/// as a tuple; or returns the first `Err` as soon as it appears, dropping
/// the other futures. Every future has the same error type.
///
/// ```
/// # let runtime = rt::Runtime::new().unwrap();
/// # runtime.block_on(async {
/// let ok: Result<(i32, &str), String> =
///     rt::try_join!(async { Ok(1) }, async { Ok("two") });
/// assert_eq!(ok, Ok((1, "two")));
/// let failed: Result<(i32, ()), String> =
///     rt::try_join!(async { Ok(1) }, async { Err("no".to_string()) });
/// assert_eq!(failed, Err("no".to_string()));
/// # });
/// ```
///
/// Polling rotates as in [`join!`]; `try_join!(biased; ...)` does not.
/// Each operand may be any `IntoFuture`; `try_join!()` is `Ok(())`.
#[macro_export]
macro_rules! try_join {
    ($($input:tt)*) => {
        $crate::__join_all!(kind = try_join; $($input)*)
    };
}

/// The body of [`join!`] and [`try_join!`] (`kind` is `join` or
/// `try_join`); not for direct use.
#[doc(hidden)]
#[macro_export]
macro_rules! __join_all {
    // The entry: `biased;` or not, and at least one operand.
    (kind = $kind:ident; biased; $($future:expr),+ $(,)?) => {
        $crate::__join_all!(@ { kind = $kind; rotate = false; () (0) } $($future,)+)
    };
    (kind = $kind:ident; $($future:expr),+ $(,)?) => {
        $crate::__join_all!(@ { kind = $kind; rotate = true; () (0) } $($future,)+)
    };
    // No operand: nothing to wait for.
    (kind = join; $(biased;)?) => {
        async {}.await
    };
    (kind = try_join; $(biased;)?) => {
        async { ::core::result::Result::Ok(()) }.await
    };

    // Normalized: every branch tagged; expand.
    (@ {
        kind = $kind:ident;
        rotate = $rotate:literal;
        ( $($_all:tt)* ) ( $($count:tt)* )
        $( ( $($skip:tt)* ) ( $($index:tt)* ) $future:expr, )*
    }) => {{
        const __RT_JOIN_COUNT: usize = $($count)*;
        // Pinned where they stand: the tuple's temporaries live as long as
        // this block, which outlives the poll_fn below.
        let mut pinned = ( $(
            ::core::pin::pin!(::core::future::IntoFuture::into_future($future)),
        )* );
        let mut branches = ( $(
            $crate::macros::MaybeDone::new({
                let ( $($skip,)* ref mut future, .. ) = pinned;
                future.as_mut()
            }),
        )* );
        // ANCHOR: join_poll
        // The branch polled first on the next poll.
        let mut first: usize = 0;
        $crate::macros::poll_fn(move |cx| {
            let mut all_done = true;
            // Two passes: branches first..count, then 0..first.
            for second_pass in [false, true] {
                $(
                    if (($($index)*) < first) == second_pass {
                        let ( $($skip,)* ref mut branch, .. ) = branches;
                        if branch.poll_done(cx) {
                            // try_join!: an error ends the join here.
                            $crate::__join_all!(@finished $kind, branch);
                        } else {
                            all_done = false;
                        }
                    }
                )*
            }
            if $rotate {
                first += 1;
                if first == __RT_JOIN_COUNT {
                    first = 0;
                }
            }
            if !all_done {
                return ::core::task::Poll::Pending;
            }
            ::core::task::Poll::Ready($crate::__join_all!(@output $kind, ( $( {
                let ( $($skip,)* ref mut branch, .. ) = branches;
                $crate::__join_all!(@take $kind, branch)
            }, )* )))
        })
        .await
        // ANCHOR_END: join_poll
    }};

    // Normalizing: tag the next branch, then go on with the rest.
    (@ {
        kind = $kind:ident;
        rotate = $rotate:literal;
        ( $($skip:tt)* ) ( $($index:tt)* )
        $($tagged:tt)*
    } $future:expr, $($rest:tt)*) => {
        $crate::__join_all!(@ {
            kind = $kind;
            rotate = $rotate;
            ( $($skip)* _ ) ( $($index)* + 1 )
            $($tagged)*
            ( $($skip)* ) ( $($index)* ) $future,
        } $($rest)*)
    };

    // Where the two kinds differ: what a finished branch does, how its
    // output is taken, and how the outputs are handed back.
    (@finished join, $branch:ident) => {};
    (@finished try_join, $branch:ident) => {
        if let ::core::option::Option::Some(error) = $branch.take_err() {
            return ::core::task::Poll::Ready(::core::result::Result::Err(error));
        }
    };
    (@take join, $branch:ident) => {
        $branch.take()
    };
    (@take try_join, $branch:ident) => {
        $branch.take_ok()
    };
    (@output join, $outputs:expr) => {
        $outputs
    };
    (@output try_join, $outputs:expr) => {
        ::core::result::Result::Ok($outputs)
    };
}
