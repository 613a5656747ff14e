//! `select!`: wait for the first of several futures, run its branch, and
//! drop the others.
//!
//! ```text
//! rt::select! {
//!     biased;                                    // optional: poll in order
//!     Some(line) = lines.recv(), if open => { ... }
//!     _ = rt::time::sleep(tick) => { ... }
//!     else => { ... }                            // optional
//! }
//! ```
//!
//! What happens, in order (Tokio's documented order):
//!
//! 1. every precondition (`if open`) is evaluated; a false one disables its
//!    branch for this `select!`;
//! 2. every future expression is evaluated, disabled branches included
//!    (their futures are created but never polled), turned into its future
//!    (an expression may be any `IntoFuture`), and pinned on the caller's
//!    stack;
//! 3. one `poll_fn` polls the enabled branches, starting at a random one
//!    (or at the first, with `biased;`). A branch that finishes is
//!    disabled; if its output matches its pattern, it has won;
//!    otherwise the others go on. As in Tokio, each poll first looks at
//!    the task's cooperative budget, and returns `Pending` if it is spent;
//! 4. the futures are dropped (the losers are *cancelled*: whatever they
//!    had half done is lost; see the book on cancellation safety), then the
//!    winner's handler runs with the pattern's bindings, so a handler may
//!    `.await`, `break` or `return` as the code around it would;
//! 5. if every branch is disabled and there is no winner, the `else`
//!    expression is the value; without `else`, `select!` panics. A
//!    `select!` of `else` alone is its expression.
//!
//! The pattern is tested on a reference to the output, inside the poll
//! (where a mismatch must not consume the output), and bound for real
//! afterwards, on the owned output. The test uses the pattern with its
//! `mut` and `ref` removed (`select_clean_pattern!`, a small procedural
//! macro), which Rust 2024 requires of a pattern matched through a
//! reference.
//!
//! Book: Chapter 8, "join!, select! and cancellation".

