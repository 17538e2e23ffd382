//! Frequencies of any list of candidate values from an open-domain kind's reports, with
//! standard errors: the frequency oracles' unbiased estimators under a uniformly random
//! hash, with the sampler's exact quantised keep probability κ ([`Randomiser`]).
//!
//! * **OLH** (Wang, Blocki, Li, Jha 2017, §4.4): a report (s, y) *supports* x when
//!   xxh32(s, x) mod g = y. With p = κ + (1 − κ)/g and q = 1/g (the chance that an
//!   independent seed maps another value onto y), the support count C(x) has mean
//!   n·(f·p + (1 − f)·q), so f̂ = (C/n − q)/(p − q), with
//!   Var f̂ = (f·p(1 − p) + (1 − f)·q(1 − q)) / (n(p − q)²).
//! * **Hadamard response** (Acharya, Sun, Zhang 2019), one bit b(x)·j ⊕ flip per report,
//!   b(x) = xxh32(hash_seed, x) mod 2^m: z = (−1)^{bit ⊕ ⟨b(x), j⟩} / (2p − 1), p = κ + (1 − κ)/2,
//!   has mean 1 for a user whose bucket is b(x) and 0 for any other bucket (j uniform), so
//!   Σz/n estimates the mass of x's bucket; the expected mass of other values colliding
//!   with x, (1 − f)/2^m, is removed as in the count-mean sketch below.
//! * **HCMS** (Apple, "Learning with Privacy at Scale", 2017): the same ±1 correlation on
//!   the row j the user drew, with the column c = xxh32(j, x) mod m: Σz/n has mean
//!   f + (1 − f)/m, so f̂ = (m/(m − 1))·(Σz/n − 1/m) (Apple's count-mean correction).
//!   For the one-bit kinds Var(Σz) = n/(2p − 1)² − Σ_u E\[z_u\]², estimated with
//!   Σ_u E\[z_u\]² ≈ n·(f + (1 − f)/M²) (M the number of buckets).
//!
//! The curator computes the ±1 correlations in bulk: per row, the sums of ±1 by j (or l)
//! and their fast Walsh–Hadamard transform give every bucket's correlation at once; a
//! candidate is then one look-up per row. Past [`MAX_DENSE`] cells the sweep runs over
//! the reports instead, candidate by candidate, in parallel.

use alloc::string::String;
use alloc::vec::Vec;

use privlift::open::hash::xxh32;
use privlift::open::OpenMechanism;
use privlift::{Error, Result};

use super::{sweep, Randomiser, Report};

/// Most cells of the transformed sums held at once (2²⁴ i64: 128 MiB).
pub const MAX_DENSE: u64 = 1 << 24;

/// Frequencies of a candidate list.
#[derive(Debug, Clone, PartialEq)]
pub struct Frequencies {
    /// f̂ per candidate (unclamped: unbiased, may be negative).
    pub estimate: Vec<f64>,
    /// Its standard error (the plug-in estimate, f clamped to [0, 1]).
    pub std_error: Vec<f64>,
    /// The reports used.
    pub n: u64,
    /// The estimator: the kind's name.
    pub method: &'static str,
}

