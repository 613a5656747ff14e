// Every option Tokio's attributes take, in a form that compiles.

#[rt::main(flavor = "multi_thread", worker_threads = 2, crate = "rt")]
async fn main() {
    assert_eq!(rt::spawn(async { 1 }).await.unwrap(), 1);
}

// `#[rt::main]` need not be on `main`: any function becomes one that builds
// a runtime and blocks on the body.
#[allow(dead_code)]
#[rt::main(worker_threads = 1)]
async fn on_another_function() -> u32 {
    7
}
