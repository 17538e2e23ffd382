//! The deadline of a design run where a caller waits ([`crate::work::within`]): the work
//! that nothing bounds before it runs — an LP's pivots, a vertex search's bases — reads the
//! clock as it goes and stops once the deadline has passed. The deadline is thread-local:
//! a search's helper threads never read one (the thread that started the search does).

use core::cell::Cell;
use core::time::Duration;
use web_time::Instant;

use privlift::error::{Error, Result};

std::thread_local! {
    /// The instant by which the work run under [`by_deadline`] on this thread must end.
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
    /// Whether some work under [`DEADLINE`] reached it.
    static REACHED: Cell<bool> = const { Cell::new(false) };
}

/// Work between two reads of the clock by a vertex search: bases expanded by the hashed
/// search, or supports enumerated (the reverse search reads it as it counts its bases,
/// every 2⁶–2⁸). A read is a call out of wasm (`performance.now()`); an expansion of a
/// degenerate polytope's basis, with its ratio ties, took 5 µs natively (AMD EPYC) and
/// 30 µs in wasm (Node 20) on a 5 × 17 joint.
pub(crate) const SEARCH_READS_EVERY: usize = 1 << 4;

/// Runs `f` with the work it does on this thread stopped `limit` from now: `None` when some
/// of it reached the deadline (the design failed then, and that failure is not `f`'s
/// answer), else `f`'s result. Work that ends in time is the work without a deadline, step
/// for step: the clock is only read between steps.
pub(crate) fn by_deadline<T>(limit: Duration, f: impl FnOnce() -> T) -> Option<T> {
    // A limit too far to add to now is no limit (as microlp reads one).
    let previous = DEADLINE.replace(Instant::now().checked_add(limit));
    let reached_before = REACHED.replace(false);
    let out = f();
    DEADLINE.set(previous);
    let reached = REACHED.replace(reached_before);
    (!reached).then_some(out)
}

/// Whether the deadline of [`by_deadline`] has passed, marking the run as having reached it
/// if so. Without a deadline, one thread-local read and no clock.
pub(crate) fn past() -> bool {
    let past = DEADLINE.get().is_some_and(|d| Instant::now() >= d);
    if past {
        REACHED.set(true);
    }
    past
}

/// The time left before the deadline, if there is one (microlp reads it as its time limit).
pub(crate) fn remaining() -> Option<Duration> {
    DEADLINE.get().map(|d| d.saturating_duration_since(Instant::now()))
}

/// The failure of work the deadline stopped (`reason`: which work, and how), the run marked
/// as having reached it: `design_failed`.
pub(crate) fn stopped(reason: String) -> Error {
    REACHED.set(true);
    Error::DesignFailed { reason }
}

/// Whether the run has reached its deadline: a failure is then the deadline's, and no
/// fall-back (another solver, another search) is to be tried after it.
pub(crate) fn was_reached() -> bool {
    REACHED.get()
}

/// `Err(design_failed)` naming `what` once the deadline has passed ([`past`]).
pub(crate) fn check(what: &str) -> Result<()> {
    match past() {
        true => Err(stopped(alloc::format!("{what} reached its deadline"))),
        false => Ok(()),
    }
}
