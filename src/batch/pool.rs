//! Work shared out to OS threads, each with its own single-threaded async runtime: one item's
//! CPU work (anchoring, parsing, git) never holds up another's I/O, and the items' futures
//! need not be `Send`. Used by `batch` (a server's evolution) and `drift` (a server's audit).

use std::collections::VecDeque;
use std::sync::Mutex;

use tokio::runtime::Runtime;
use tokio::sync::watch;

/// Runs `work` on each of `items`, in order, on `jobs` threads named `name-N`, until the items
/// are done or `cancel` turns true (items not started by then are left). The first error (a
/// thread or runtime that cannot start, or one `work` returns) is returned once every thread
/// has ended.
pub fn each<T: Send, E: Send>(
    name: &str,
    jobs: usize,
    items: Vec<T>,
    cancel: &watch::Receiver<bool>,
    start_error: fn(std::io::Error) -> E,
    work: impl Fn(&Runtime, T) -> Result<(), E> + Sync,
) -> Result<(), E> {
    let queue: Mutex<VecDeque<T>> = Mutex::new(items.into());
    let worker = || -> Result<(), E> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(start_error)?;
        loop {
            if *cancel.borrow() {
                return Ok(());
            }
            let Some(item) = queue.lock().expect("not poisoned").pop_front() else {
                return Ok(());
            };
            work(&rt, item)?;
        }
    };
    std::thread::scope(|scope| -> Result<(), E> {
        let handles: Vec<_> = (0..jobs.max(1))
            .map(|i| {
                std::thread::Builder::new()
                    .name(format!("{name}-{i}"))
                    .spawn_scoped(scope, worker)
                    .map_err(start_error)
            })
            .collect::<Result<_, _>>()?;
        let mut first = Ok(());
        for h in handles {
            let ended = h.join().expect("a worker thread does not panic");
            if first.is_ok() {
                first = ended;
            }
        }
        first
    })
}