/// Estimates the frequency of each candidate (UTF-8 bytes) from `reports` of
/// `mechanism`'s kind (heavy hitters: see [`super::pem`]).
///
/// # Errors
/// `invalid_argument` for a kind without a candidate oracle, a report of another kind,
/// or parameters outside their ranges.
pub fn frequencies(mechanism: &OpenMechanism, reports: &[Report], candidates: &[&[u8]]) -> Result<Frequencies> {
    let wrong = || Error::invalid("reports", "a report of another kind");
    let n = reports.len() as u64;
    let (sums, p, buckets): (Vec<f64>, f64, f64) = match *mechanism {
        OpenMechanism::Olh { epsilon, g } => {
            let mut seeds = Vec::with_capacity(reports.len());
            let mut ys = Vec::with_capacity(reports.len());
            for r in reports {
                let Report::Olh { seed, y } = *r else { return Err(wrong()) };
                seeds.push(seed);
                ys.push(y);
            }
            let r = Randomiser::new(epsilon, g)?;
            let counts = support_counts(&seeds, &ys, g, candidates);
            return Ok(olh_frequencies(&counts, n, r, "olh"));
        }
        OpenMechanism::Hadamard { epsilon, bits, hash_seed } => {
            let mut pairs = Vec::with_capacity(reports.len());
            for r in reports {
                let Report::Hadamard { j, bit } = *r else { return Err(wrong()) };
                pairs.push((j, bit));
            }
            let mask = if bits >= 32 { u32::MAX } else { (1u32 << bits) - 1 };
            let b: Vec<u32> = candidates.iter().map(|c| xxh32(hash_seed, c) & mask).collect();
            (hadamard_sums(&pairs, bits, &b), Randomiser::new(epsilon, 2)?.p_same(), 2f64.powi(bits as i32))
        }
        OpenMechanism::Hcms { epsilon, k, m } => {
            let mut triples = Vec::with_capacity(reports.len());
            for r in reports {
                let Report::Hcms { j, l, bit } = *r else { return Err(wrong()) };
                triples.push((j, l, bit));
            }
            if !m.is_power_of_two() || m < 2 || k == 0 {
                return Err(Error::invalid("m", "must be a power of two ≥ 2"));
            }
            (hcms_sums(&triples, k, m, candidates), Randomiser::new(epsilon, 2)?.p_same(), f64::from(m))
        }
        OpenMechanism::HeavyHitters { .. } => {
            return Err(Error::invalid(
                "mechanism",
                "heavy hitters are estimated by prefix extension, not from a candidate list",
            ))
        }
    };
    Ok(bit_frequencies(&sums, n, p, buckets, mechanism.tag()))
}

/// f̂ and its standard error from OLH support counts.
pub(crate) fn olh_frequencies(counts: &[u64], n: u64, r: Randomiser, method: &'static str) -> Frequencies {
    let (estimate, std_error) = counts.iter().map(|&c| olh_estimate(c, n, r)).unzip();
    Frequencies { estimate, std_error, n, method }
}

/// f̂ and its standard error from one candidate's support count `c` among `n` OLH
/// reports (NaN for none).
pub(crate) fn olh_estimate(c: u64, n: u64, r: Randomiser) -> (f64, f64) {
    if n == 0 {
        return (f64::NAN, f64::NAN);
    }
    let (p, q) = (r.p_same(), 1.0 / f64::from(r.outputs));
    let nf = n as f64;
    let f = (c as f64 / nf - q) / (p - q);
    let fc = f.clamp(0.0, 1.0);
    let var = (fc * p * (1.0 - p) + (1.0 - fc) * q * (1.0 - q)) / (nf * (p - q) * (p - q));
    (f, var.sqrt())
}

/// f̂ and its standard error from the ±1 sums of a one-bit kind over `buckets` buckets.
fn bit_frequencies(sums: &[f64], n: u64, p: f64, buckets: f64, method: &'static str) -> Frequencies {
    let nf = n as f64;
    let scale = 2.0 * p - 1.0;
    let correction = buckets / (buckets - 1.0);
    let (estimate, std_error) = sums
        .iter()
        .map(|&s| {
            if n == 0 {
                return (f64::NAN, f64::NAN);
            }
            let mean = s / (nf * scale);
            let f = correction * (mean - 1.0 / buckets);
            let fc = f.clamp(0.0, 1.0);
            let per_report = (1.0 / (scale * scale) - fc - (1.0 - fc) / (buckets * buckets)).max(0.0);
            (f, correction * (per_report / nf).sqrt())
        })
        .unzip();
    Frequencies { estimate, std_error, n, method }
}

