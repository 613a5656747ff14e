//! Ten thousand panicking tasks: each becomes a `JoinError`, the workers
//! survive, and the runtime keeps serving. (A file of its own because it
//! silences the panic hook, which is global to the test process.)
#![cfg(not(loom))]

use rt::Builder;

#[test]
fn ten_thousand_panicking_tasks() {
    std::panic::set_hook(Box::new(|_| {}));
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let (panics, fine) = rt.block_on(async {
        let handles: Vec<_> = (0..10_000u32)
            .map(|i| {
                rt::spawn(async move {
                    if i % 2 == 0 {
                        panic!("task {i} panics on purpose");
                    }
                    i
                })
            })
            .collect();
        let mut panics = 0;
        let mut fine = 0;
        for handle in handles {
            match handle.await {
                Ok(_) => fine += 1,
                Err(error) if error.is_panic() => panics += 1,
                Err(error) => panic!("unexpected {error}"),
            }
        }
        (panics, fine)
    });
    let _ = std::panic::take_hook();
    assert_eq!((panics, fine), (5_000, 5_000));
    assert_eq!(rt.block_on(rt.spawn(async { 42 })).unwrap(), 42);
}
