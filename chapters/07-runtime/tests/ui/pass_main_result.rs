// `#[rt::main]` keeps the function's return type, so `?` works in the body.

use std::num::ParseIntError;

#[rt::main]
async fn main() -> Result<(), ParseIntError> {
    let n: u32 = "42".parse()?;
    let doubled = rt::spawn(async move { n * 2 }).await.unwrap();
    assert_eq!(doubled, 84);
    Ok(())
}
