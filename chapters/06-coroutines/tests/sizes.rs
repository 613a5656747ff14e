//! The future sizes the chapter's table quotes ("What each future weighs"),
//! pinned: a change of layout fails here, and the table must change with
//! it. The last two rows of that table (1,088 and 8,464 bytes) come from
//! `-Zprint-type-sizes` on types that cannot be named outside their
//! functions; the echo handler they contain is pinned here.
//!
//! The book quotes release builds (`cargo run --release -p chapter-06 --
//! sizes`). In a debug build mio's sockets carry one more field (the id of
//! the selector they are registered with, checked only under
//! `debug_assertions`), so every future holding a socket is bigger there:
//! those sizes are pinned too, so a test run of either profile checks.

/// (what, release bytes as the book quotes them, debug bytes).
const EXPECTED: [(&str, usize, usize); 5] = [
    ("hand-written RelaySession", 280, 304),
    ("async fn session", 432, 456),
    ("async fn echo", 4_192, 4_208),
    ("Sleep", 40, 40),
    ("Connect", 64, 72),
];

#[test]
#[cfg_attr(miri, ignore = "opens loopback sockets, refused by Miri's isolation")]
fn the_futures_weigh_what_the_book_quotes() {
    let s = chapter_06::sizes::measure().expect("loopback sockets");
    let measured = [
        s.future_relay,
        s.async_relay,
        s.async_echo,
        s.sleep,
        s.connect,
    ];
    for ((what, release, debug), bytes) in EXPECTED.iter().zip(measured) {
        let expected = if cfg!(debug_assertions) {
            *debug
        } else {
            *release
        };
        assert_eq!(
            bytes, expected,
            "{what} (release size quoted by the book: {release})"
        );
    }
}
