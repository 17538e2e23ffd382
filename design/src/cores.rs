//! The threads a native design may split its work among: the cores the OS gives the
//! process, at most [`MAX_THREADS`], read once per process; one in wasm.
//!
//! Read once because on Linux `std::thread::available_parallelism` reads and parses the
//! cgroup's CPU quota files at every call, tens of microseconds, and the simplex asks
//! before each full pricing scan: on a small design that was more than the LP itself.

/// More threads rarely help the designers' scans, searches and sweeps, which are
/// memory-bound.
pub(crate) const MAX_THREADS: usize = 8;

/// The cores available to this process (at least 1), at most [`MAX_THREADS`]; 1 in wasm.
pub(crate) fn threads() -> usize {
    #[cfg(not(target_arch = "wasm32"))]
    let cores = {
        static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
        *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    };
    #[cfg(target_arch = "wasm32")]
    let cores = 1;
    cores.min(MAX_THREADS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_are_between_one_and_the_cap_and_stay_the_same() {
        let t = threads();
        assert!((1..=MAX_THREADS).contains(&t), "{t}");
        assert_eq!(threads(), t);
    }
}
