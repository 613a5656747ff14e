#[rt::test(flavor = "multi_thread")]
#[test]
async fn twice() {}

fn main() {}
