// Tokio rejects a `select!` with no branch at all (one with only `else` is
// fine: it is the `else` expression).
#[rt::main]
async fn main() {
    rt::select! {}
}
