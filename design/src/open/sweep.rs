//! The candidates' sweep over the reports, split among the cores: each thread takes a
//! contiguous slice of the candidates (their results do not depend on the split).

use alloc::vec::Vec;

/// Below this many candidate × report steps one thread is faster than starting others.
const MIN_PARALLEL_WORK: u64 = 1 << 22;

/// `f(i)` for every candidate i in 0..n, on up to [`crate::cores::threads`] scoped
/// threads natively (one in wasm); `work` is the steps per candidate (to skip threads for
/// small sweeps).
pub(crate) fn map<T: Send, F: Fn(usize) -> T + Sync>(n: usize, work: u64, f: F) -> Vec<T> {
    let threads = crate::cores::threads().min(n.max(1));
    if threads <= 1 || (n as u64).saturating_mul(work) < MIN_PARALLEL_WORK {
        return (0..n).map(f).collect();
    }
    let chunk = n.div_ceil(threads);
    #[cfg(not(target_arch = "wasm32"))]
    {
        let f = &f;
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..n)
                .step_by(chunk)
                .map(|start| s.spawn(move || (start..(start + chunk).min(n)).map(f).collect::<Vec<T>>()))
                .collect();
            handles.into_iter().flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))).collect()
        })
    }
    #[cfg(target_arch = "wasm32")]
    {
        let _ = chunk;
        (0..n).map(f).collect()
    }
}
