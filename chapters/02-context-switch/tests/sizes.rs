//! The type size the chapter quotes, pinned: "The whole future, loop
//! counter, bound and inner `YieldNow` included, is 32 bytes." If the
//! future changes shape, this fails and the sentence must change with it.

#[test]
fn the_yield_loop_future_is_the_32_bytes_the_book_quotes() {
    let future = chapter_02::future_switch::yield_many(1);
    assert_eq!(std::mem::size_of_val(&future), 32);
}
