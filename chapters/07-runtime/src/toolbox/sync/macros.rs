//! The few trivial impls that many types of `sync/` share and that no
//! generic code can provide, because the types have nothing else in
//! common: for the channels, the `Debug` of a handle (its name) and the
//! impls of each channel's own `SendError`; for every error type, `Display`
//! (a message per variant) and `Error`; for the two cells, the impls that
//! follow from their `get`. Each macro writes the impls out for the types
//! it is given, nothing else: the types themselves are declared where they
//! live. (The locks' and their guards' own macros are in `lock.rs`.)
//!
//! Book: Chapter 8, "Locks and notification".

/// What the two cells, `OnceCell` and `SetOnce`, implement in terms of
/// their `new`, `new_with` and `get`: `Default` (empty), `From` (set),
/// `Clone` (a cell holding a clone of the value, if set), `PartialEq` and
/// `Eq` (by value, an empty cell equal to an empty one), and `Debug` (the
/// value, if set). For each cell named, the six impls.
macro_rules! cell_impls {
    ($($cell:ident),* $(,)?) => {$(
        impl<T> Default for $cell<T> {
            fn default() -> $cell<T> {
                $cell::new()
            }
        }

        impl<T> From<T> for $cell<T> {
            fn from(value: T) -> $cell<T> {
                $cell::new_with(Some(value))
            }
        }

        impl<T: Clone> Clone for $cell<T> {
            fn clone(&self) -> $cell<T> {
                $cell::new_with(self.get().cloned())
            }
        }

        impl<T: PartialEq> PartialEq for $cell<T> {
            fn eq(&self, other: &$cell<T>) -> bool {
                self.get() == other.get()
            }
        }

        impl<T: Eq> Eq for $cell<T> {}

        impl<T: std::fmt::Debug> std::fmt::Debug for $cell<T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($cell))
                    .field("value", &self.get())
                    .finish()
            }
        }
    )*};
}

/// `Debug` for channel handles, which print their name only (as
/// `mpsc::Sender`): the values they carry need not be `Debug`. For each
/// `Handle<..> => [its generic parameters] "name"`, one impl.
macro_rules! debug_as_name {
    ($($handle:ty => [$($params:tt)*] $name:literal),* $(,)?) => {$(
        impl<$($params)*> std::fmt::Debug for $handle {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str($name)
            }
        }
    )*};
}

/// `Display` in Tokio's words, and `Error`, for the error types of `sync/`:
/// for each `Error<..> => [its generic parameters]` and either its one
/// message (a struct) or `{ pattern => message, .. }` (an enum), the two
/// impls. A message is a format string, so it may name what its pattern
/// binds (`Lagged(n) => "channel lagged by {n}"`).
macro_rules! error_impls {
    ($($error:ty => [$($params:tt)*] $messages:tt),* $(,)?) => {$(
        impl<$($params)*> std::fmt::Display for $error {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                error_impls!(@write self, f, $messages)
            }
        }

        impl<$($params)*> std::error::Error for $error {}
    )*};
    (@write $self:ident, $f:ident, $message:literal) => {
        $f.write_str($message)
    };
    (@write $self:ident, $f:ident, { $($pattern:pat => $message:literal),+ $(,)? }) => {
        match $self {
            $($pattern => write!($f, $message),)+
        }
    };
}

/// What the mpsc and watch channels' `SendError<T>` (a struct holding the
/// value that was not sent) implements: `Debug` that hides the value
/// (`SendError { .. }`), `Display` in Tokio's words, and `Error`. Each
/// channel declares its own type, as Tokio does, so that a program may
/// convert each of them into its own error.
macro_rules! send_error_impls {
    ($error:ident) => {
        impl<T> std::fmt::Debug for $error<T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("SendError { .. }")
            }
        }

        error_impls! { $error<T> => [T] "channel closed" }
    };
}
