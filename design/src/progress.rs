//! Progress of the long designs: the vertex searches of ORR, AORR and SRR
//! ([`crate::vertex`]) report how far they are, so a front end can show it (the CLI draws
//! a progress bar on a terminal). The design functions keep their signatures: an observer
//! is installed for the current thread by [`observe`] around the call.

use alloc::boxed::Box;
use core::cell::RefCell;

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
    let previous = OBSERVER.with(|o| o.replace(Some((Box::new(observer), 0))));
    let out = f();
    OBSERVER.with(|o| o.replace(previous));
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
