//! The forms `join!`, `try_join!` and `select!` accept, as Tokio 1.54
//! documents them: operands that are `IntoFuture` rather than futures,
//! `biased;`, no operand at all, a `select!` with only `else`, refutable
//! patterns and `if` preconditions, block and expression handlers with and
//! without trailing commas, one branch, and macros nested in each other.
//! Most of these are compile tests first: a form the runtime's macro does
//! not accept fails the whole file. Each test then checks that the form
//! does what Tokio documents.

use crate::behaviour::limit;
use crate::{rt, shim};
use std::convert::Infallible;
use std::future::IntoFuture;

/// A value that is not a future but turns into one (as a builder does that
/// is awaited directly).
struct Later<T>(T);

impl<T> IntoFuture for Later<T> {
    type Output = T;
    type IntoFuture = std::future::Ready<T>;
    fn into_future(self) -> Self::IntoFuture {
        std::future::ready(self.0)
    }
}

/// Runs `body` to completion on the runtime under test.
fn run<T>(body: impl std::future::Future<Output = T>) -> T {
    shim::runtime().block_on(body)
}

/// Tokio: "each async expression evaluates to a future": `join!` passes
/// every operand through `IntoFuture::into_future`, so anything that can
/// be `.await`ed can be joined.
#[test]
fn join_takes_into_future_operands() {
    limit("join! of IntoFuture", || {
        run(async {
            let (a, b, c) = rt::join!(Later(1), async { "two" }, Later(3.0));
            assert_eq!((a, b, c), (1, "two", 3.0));
            let (d,) = rt::join!(biased; Later('d'),);
            assert_eq!(d, 'd');
        });
    });
}

/// Tokio: `try_join!` does the same, and its result is `Ok` of the tuple
/// or the first `Err`.
#[test]
fn try_join_takes_into_future_operands() {
    limit("try_join! of IntoFuture", || {
        run(async {
            let ok: Result<(i32, &str), String> = rt::try_join!(Later(Ok(1)), async { Ok("two") });
            assert_eq!(ok, Ok((1, "two")));
            let failed: Result<(i32, i32), String> =
                rt::try_join!(biased; Later(Ok(1)), Later(Err("no".to_string())));
            assert_eq!(failed, Err("no".to_string()));
        });
    });
}

/// Tokio: a `select!` branch's `<async expression>` may be an
/// `IntoFuture` too.
#[test]
fn select_takes_into_future_operands() {
    limit("select! of IntoFuture", || {
        run(async {
            let got = rt::select! {
                v = Later(5) => v,
                _ = std::future::pending::<()>() => 0,
            };
            assert_eq!(got, 5);
        });
    });
}

/// Tokio: `select!` with no branch but `else` evaluates the `else`
/// expression (with or without `biased;`, with or without a trailing
/// comma).
#[test]
fn select_with_only_else_evaluates_it() {
    limit("select! { else => .. }", || {
        run(async {
            let a = rt::select! { else => 1 };
            let b = rt::select! { biased; else => 2, };
            let c = rt::select! {
                else => {
                    let mut three = 2;
                    three += 1;
                    three
                }
            };
            assert_eq!((a, b, c), (1, 2, 3));
        });
    });
}

/// Tokio: `join!()` and `join!(biased;)` are `()`, and `try_join!()` is
/// `Ok(())`.
#[test]
fn join_and_try_join_of_nothing() {
    limit("join!() and try_join!()", || {
        run(async {
            let () = rt::join!();
            let () = rt::join!(biased;);
            let nothing: Result<(), String> = rt::try_join!();
            assert_eq!(nothing, Ok(()));
            let nothing: Result<(), String> = rt::try_join!(biased;);
            assert_eq!(nothing, Ok(()));
        });
    });
}

/// Tokio: one future gives a one-element tuple; a trailing comma is
/// allowed after the last operand.
#[test]
fn join_of_one_and_trailing_commas() {
    limit("join! of one", || {
        run(async {
            let (one,) = rt::join!(async { 1 });
            let (two, three) = rt::join!(async { 2 }, async { 3 },);
            let four: Result<(i32,), ()> = rt::try_join!(async { Ok(4) },);
            assert_eq!((one, two, three, four), (1, 2, 3, Ok((4,))));
        });
    });
}

/// Tokio: every operand of `try_join!` has the same error type; an
/// uninhabited one (`Infallible`) is fine and the result is always `Ok`.
#[test]
fn try_join_with_an_infallible_error() {
    limit("try_join! Infallible", || {
        run(async {
            let all: Result<(u8, u8), Infallible> =
                rt::try_join!(async { Ok(1) }, Later(Ok::<u8, Infallible>(2)));
            assert_eq!(all.unwrap_or_else(|never| match never {}), (1, 2));
        });
    });
}

