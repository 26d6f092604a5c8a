//! A long-lived worker thread for the second stage of [`crate::png_hash`]'s pipeline.
//!
//! Starting a thread costs tens of microseconds per call (and its fresh memory more page
//! faults), a few percent of hashing a screenshot, so the worker is started once and kept,
//! waiting for work. One call uses it at a time; a call that finds it busy (another thread is
//! hashing) starts a thread of its own.

use std::panic::AssertUnwindSafe;
use std::sync::Mutex;
use std::sync::mpsc;

/// A piece of work for the worker.
pub(crate) type Job = Box<dyn FnOnce() + Send + 'static>;

/// The worker's job queue; `None` until first used (or after the worker was lost).
static WORKER: Mutex<Option<mpsc::Sender<Job>>> = Mutex::new(None);

/// Runs `job`, containing a panic: a job reports its result through what it shares with its
/// caller, and must leave that in a state the caller can see (see `png_hash`'s drop guard).
fn run(job: Job) {
    let _ = std::panic::catch_unwind(AssertUnwindSafe(job));
}

/// Starts a worker thread that runs the jobs sent to it, one after the other.
fn start_worker() -> Option<mpsc::Sender<Job>> {
    let (sender, jobs) = mpsc::channel::<Job>();
    std::thread::Builder::new()
        .name("retrace-vision-worker".to_owned())
        .spawn(move || jobs.into_iter().for_each(run))
        .ok()?;
    Some(sender)
}

/// Runs `job` on another thread while `here` runs on this one, and returns what `here`
/// returns. `here` must wait for what it needs from the job, and the job must end soon after
/// `here` returns: the worker is free for the next call only then.
pub(crate) fn run_beside<T>(job: Job, here: impl FnOnce() -> T) -> T {
    let Ok(mut worker) = WORKER.try_lock() else {
        return on_new_thread(job, here);
    };
    if worker.is_none() {
        *worker = start_worker();
    }
    let Some(queue) = worker.as_ref() else {
        return on_new_thread(job, here);
    };
    match queue.send(job) {
        Ok(()) => here(),
        // The worker is gone: start again next time, and use a new thread now.
        Err(mpsc::SendError(job)) => {
            *worker = None;
            on_new_thread(job, here)
        }
    }
}

/// Runs `job` on a thread started for it while `here` runs on this one.
fn on_new_thread<T>(job: Job, here: impl FnOnce() -> T) -> T {
    std::thread::scope(|scope| {
        scope.spawn(move || run(job));
        here()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_run_beside_and_results_come_back() {
        for round in 0..20u32 {
            let (sender, results) = mpsc::channel();
            let job: Job = Box::new(move || {
                let _ = sender.send(round * 3);
            });
            assert_eq!(run_beside(job, || results.recv()), Ok(round * 3));
        }
    }

    #[test]
    fn a_panicking_job_is_an_error_for_its_caller_only() {
        let (sender, results) = mpsc::channel::<u32>();
        let job: Job = Box::new(move || {
            let _keep = sender;
            panic!("job failed");
        });
        assert!(run_beside(job, || results.recv()).is_err());
        // The worker still takes jobs.
        let (sender, results) = mpsc::channel::<u32>();
        let job: Job = Box::new(move || {
            let _ = sender.send(7);
        });
        assert_eq!(run_beside(job, || results.recv()), Ok(7));
    }

    #[test]
    fn calls_from_many_threads_at_once_all_finish() {
        std::thread::scope(|scope| {
            for t in 0..4u32 {
                scope.spawn(move || {
                    for round in 0..10u32 {
                        let (sender, results) = mpsc::channel();
                        let job: Job = Box::new(move || {
                            let _ = sender.send(t * 100 + round);
                        });
                        assert_eq!(run_beside(job, || results.recv()), Ok(t * 100 + round));
                    }
                });
            }
        });
    }
}
