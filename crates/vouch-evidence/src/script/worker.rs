//! Another crate's parser, run where it cannot hang or crash a gate: on a worker thread (one
//! per calling thread), with a deadline, its panics caught. Fuzzing found inputs it backtracks
//! on for minutes, and inputs it panics on.

use std::cell::RefCell;
use std::sync::mpsc::{self, SendError, Sender};
use std::time::Duration;

/// A piece of work for the worker.
type Job = Box<dyn FnOnce() + Send>;

thread_local! {
    /// This thread's worker: started on first use, replaced when it overruns a deadline (the
    /// overrunning one is left to finish and end on its own).
    static WORKER: RefCell<Option<Sender<Job>>> = const { RefCell::new(None) };
}

/// Why the worker gave no answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Failed {
    /// It panicked.
    Panicked,
    /// It was still at work when the deadline came.
    TooSlow,
    /// No thread could be started.
    NoThread,
}

/// Runs `work` on this thread's worker and returns its answer, or why there is none, waiting
/// at most `deadline`.
pub(super) fn run<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
    deadline: Duration,
) -> Result<T, Failed> {
    let (answer, answered) = mpsc::channel();
    let job: Job = Box::new(move || {
        let _ = answer.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)));
    });
    WORKER.with(|cell| {
        let mut worker = cell.borrow_mut();
        let mut job = job;
        if let Some(w) = worker.as_ref() {
            match w.send(job) {
                Ok(()) => return Ok(()),
                Err(SendError(back)) => job = back,
            }
        }
        let sender = start().ok_or(Failed::NoThread)?;
        sender.send(job).map_err(|_| Failed::NoThread)?;
        *worker = Some(sender);
        Ok(())
    })?;
    match answered.recv_timeout(deadline) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(_)) => Err(Failed::Panicked),
        Err(_) => {
            WORKER.with(|cell| cell.borrow_mut().take());
            Err(Failed::TooSlow)
        }
    }
}

/// Starts a worker, which runs each job it receives until its sender is dropped.
fn start() -> Option<Sender<Job>> {
    let (sender, jobs) = mpsc::channel::<Job>();
    std::thread::Builder::new()
        .name("vouch-shell-parse".into())
        .spawn(move || {
            for job in jobs {
                job();
            }
        })
        .ok()?;
    Some(sender)
}
