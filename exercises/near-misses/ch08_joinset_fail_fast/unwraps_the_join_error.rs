//! Near miss of ch08_joinset_fail_fast: a task's `JoinError` is unwrapped
//! with `expect`, so a piece that panics makes the caller panic with a new
//! message ("a task failed: ...") instead of the piece's own; the tests must
//! catch it because the caller should see the panic it would have seen had
//! the piece run inline (`resume_unwind(error.into_panic())`).

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
    let mut outputs: Vec<Option<T>> = Vec::with_capacity(work.len());
    for (index, future) in work.into_iter().enumerate() {
        outputs.push(None);
        set.spawn(async move { (index, future.await) });
    }
    while let Some(joined) = set.join_next().await {
        let (index, result) = match joined {
            Ok(pair) => pair,
            // MISTAKE: a new panic, not the task's own.
            Err(error) => panic!("a task failed: {error}"),
        };
        match result {
            Ok(value) => outputs[index] = Some(value),
            Err(error) => {
                set.shutdown().await;
                return Err(error);
            }
        }
    }
    Ok(outputs
        .into_iter()
        .map(|output| output.expect("every task returned"))
        .collect())
}
