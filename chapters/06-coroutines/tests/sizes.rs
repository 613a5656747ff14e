//! The future sizes the chapter's table quotes ("What each future weighs"),
//! pinned: a change of layout fails here, and the table must change with
//! it. The last two rows of that table (1,088 and 8,464 bytes) come from
//! `-Zprint-type-sizes` on types that cannot be named outside their
//! functions; the echo handler they contain is pinned here.

#[test]
fn the_futures_weigh_what_the_book_quotes() {
    let sizes = chapter_06::sizes::measure().expect("loopback sockets");
    assert_eq!(sizes.future_relay, 280, "hand-written RelaySession");
    assert_eq!(sizes.async_relay, 432, "async fn session");
    assert_eq!(sizes.async_echo, 4_192, "async fn echo");
    assert_eq!(sizes.sleep, 40, "Sleep");
    assert_eq!(sizes.connect, 64, "Connect");
}
