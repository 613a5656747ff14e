//! Near miss of ch08_joinset_fail_fast: on the first error the rest are
//! aborted with `abort_all` but not waited for, so `fail_fast` returns while
//! aborted tasks still hold their resources; the tests must catch it because
//! an abort is only a request, and the exercise promises that the rest have
//! stopped before the error comes back.

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
            Err(error) => std::panic::resume_unwind(error.into_panic()),
        };
        match result {
            Ok(value) => outputs[index] = Some(value),
            Err(error) => {
                // MISTAKE: asks them to stop, does not wait until they have.
                set.abort_all();
                return Err(error);
            }
        }
    }
    Ok(outputs
        .into_iter()
        .map(|output| output.expect("every task returned"))
        .collect())
}
