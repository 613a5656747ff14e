// `#[rt::test]` runs on the current-thread runtime unless told otherwise,
// which has no workers to count.
#[rt::test(worker_threads = 2)]
async fn needs_a_flavor() {}

fn main() {}
