//! Near miss of ch08_joinset_fail_fast: outputs are pushed in the order the
//! tasks finish, which is what `join_next` yields, not the order the work was
//! given in; the tests must catch it because the caller matches outputs to
//! inputs by position.

use std::future::Future;
use std::pin::Pin;

use rt::task::JoinSet;

/// One piece of work: a boxed future that may fail.
pub type Work<T, E> = Pin<Box<dyn Future<Output = Result<T, E>> + Send + 'static>>;

/// Runs every piece of work as a task; all outputs in input order, or the
/// first error after the rest were aborted and have stopped.
pub async fn fail_fast<T, E>(work: Vec<Work<T, E>>) -> Result<Vec<T>, E>
where
    T: Send + 'static,
    E: Send + 'static,
{
    let mut set = JoinSet::new();
    let mut outputs: Vec<T> = Vec::with_capacity(work.len());
    for (index, future) in work.into_iter().enumerate() {
        set.spawn(async move { (index, future.await) });
    }
    while let Some(joined) = set.join_next().await {
        let (_index, result) = match joined {
            Ok(pair) => pair,
            Err(error) => std::panic::resume_unwind(error.into_panic()),
        };
        match result {
            // MISTAKE: completion order, not input order.
            Ok(value) => outputs.push(value),
            Err(error) => {
                set.shutdown().await;
                return Err(error);
            }
        }
    }
    Ok(outputs)
}