/// Tokio: a branch whose output does not match its (refutable) pattern is
/// disabled and the others go on; a false `if` precondition disables its
/// branch before anything is polled; with every branch disabled, `else`
/// is the value.
#[test]
fn select_refutable_patterns_and_preconditions() {
    limit("select! patterns and preconditions", || {
        run(async {
            let got = rt::select! {
                Some(v) = async { None::<i32> } => v,
                Ok(v) = async { Ok::<i32, ()>(2) } => v * 10,
            };
            assert_eq!(got, 20);

            let enabled = false;
            let got = rt::select! {
                v = async { 1 }, if enabled => v,
                Some(v) = async { None::<i32> } => v,
                else => -1,
            };
            assert_eq!(got, -1);

            // An or-pattern, and a `mut` binding.
            let got = rt::select! {
                Ok(v) | Err(v) = async { Err::<i32, i32>(7) } => v,
            };
            assert_eq!(got, 7);
            let got = rt::select! {
                mut v = async { 1 } => {
                    v += 1;
                    v
                }
            };
            assert_eq!(got, 2);
        });
    });
}

/// Tokio: a branch disabled by its precondition has its future created
/// but never polled, and that future's output type need not be written
/// anywhere: here a `poll_fn` that would panic, whose output nothing names.
#[test]
fn select_disabled_branch_whose_output_type_nothing_names() {
    limit("select! disabled branch, output inferred", || {
        run(async {
            let never = std::future::poll_fn(|_| panic!("a disabled branch is never polled"));
            let got = rt::select! {
                _ = never, if false => unreachable!(),
                v = async { 3 } => v,
            };
            assert_eq!(got, 3);
        });
    });
}

/// Tokio: handlers are blocks (a comma after them optional) or
/// expressions (a comma needed unless last); `biased;` polls in the order
/// written, so the first ready branch wins.
#[test]
fn select_handler_forms_and_biased_order() {
    limit("select! handler forms", || {
        run(async {
            for _ in 0..20 {
                let got = rt::select! {
                    biased;
                    v = async { 1 } => { v }
                    v = async { 2 } => { v },
                    v = async { 3 }, if true => v,
                    v = async { 4 }, if true => { v }
                    v = async { 5 } => v
                };
                assert_eq!(got, 1);
            }
            // One branch, with a trailing comma after the expression.
            let got = rt::select! { v = async { 9 } => v, };
            assert_eq!(got, 9);
        });
    });
}

/// Tokio: the handler is ordinary code of the enclosing async block: it
/// may `break` or `continue` the loop around `select!` and `return`.
#[test]
fn select_handlers_break_continue_and_return() {
    limit("select! control flow", || {
        run(async {
            let mut rounds = 0;
            let last = loop {
                rounds += 1;
                rt::select! {
                    n = async { rounds } => {
                        if n < 3 {
                            continue;
                        }
                        break n;
                    }
                }
            };
            assert_eq!(last, 3);
            let early = async {
                rt::select! {
                    v = async { 4 } => {
                        if v == 4 {
                            return v;
                        }
                    }
                }
                0
            };
            assert_eq!(early.await, 4);
        });
    });
}

/// Tokio: the macros nest: a `select!` inside a `join!` operand, a `join!`
/// inside a `select!` handler, a `try_join!` inside a `select!` branch's
/// future.
#[test]
fn the_macros_nest() {
    limit("nested macros", || {
        run(async {
            let (a, b) = rt::join!(
                async {
                    rt::select! {
                        v = Later(1) => v,
                        else => 0,
                    }
                },
                async {
                    rt::select! { else => 2 }
                },
            );
            assert_eq!((a, b), (1, 2));
            let got = rt::select! {
                v = async { rt::try_join!(Later(Ok::<i32, ()>(3)), async { Ok(4) }) } => {
                    let (x, y) = v.unwrap();
                    let (z, w) = rt::join!(Later(x), async { y });
                    z + w
                }
            };
            assert_eq!(got, 7);
        });
    });
}

/// Tokio: a `select!` operand may borrow a temporary made in the
/// expression itself (`&mut` of a fresh `JoinHandle`), which lives as long
/// as the `select!`.
#[test]
fn select_operand_may_borrow_a_temporary() {
    limit("select! borrowing a temporary", || {
        run(async {
            let got = rt::select! {
                v = &mut rt::spawn(async { 6 }) => v.unwrap(),
            };
            assert_eq!(got, 6);
        });
    });
}

/// Tokio: `join!` of spawned tasks' handles, `JoinHandle`s being futures
/// like any other, returns every output.
#[test]
fn join_of_spawned_handles() {
    limit("join! of JoinHandles", || {
        run(async {
            let (a, b) = rt::join!(rt::spawn(async { 1 }), rt::spawn(async { 2 }));
            assert_eq!((a.unwrap(), b.unwrap()), (1, 2));
        });
    });
}

/// Tokio: each poll of a `select!` first looks at the task's cooperative
/// budget and returns `Pending` if it is spent ("budget-aware futures are
/// going to yield anyway and other futures will not cooperate"), even when
/// a branch is ready; the task is polled again with a fresh budget, and
/// the branch then wins.
#[test]
fn select_yields_when_the_budget_is_spent() {
    limit("select! with the budget spent", || {
        run(async {
            rt::spawn(async {
                while rt::task::coop::has_budget_remaining() {
                    rt::task::consume_budget().await;
                }
                let mut select = std::pin::pin!(async {
                    rt::select! {
                        v = async { 1 } => v,
                    }
                });
                let first = futures::poll!(select.as_mut());
                assert!(first.is_pending(), "polled with no budget left");
                assert_eq!(select.await, 1);
            })
            .await
            .unwrap();
        });
    });
}
