//! When the PostgreSQL engine tries again, and how long it waits first.
//!
//! Two kinds of failure are the collector's to resolve rather than its clients':
//! - a statement the server rolled back to break a conflict with a concurrent one
//!   (SQLSTATE 40001 `serialization_failure`, 40P01 `deadlock_detected`): nothing of it was
//!   stored, so it runs again, at most [`MAX_ATTEMPTS`] times, after a short pause drawn at
//!   random ([`pause`]) so that the transactions it met do not meet again in step;
//! - a lost connection (a server restarted, a backend terminated): the next statement
//!   connects again, no sooner than [`Reconnect`] allows, so that a server that is down
//!   is not asked for a connection by every request.
//!
//! The pauses need no secret randomness: [`jitter`] reads the standard library's
//! per-process random hash keys.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use postgres::error::SqlState;

/// Runs of one statement, at most, while the server rolls it back for a conflict.
pub const MAX_ATTEMPTS: u32 = 5;
/// The pause before the second run; it doubles before each further one.
const FIRST_PAUSE: Duration = Duration::from_millis(5);
/// The wait after the first failed connection attempt; it doubles after each further one.
const FIRST_RECONNECT: Duration = Duration::from_millis(50);
/// The longest wait between connection attempts: a server back up is used again at most
/// this long after it accepts connections.
pub const MAX_RECONNECT: Duration = Duration::from_millis(1000);

/// Whether the server rolled `e` back to break a conflict with a concurrent transaction
/// (the statement can run again as it is).
pub fn is_conflict(e: &postgres::Error) -> bool {
    matches!(e.code(), Some(c) if *c == SqlState::T_R_SERIALIZATION_FAILURE || *c == SqlState::T_R_DEADLOCK_DETECTED)
}

/// A number in `[0, 1)`, different at each call, from no secret source.
fn jitter() -> f64 {
    // Each `RandomState` has keys of its own: a hash of nothing differs at each call.
    let h = RandomState::new().build_hasher();
    (h.finish() >> 11) as f64 / (1u64 << 53) as f64
}

/// The pause before run `attempt + 1` of a statement that conflicted in run `attempt`
/// (from 1): drawn uniformly from half to all of [`FIRST_PAUSE`] × 2^(attempt − 1).
pub fn pause(attempt: u32) -> Duration {
    FIRST_PAUSE.saturating_mul(1 << attempt.saturating_sub(1).min(16)).mul_f64(0.5 + 0.5 * jitter())
}

/// Connections this process's stores have made: a store waiting to connect again tries
/// at once when another one has connected since its last failure (the server is back).
static CONNECTED: AtomicU64 = AtomicU64::new(0);

/// When the next connection attempt may be made: at once at first, then after waits
/// doubling from [`FIRST_RECONNECT`] to [`MAX_RECONNECT`] while attempts fail, or as soon
/// as another store of the process has connected.
#[derive(Debug, Default)]
pub struct Reconnect {
    failures: u32,
    not_before: Option<Instant>,
    /// [`CONNECTED`] at the last failure.
    seen: u64,
}

impl Reconnect {
    /// Whether an attempt may be made now.
    pub fn due(&self) -> bool {
        self.not_before.is_none_or(|t| Instant::now() >= t) || CONNECTED.load(Ordering::Relaxed) != self.seen
    }

    /// An attempt failed: the next one waits longer.
    pub fn failed(&mut self) {
        let wait = FIRST_RECONNECT.saturating_mul(1 << self.failures.min(16)).min(MAX_RECONNECT);
        self.failures = self.failures.saturating_add(1);
        self.not_before = Some(Instant::now() + wait);
        self.seen = CONNECTED.load(Ordering::Relaxed);
    }

    /// An attempt succeeded: the next loss is retried at once, and the stores waiting
    /// try again.
    pub fn succeeded(&mut self) {
        CONNECTED.fetch_add(1, Ordering::Relaxed);
        *self = Reconnect::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pauses_double_within_their_jitter() {
        for attempt in 1..=MAX_ATTEMPTS {
            let full = FIRST_PAUSE * (1 << (attempt - 1));
            for _ in 0..100 {
                let p = pause(attempt);
                assert!(p >= full / 2 && p <= full, "attempt {attempt}: {p:?}");
            }
        }
        // Not all the same (a fixed pause would meet the other transaction again).
        let draws: std::collections::HashSet<_> = (0..20).map(|_| pause(1)).collect();
        assert!(draws.len() > 10, "{draws:?}");
    }

    /// One test, since the stores of a process share [`CONNECTED`].
    #[test]
    fn reconnect_waits_grow_to_their_cap_and_end_when_any_store_connects() {
        let (mut r, mut other) = (Reconnect::default(), Reconnect::default());
        assert!(r.due());
        r.failed();
        assert!(!r.due());
        for _ in 0..40 {
            r.failed();
        }
        let wait = r.not_before.unwrap() - Instant::now();
        assert!(wait <= MAX_RECONNECT && wait > MAX_RECONNECT / 2, "{wait:?}");
        r.succeeded();
        assert!(r.due());
        r.failed();
        other.failed();
        assert!(!r.due() && !other.due());
        other.succeeded();
        assert!(r.due(), "another store connected: the server is back");
    }
}