/// x mod g for any 32-bit x by one multiplication (Lemire, Kaser, Kurz 2019): the
/// reports' sweep divides 10¹⁰ times.
#[derive(Clone, Copy)]
pub(crate) struct FastMod {
    m: u64,
    g: u64,
}

impl FastMod {
    pub(crate) fn new(g: u32) -> Self {
        FastMod { m: (u64::MAX / u64::from(g)).wrapping_add(1), g: u64::from(g) }
    }
    #[inline(always)]
    pub(crate) fn rem(self, x: u32) -> u32 {
        let low = self.m.wrapping_mul(u64::from(x));
        ((u128::from(low) * u128::from(self.g)) >> 64) as u32
    }
}

/// For each candidate, the number of reports (seeds[i], ys[i]) that support it.
pub(crate) fn support_counts(seeds: &[u32], ys: &[u32], g: u32, candidates: &[&[u8]]) -> Vec<u64> {
    let modulo = FastMod::new(g);
    sweep::map(candidates.len(), seeds.len() as u64, |c| {
        let value = candidates[c];
        seeds.iter().zip(ys).map(|(&s, &y)| u64::from(modulo.rem(xxh32(s, value)) == y)).sum()
    })
}

/// In-place fast Walsh–Hadamard transform: a[b] ← Σ_j a[j]·(−1)^{popcount(b & j)}.
fn fwht(a: &mut [i64]) {
    let mut h = 1;
    while h < a.len() {
        for block in a.chunks_exact_mut(2 * h) {
            let (lo, hi) = block.split_at_mut(h);
            for (x, y) in lo.iter_mut().zip(hi.iter_mut()) {
                let (u, v) = (*x, *y);
                *x = u + v;
                *y = u - v;
            }
        }
        h *= 2;
    }
}

/// ±1 of a bit: +1 for 0, −1 for 1.
#[inline(always)]
fn sign(bit: bool) -> i64 {
    1 - 2 * i64::from(bit)
}

/// Σ_i (−1)^{bit_i ⊕ ⟨b, j_i⟩} for each candidate's bucket b.
fn hadamard_sums(pairs: &[(u32, bool)], bits: u32, buckets: &[u32]) -> Vec<f64> {
    if u64::from(bits) <= 24 && (1u64 << bits) <= MAX_DENSE {
        let mut t = alloc::vec![0i64; 1 << bits];
        for &(j, bit) in pairs {
            t[j as usize] += sign(bit);
        }
        fwht(&mut t);
        return buckets.iter().map(|&b| t[b as usize] as f64).collect();
    }
    sweep::map(buckets.len(), pairs.len() as u64, |c| {
        let b = buckets[c];
        pairs.iter().map(|&(j, bit)| sign(bit ^ ((b & j).count_ones() & 1 == 1))).sum::<i64>() as f64
    })
}

/// Σ_i (−1)^{bit_i ⊕ ⟨xxh32(j_i, x) mod m, l_i⟩} for each candidate x.
fn hcms_sums(triples: &[(u32, u32, bool)], k: u32, m: u32, candidates: &[&[u8]]) -> Vec<f64> {
    let mask = m - 1;
    if u64::from(k) * u64::from(m) <= MAX_DENSE {
        let m = m as usize;
        let mut sketch = alloc::vec![0i64; k as usize * m];
        for &(j, l, bit) in triples {
            sketch[j as usize * m + l as usize] += sign(bit);
        }
        for row in sketch.chunks_exact_mut(m) {
            fwht(row);
        }
        let rows = sketch.chunks_exact(m).enumerate();
        return sweep::map(candidates.len(), u64::from(k), |c| {
            rows.clone().map(|(j, row)| row[(xxh32(j as u32, candidates[c]) & mask) as usize]).sum::<i64>() as f64
        });
    }
    sweep::map(candidates.len(), triples.len() as u64, |c| {
        let x = candidates[c];
        triples.iter().map(|&(j, l, bit)| sign(bit ^ ((xxh32(j, x) & mask & l).count_ones() & 1 == 1))).sum::<i64>()
            as f64
    })
}