/// Waits on several futures at once and runs the branch of the first to
/// finish with an output that matches its pattern; the other futures are
/// dropped.
///
/// ```
/// # let runtime = rt::Runtime::new().unwrap();
/// # runtime.block_on(async {
/// use std::time::Duration;
/// let winner = rt::select! {
///     _ = rt::time::sleep(Duration::from_secs(60)) => "the timer",
///     value = async { 7 } => if value == 7 { "the value" } else { "?" },
/// };
/// assert_eq!(winner, "the value");
/// # });
/// ```
///
/// Branches are `pattern = future (, if precondition)? => handler`, with an
/// optional `biased;` first and an optional `else => expression` last; the
/// future may be any `IntoFuture`. Without `biased;` polling starts at a
/// random branch on every poll.
///
/// # Panics
///
/// If every branch is disabled (by its precondition, or by an output that
/// did not match its pattern) and there is no `else`.
#[macro_export]
macro_rules! select {
    // Normalized: expand.
    (@final {
        biased = $biased:literal;
        ( $($_all:tt)* ) ( $($count:tt)* )
        $( ( $($skip:tt)* ) ( $($index:tt)* )
           $pattern:pat = $future:expr, if $condition:expr => $handler:expr, )+
        ; $else:expr
    }) => {{
        const __RT_SELECT_COUNT: usize = $($count)*;
        const _: () = ::core::assert!(
            __RT_SELECT_COUNT <= 64,
            "select! takes at most 64 branches"
        );
        // 1. The preconditions, before any future is created.
        let mut disabled: u64 = 0;
        $(
            if !$condition {
                disabled |= 1 << ($($index)*);
            }
        )+
        let (winner, mut outputs) = {
            // 2. Every expression, in one tuple, so that a temporary it
            // borrows lives to the end of this block; then each one's
            // future, pinned. All dropped at the end of this block.
            let operands = ( $( $future, )+ );
            let mut futures = ( $(
                ::core::pin::pin!(::core::future::IntoFuture::into_future({
                    let ( $($skip,)* operand, .. ) = operands;
                    operand
                })),
            )+ );
            let mut outputs = ( $( {
                let ( $($skip,)* ref future, .. ) = futures;
                $crate::macros::empty_output(future)
            }, )+ );
            // ANCHOR: select_poll
            // 3. Poll until a branch wins or every branch is disabled.
            let winner = $crate::macros::poll_fn(|cx| {
                // With the task's budget spent, yield before polling.
                ::core::task::ready!($crate::macros::poll_budget_available(cx));
                let start = if $biased {
                    0
                } else {
                    $crate::macros::random_below(__RT_SELECT_COUNT)
                };
                let mut pending = false;
                for offset in 0..__RT_SELECT_COUNT {
                    // (start + offset) modulo the count, without a
                    // division.
                    let mut branch = start + offset;
                    if branch >= __RT_SELECT_COUNT {
                        branch -= __RT_SELECT_COUNT;
                    }
                    $(
                        if branch == ($($index)*) && disabled & (1 << ($($index)*)) == 0 {
                            let ( $($skip,)* ref mut future, .. ) = futures;
                            // (A `continue` arm, as in Tokio's: it also lets
                            // the compiler infer an output type that nothing
                            // else names, `poll_fn(|_| panic!())`'s.)
                            let output = match ::core::future::Future::poll(future.as_mut(), cx) {
                                ::core::task::Poll::Ready(output) => output,
                                ::core::task::Poll::Pending => {
                                    pending = true;
                                    continue;
                                }
                            };
                            disabled |= 1 << ($($index)*);
                            #[allow(unused_variables, unreachable_patterns)]
                            let matches = match &output {
                                $crate::macros::select_clean_pattern!($pattern) => true,
                                _ => false,
                            };
                            if matches {
                                let ( $($skip,)* ref mut slot, .. ) = outputs;
                                *slot = ::core::option::Option::Some(output);
                                return ::core::task::Poll::Ready(
                                    ::core::option::Option::Some($($index)*),
                                );
                            }
                        }
                    )+
                }
                if pending {
                    ::core::task::Poll::Pending
                } else {
                    // 5. Every branch is disabled.
                    ::core::task::Poll::Ready(::core::option::Option::None)
                }
            })
            .await;
            // ANCHOR_END: select_poll
            (winner, outputs)
        };
        // 4. The losers are gone; run the winner's handler.
        match winner {
            ::core::option::Option::Some(winner) => {
                $(
                    if winner == ($($index)*) {
                        let ( $($skip,)* ref mut slot, .. ) = outputs;
                        match slot.take() {
                            ::core::option::Option::Some($pattern) => $handler,
                            _ => ::core::unreachable!("select!: the winner's output is gone"),
                        }
                    } else
                )+
                {
                    ::core::unreachable!("select!: no branch has this index")
                }
            }
            ::core::option::Option::None => $else,
        }
    }};

    // The end, with an `else` branch.
    (@ { biased = $biased:literal; $($tagged:tt)* } else => $else:expr $(,)?) => {
        $crate::select!(@final { biased = $biased; $($tagged)* ; $else })
    };
    // The end, without: all branches disabled is a panic, as in Tokio.
    (@ { biased = $biased:literal; $($tagged:tt)* }) => {
        $crate::select!(@final { biased = $biased; $($tagged)* ;
            ::core::panic!("all branches are disabled and there is no else branch") })
    };

    // One branch, in each of its forms: with or without a precondition; a
    // block handler (comma optional) or an expression (comma needed unless
    // it is the last).
    (@ { biased = $biased:literal; ( $($skip:tt)* ) ( $($index:tt)* ) $($tagged:tt)* }
        $pattern:pat = $future:expr, if $condition:expr => $handler:block, $($rest:tt)*) => {
        $crate::select!(@ { biased = $biased; ( $($skip)* _ ) ( $($index)* + 1 ) $($tagged)*
            ( $($skip)* ) ( $($index)* ) $pattern = $future, if $condition => $handler, } $($rest)*)
    };
    (@ { biased = $biased:literal; ( $($skip:tt)* ) ( $($index:tt)* ) $($tagged:tt)* }
        $pattern:pat = $future:expr, if $condition:expr => $handler:block $($rest:tt)*) => {
        $crate::select!(@ { biased = $biased; ( $($skip)* _ ) ( $($index)* + 1 ) $($tagged)*
            ( $($skip)* ) ( $($index)* ) $pattern = $future, if $condition => $handler, } $($rest)*)
    };
    (@ { biased = $biased:literal; ( $($skip:tt)* ) ( $($index:tt)* ) $($tagged:tt)* }
        $pattern:pat = $future:expr, if $condition:expr => $handler:expr, $($rest:tt)*) => {
        $crate::select!(@ { biased = $biased; ( $($skip)* _ ) ( $($index)* + 1 ) $($tagged)*
            ( $($skip)* ) ( $($index)* ) $pattern = $future, if $condition => $handler, } $($rest)*)
    };
    (@ { biased = $biased:literal; ( $($skip:tt)* ) ( $($index:tt)* ) $($tagged:tt)* }
        $pattern:pat = $future:expr, if $condition:expr => $handler:expr) => {
        $crate::select!(@ { biased = $biased; ( $($skip)* _ ) ( $($index)* + 1 ) $($tagged)*
            ( $($skip)* ) ( $($index)* ) $pattern = $future, if $condition => $handler, })
    };
    (@ { biased = $biased:literal; ( $($skip:tt)* ) ( $($index:tt)* ) $($tagged:tt)* }
        $pattern:pat = $future:expr => $handler:block, $($rest:tt)*) => {
        $crate::select!(@ { biased = $biased; ( $($skip)* _ ) ( $($index)* + 1 ) $($tagged)*
            ( $($skip)* ) ( $($index)* ) $pattern = $future, if true => $handler, } $($rest)*)
    };
    (@ { biased = $biased:literal; ( $($skip:tt)* ) ( $($index:tt)* ) $($tagged:tt)* }
        $pattern:pat = $future:expr => $handler:block $($rest:tt)*) => {
        $crate::select!(@ { biased = $biased; ( $($skip)* _ ) ( $($index)* + 1 ) $($tagged)*
            ( $($skip)* ) ( $($index)* ) $pattern = $future, if true => $handler, } $($rest)*)
    };
    (@ { biased = $biased:literal; ( $($skip:tt)* ) ( $($index:tt)* ) $($tagged:tt)* }
        $pattern:pat = $future:expr => $handler:expr, $($rest:tt)*) => {
        $crate::select!(@ { biased = $biased; ( $($skip)* _ ) ( $($index)* + 1 ) $($tagged)*
            ( $($skip)* ) ( $($index)* ) $pattern = $future, if true => $handler, } $($rest)*)
    };
    (@ { biased = $biased:literal; ( $($skip:tt)* ) ( $($index:tt)* ) $($tagged:tt)* }
        $pattern:pat = $future:expr => $handler:expr) => {
        $crate::select!(@ { biased = $biased; ( $($skip)* _ ) ( $($index)* + 1 ) $($tagged)*
            ( $($skip)* ) ( $($index)* ) $pattern = $future, if true => $handler, })
    };
    (@ $($rest:tt)*) => {
        ::core::compile_error!(
            "select!: expected branches `pattern = future (, if condition)? => handler`, \
             at least one, and an optional `else => expression` last"
        )
    };

    // No branch but `else`: its expression, as in Tokio.
    ($(biased;)? else => $else:expr $(,)?) => {{
        $else
    }};
    () => {
        ::core::compile_error!("select! requires at least one branch")
    };
    (biased; $($branches:tt)*) => {
        $crate::select!(@ { biased = true; () (0) } $($branches)*)
    };
    ($($branches:tt)*) => {
        $crate::select!(@ { biased = false; () (0) } $($branches)*)
    };
}
