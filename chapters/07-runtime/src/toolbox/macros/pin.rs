//! `pin!`: pins values to the stack under their own names, Tokio's
//! statement form of `std::pin::pin!`.

/// Pins each named local to the stack, shadowing it with a
/// `Pin<&mut T>`, as Tokio's `pin!` does: after `rt::pin!(sleep);`,
/// `&mut sleep` is a future that a `select!` loop can poll again and again
/// without moving it. The second form declares and pins at once:
/// `rt::pin! { let sleep = rt::time::sleep(d); }`.
///
/// ```
/// # rt::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let sleep = rt::time::sleep(std::time::Duration::from_millis(1));
/// rt::pin!(sleep);
/// (&mut sleep).await;
/// assert!(sleep.is_elapsed());
/// # });
/// ```
#[macro_export]
macro_rules! pin {
    ($($x:ident),* $(,)?) => {
        $(
            #[allow(unused_mut)]
            let mut $x = ::std::pin::pin!($x);
        )*
    };
    ($(let $x:ident = $init:expr;)*) => {
        $(
            let $x = $init;
            $crate::pin!($x);
        )*
    };
}
