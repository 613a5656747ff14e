//! Near miss of ch08_joinset_fail_fast: the pieces are spawned, but their
//! handles are awaited one by one in input order, so an error is seen only
//! when every piece before it in the list has finished; the tests must catch
//! it because fail-fast means the first error to happen, at the time it
//! happens.

use std::future::Future;
use std::pin::Pin;

use rt::task::JoinHandle;

/// One piece of work: a boxed future that may fail.
pub type Work<T, E> = Pin<Box<dyn Future<Output = Result<T, E>> + Send + 'static>>;

/// Runs every piece of work as a task; all outputs in input order, or the
/// first error after the rest were aborted and have stopped.
pub async fn fail_fast<T, E>(work: Vec<Work<T, E>>) -> Result<Vec<T>, E>
where
    T: Send + 'static,
    E: Send + 'static,
{
    let handles: Vec<JoinHandle<Result<T, E>>> = work.into_iter().map(rt::task::spawn).collect();
    let mut outputs = Vec::with_capacity(handles.len());
    let mut handles = handles.into_iter();
    // MISTAKE: one handle at a time, in the order given.
    while let Some(handle) = handles.next() {
        let result = match handle.await {
            Ok(result) => result,
            Err(error) => std::panic::resume_unwind(error.into_panic()),
        };
        match result {
            Ok(value) => outputs.push(value),
            Err(error) => {
                for rest in handles {
                    rest.abort();
                    let _ = rest.await;
                }
                return Err(error);
            }
        }
    }
    Ok(outputs)
}