/// The candidates of a text file, one a line (a final newline optional; `\r\n` read as
/// one line end); each checked as a value of at most `max_bytes`.
///
/// # Errors
/// `invalid_argument` naming the line of a value too long or containing U+0000, or a
/// repeated candidate (never echoing it).
pub fn candidate_lines(text: &str, max_bytes: usize) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    let mut seen = alloc::collections::BTreeSet::new();
    let body = text.strip_suffix('\n').unwrap_or(text);
    if body.is_empty() {
        return Ok(out);
    }
    for (i, line) in body.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        super::check_value(line, max_bytes)
            .map_err(|e| Error::invalid(alloc::format!("candidates line {}", i + 1), e.to_string()))?;
        if !seen.insert(line) {
            return Err(Error::invalid(alloc::format!("candidates line {}", i + 1), "repeats an earlier candidate"));
        }
        out.push(line.into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_mod_is_the_remainder() {
        for g in [2u32, 3, 4, 7, 56, 65_535, 65_536] {
            let m = FastMod::new(g);
            for x in [0u32, 1, 2, g - 1, g, g + 1, 12_345_678, u32::MAX - 1, u32::MAX] {
                assert_eq!(m.rem(x), x % g, "{x} mod {g}");
            }
        }
    }

    #[test]
    fn the_transform_is_the_correlation() {
        let t: Vec<i64> = (0..16).map(|i| (i * 7 % 5) - 2).collect();
        let mut f = t.clone();
        fwht(&mut f);
        for b in 0..16u32 {
            let direct: i64 =
                (0..16u32).map(|j| t[j as usize] * if (b & j).count_ones() % 2 == 0 { 1 } else { -1 }).sum();
            assert_eq!(f[b as usize], direct);
        }
    }

    #[test]
    fn the_dense_and_swept_sums_agree() {
        let pairs: Vec<(u32, bool)> =
            (0..500u32).map(|i| (i.wrapping_mul(2_654_435_761) & 0xfff, i % 3 == 0)).collect();
        let buckets = [0u32, 5, 4095, 1234];
        let dense = hadamard_sums(&pairs, 12, &buckets);
        let swept: Vec<f64> = buckets
            .iter()
            .map(|&b| pairs.iter().map(|&(j, bit)| sign(bit ^ ((b & j).count_ones() & 1 == 1))).sum::<i64>() as f64)
            .collect();
        assert_eq!(dense, swept);
        let triples: Vec<(u32, u32, bool)> =
            (0..500u32).map(|i| (i % 7, i.wrapping_mul(40_503) & 15, i % 5 == 0)).collect();
        let cands: [&[u8]; 3] = [b"apple", b"", b"kiwi"];
        let dense = hcms_sums(&triples, 7, 16, &cands);
        let swept: Vec<f64> = cands
            .iter()
            .map(|x| {
                triples
                    .iter()
                    .map(|&(j, l, bit)| sign(bit ^ ((xxh32(j, x) & 15 & l).count_ones() & 1 == 1)))
                    .sum::<i64>() as f64
            })
            .collect();
        assert_eq!(dense, swept);
    }

    #[test]
    fn candidate_files_are_checked_lines() {
        assert_eq!(candidate_lines("a\r\nb\n", 4).unwrap(), ["a", "b"]);
        assert_eq!(candidate_lines("", 4).unwrap(), Vec::<String>::new());
        assert_eq!(candidate_lines("a\n\n", 4).unwrap(), ["a", ""]);
        let e = candidate_lines("a\nsecret-long\n", 4).unwrap_err();
        assert!(e.to_string().contains("line 2") && !e.to_string().contains("secret"), "{e}");
        assert!(candidate_lines("a\na\n", 4).unwrap_err().to_string().contains("repeats"));
    }
}
