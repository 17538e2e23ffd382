//! Progress of the long designs: the vertex searches of ORR, AORR and SRR
//! ([`crate::vertex`]) report how far they are, so a front end can show it (the CLI draws
//! a progress bar on a terminal); so do the continuous designers, in exact audits of the
//! lattice mechanism ([`Steps`]). The design functions keep their signatures: an observer
//! is installed for the current thread by [`observe`] or [`observe_steps`] around the call.

use alloc::boxed::Box;
use core::cell::RefCell;
use std::thread::LocalKey;

/// How far one vertex search is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Which search of the design this is (0, 1, …: SRR runs one per group).
    pub search: usize,
    /// Feasible bases visited so far.
    pub bases: usize,
    /// Vertices found so far.
    pub vertices: usize,
    /// The search's cap on bases: the design is refused (`invalid_argument`, pointing to
    /// SRR) when `bases` passes it, so `bases / max_bases` is how close the refusal is.
    pub max_bases: usize,
    /// Whether the search has ended (the last report of a search has it set).
    pub done: bool,
}

type Observer = Box<dyn FnMut(&Progress)>;

std::thread_local! {
    static OBSERVER: RefCell<Option<(Observer, usize)>> = const { RefCell::new(None) };
}

/// Runs `f` with `observer` told of every vertex search's progress on this thread (about
/// every [`EVERY`] bases, and once at the end of each search).
pub fn observe<T>(observer: impl FnMut(&Progress) + 'static, f: impl FnOnce() -> T) -> T {
    installed(&OBSERVER, (Box::new(observer), 0), f)
}

/// Runs `f` with `value` in the thread-local `slot`, then puts back what was there (so
/// observers nest).
fn installed<S: 'static, T>(slot: &'static LocalKey<RefCell<Option<S>>>, value: S, f: impl FnOnce() -> T) -> T {
    let previous = slot.with(|o| o.replace(Some(value)));
    let out = f();
    slot.with(|o| o.replace(previous));
    out
}

/// Bases between two reports.
pub const EVERY: usize = 4096;

/// Tells the observer, if any, how far the current search is.
pub(crate) fn report(bases: usize, vertices: usize, max_bases: usize, done: bool) {
    OBSERVER.with(|o| {
        if let Some((f, search)) = o.borrow_mut().as_mut() {
            f(&Progress { search: *search, bases, vertices, max_bases, done });
            if done {
                *search += 1;
            }
        }
    });
}

/// How far a continuous design is, in steps: each exact audit of the lattice mechanism
/// in its searches for the smallest noise, each certified bound of its calibration on the
/// domain, and the audit of the published document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Steps {
    /// Steps done so far.
    pub done: usize,
    /// The steps the design is expected to make in all, from its searches' starting
    /// brackets and widths: an estimate, which `done` may pass.
    pub expected: usize,
}

type StepObserver = Box<dyn FnMut(&Steps)>;

std::thread_local! {
    static STEP_OBSERVER: RefCell<Option<(StepObserver, Steps)>> = const { RefCell::new(None) };
}

/// Runs `f` with `observer` told of every step a continuous design makes on this thread.
pub fn observe_steps<T>(observer: impl FnMut(&Steps) + 'static, f: impl FnOnce() -> T) -> T {
    installed(&STEP_OBSERVER, (Box::new(observer), Steps { done: 0, expected: 0 }), f)
}

/// Starts the count of a design expected to make `expected` steps.
pub(crate) fn expect_steps(expected: usize) {
    STEP_OBSERVER.with(|o| {
        if let Some((_, steps)) = o.borrow_mut().as_mut() {
            *steps = Steps { done: 0, expected };
        }
    });
}

/// Tells the step observer, if any, that one more step is done.
pub(crate) fn step() {
    STEP_OBSERVER.with(|o| {
        if let Some((f, steps)) = o.borrow_mut().as_mut() {
            steps.done += 1;
            f(steps);
        }
    });
}
