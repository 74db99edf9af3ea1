//! Threads the server keeps for the second half of a call: `cm_context` hands its history search
//! to one ([`run`]) while its own thread ranks the rules. One thread fewer than the cores; each
//! waits for jobs on a channel, so a job starts as soon as it is sent (a thread spawned per call
//! waited for a core on a busy machine; see [`crate::context::engine::history_job`]).

use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Mutex, OnceLock};

type Job = Box<dyn FnOnce() + Send>;

static JOBS: OnceLock<Option<Mutex<Sender<Job>>>> = OnceLock::new();

fn jobs() -> Option<&'static Mutex<Sender<Job>>> {
    JOBS.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Job>();
        let rx = std::sync::Arc::new(Mutex::new(rx));
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get().max(2) - 1);
        for i in 0..threads {
            let rx = rx.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("cm-beside-{i}"))
                .spawn(move || {
                    loop {
                        let job = match rx.lock() {
                            Ok(r) => r.recv(),
                            Err(_) => return,
                        };
                        match job {
                            Ok(job) => job(),
                            Err(_) => return,
                        }
                    }
                });
            if spawned.is_err() {
                return None;
            }
        }
        Some(Mutex::new(tx))
    })
    .as_ref()
}

/// Run `f` on a kept thread; its result arrives on the receiver (`None` when no thread could
/// take it: the caller does the work itself).
pub fn run<T: Send + 'static>(
    f: impl FnOnce() -> Option<T> + Send + 'static,
) -> Receiver<Option<T>> {
    let (tx, rx) = mpsc::channel();
    let job: Job = Box::new(move || {
        let _ = tx.send(f());
    });
    match jobs().and_then(|j| j.lock().ok()) {
        Some(sender) => {
            if let Err(mpsc::SendError(job)) = sender.send(job) {
                drop(job);
            }
        }
        None => drop(job),
    }
    rx
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_job_runs_on_a_kept_thread_and_answers() {
        let here = std::thread::current().id();
        let rx = super::run(move || Some(std::thread::current().id() != here));
        assert_eq!(rx.recv().unwrap(), Some(true));
        let again = super::run(|| Some(2 + 2));
        assert_eq!(again.recv().unwrap(), Some(4));
    }
}
