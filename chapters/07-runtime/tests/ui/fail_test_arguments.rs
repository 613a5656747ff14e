#[rt::test(flavor = "multi_thread")]
async fn takes_an_argument(n: u32) {
    let _ = n;
}

fn main() {}
