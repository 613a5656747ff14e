// Every option Tokio's attributes take, in a form that compiles and runs.
// `#[rt::main]` need not be on `main`: any function becomes one that builds
// a runtime and blocks on the body, so `main` here calls five of them.

#[rt::main(flavor = "multi_thread", worker_threads = 2, crate = "rt")]
async fn two_workers() -> usize {
    rt::Handle::current().metrics().num_workers()
}

#[rt::main(flavor = "current_thread")]
async fn one_thread() -> u32 {
    rt::spawn(async { 7 }).await.unwrap()
}

#[rt::main(flavor = "current_thread", start_paused = true)]
async fn an_hour_at_once() -> std::time::Duration {
    let start = rt::time::Instant::now();
    rt::time::sleep(std::time::Duration::from_secs(3600)).await;
    start.elapsed()
}

#[rt::main(flavor = "current_thread", name = "named-by-the-attribute")]
async fn named() -> Option<String> {
    rt::Handle::current().name().map(str::to_string)
}

#[rt::main(flavor = "local")]
async fn local_tasks() -> usize {
    let shared = std::rc::Rc::new(std::cell::Cell::new(0));
    let inner = shared.clone();
    rt::task::spawn_local(async move { inner.set(inner.get() + 3) })
        .await
        .unwrap();
    shared.get()
}

fn main() {
    assert_eq!(two_workers(), 2);
    assert_eq!(one_thread(), 7);
    assert!(an_hour_at_once() >= std::time::Duration::from_secs(3600));
    assert_eq!(named().as_deref(), Some("named-by-the-attribute"));
    assert_eq!(local_tasks(), 3);
}
