//! Continuous mechanisms **on a lattice**: a bounded domain `[lo, hi]` discretised to the
//! points `x_k = lo + k·step`, `k = 0..n−1`, noise drawn exactly on the same lattice
//! ([`crate::sample::discrete`]), and the exact audit of the sampler that runs.
//!
//! # Why a lattice
//! A value is released as `lo + step·j` for an integer `j`: the mechanism is a discrete
//! channel `P(j | k)` with input `k ∈ 0..n` and output `j ∈ ℤ`, and its (ε, δ) can be
//! computed **exactly** (up to a tail mass bounded analytically from the noise pmf),
//! instead of by the continuous-density calculators of the `privlift-design` crate, which
//! describe a mechanism nobody can sample exactly in floating point (Mironov 2012).
//! The prior over the lattice is the prior's mass in each point's cell
//! `[x_k − step/2, x_k + step/2] ∩ [lo, hi]`, conditioned on the domain (mapping a
//! user's `x` to the nearest point is the same cell partition, so `P(k)` is the exact
//! prior of the discretised input).
//!
//! # What is audited (the paper's definition (3), Def 8)
//! With `γ = e^ε`, `P(j) = Σ_k p_k P(j|k)`:
//! * **LIP δ at ε**: `max_k max{e^{−ε}·E_γ(P_{·|k} ‖ P_Y), E_γ(P_Y ‖ P_{·|k})}`, over **every**
//!   lattice point (also points of prior mass 0: the guarantee covers the whole domain);
//! * **LDP δ at ε**: `max_{k,k'} E_γ(P_{·|k} ‖ P_{·|k'})`. For one noise scale the channel
//!   is a shift family of a log-concave pmf, which has a monotone likelihood ratio: the
//!   best set of `E_γ(P_{·|k+Δ} ‖ P_{·|k})` is an upper set `{j ≥ t}`, and
//!   `P(Z ≥ t − Δ) − γP(Z ≥ t)` grows with `Δ` for every `t`; so the sup is at the
//!   largest shift, the endpoints `Δ = n − 1` (checked against all pairs in the tests).
//!   With one σ per point the audit takes all pairs (only for small `n`; else not computed);
//! * **pure ε-LIP / ε-LDP**: `max |ln P(j|k)/P(j)|`, `max ln P(j|k)/P(j|k')`; finite for
//!   Laplace noise and the sampling mechanism, infinite for Gaussian noise (`n > 1`).
//!
//! # Window and tail
//! Gaussian noise: outputs `j ∈ [−T, n−1+T]` are summed exactly, with `T` the smallest
//! integer whose tail `τ = P(|Z| > T) ≤ 1e-17` (bounded by a geometric series from the
//! pmf); every term outside the window is bounded by its mass, so `τ` is added to each
//! E-divergence. Laplace noise: the ratio `P(j|k)/P(j)` is constant beyond the domain
//! (`j ≤ 0` and `j ≥ n − 1`), so the sums over the two rays are geometric series in closed
//! form: no truncation at all. The sampling mechanism has outputs in `0..n` only.
//!
//! # Rounding
//! Every pmf value carries a relative error bound `r` (arguments of `exp` formed in a few
//! roundings, normalising sums of `≤ W` positive terms: `γ_{W+8} + 8u·(max argument)`),
//! and `P(j)` adds `γ_{n+2}`; a sum `Σ (a − γb)₊` is widened by `r_a + γ·r_b` (since
//! `Σa, Σb ≤ 1`) and by `γ_m` of its `m` roundings; logarithms by [`abs_ln_up`]. So every
//! δ and ε returned is an upper bound on the exact value of the sampler's rational
//! parameters.

use alloc::vec;
use alloc::vec::Vec;

use crate::error::{Error, Result};
use crate::numeric::{abs_ln_up, gamma, next_up, UNIT_ROUNDOFF};
use crate::param::{Delta, Epsilon};
use crate::sample::discrete::{DiscreteGaussian, DiscreteLaplace};
use crate::sample::lattice::{Kind, LatticeMechanism};

/// Tail mass targeted when truncating Gaussian noise (added to every δ).
pub const TAIL_TARGET: f64 = 1e-17;
/// Most multiply-adds of one exact audit (`n · (2T + 1)` per pass).
pub const MAX_AUDIT_WORK: f64 = 4e9;
/// Most entries (f64) of the Gaussian pmf tables of one audit, over its distinct scales:
/// 256 MiB. One scale of σ = 2²⁰ lattice steps (the largest a document may state) needs
/// 1.8·10⁷; 256 distinct scales that wide would need 40 GB.
pub const MAX_TABLE_ENTRIES: f64 = (1u64 << 25) as f64;

const U: f64 = UNIT_ROUNDOFF;

/// The relative margin by which `gaussian_tail` raises its bound: far above the rounding of
/// its two exponentials and one division (a few ulps), so the bound stays an upper bound.
const TAIL_MARGIN: f64 = 1e-10;

/// Work units of one entry of a Gaussian noise table (an `exp` and a division), built
/// anew by the audit and by each δ: 80–110 ns an entry in headless Chromium (two points,
/// σ of 2¹⁶–2²⁰ steps: the tables alone, load 5 on 2 cores), 22–30 units of 2⁻²⁸ s;
/// counted 50 (34,000 steps, at the default budget: 0.34–1.2 s at load 20).
pub const TABLE_ENTRY_UNITS: f64 = 50.0;

/// Work units of one (point, table entry) cell of a LIP δ: P(j) accumulated and the two
/// positive parts summed, 22–34 ns a cell in headless Chromium (901–1301 points of the
/// salary domain, σ of 2740–3960 steps: the whole verification, load 5 on 2 cores), 6–9
/// units; counted 16 (571 points at 12: 1.1–1.7 s at load 20).
pub const LIP_CELL_UNITS: f64 = 16.0;

/// Work units of one (pair of points, table entry) cell of the pairwise LDP δ of one σ
/// per point: 7.6–8.3 ns in headless Chromium (128 points, σ of 64–256 steps), 2 units;
/// counted 4.
pub const PAIR_CELL_UNITS: f64 = 4.0;

/// The audited leakage of a [`LatticeMechanism`] at a given ε (nats).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LatticeAudit {
    /// Pure ε-LIP `max |ln P(j|k)/P(j)|` (∞ for Gaussian noise on ≥ 2 points).
    pub lip_eps: f64,
    /// Pure ε-LDP `max ln P(j|k)/P(j|k')` (∞ for Gaussian noise on ≥ 2 points; NaN when
    /// not computed: instance-dependent σ on more than 128 points).
    pub ldp_eps: f64,
    /// Upper bound on the tail mass added to each δ (0 for Laplace and sampling).
    pub tail_mass: f64,
}

/// A pmf on `z ∈ [−half, half]` with a relative error bound per value and the mass outside.
#[derive(Debug, Clone)]
struct PmfTable {
    half: usize,
    vals: Vec<f64>,
    /// Upper bound on `P(|Z| > half)`.
    tail: f64,
    /// Relative error bound of each value.
    rel: f64,
}

impl PmfTable {
    fn at(&self, z: i64) -> f64 {
        let i = z + self.half as i64;
        if i < 0 || i as usize >= self.vals.len() {
            0.0
        } else {
            self.vals[i as usize]
        }
    }

    fn gaussian(g: &DiscreteGaussian) -> Result<Self> {
        let (num, den) = g.variance();
        let s2 = num as f64 / den as f64;
        let s = libm::sqrt(s2);
        let w = |z: f64| libm::exp(-z * z / (2.0 * s2));
        let half = half_width(s2);
        // Normaliser: all terms down to underflow (w(40s) = e^{−800} = 0 in f64).
        let reach = (40.0 * s) as usize + 2;
        let mut norm = 1.0;
        for z in 1..=reach {
            norm += 2.0 * w(z as f64);
        }
        if half as f64 > 2e8 {
            return Err(Error::invalid(
                "mechanism.sigma",
                "the noise is too wide to audit on this lattice: use a coarser step",
            ));
        }
        let vals: Vec<f64> = (0..=2 * half).map(|i| w(i as f64 - half as f64) / norm).collect();
        let max_arg = (half as f64) * (half as f64) / (2.0 * s2);
        let rel = gamma(reach + 8) + 8.0 * U * max_arg.min(800.0) + 4.0 * U;
        Ok(PmfTable { half, vals, tail: gaussian_tail(s2, half), rel })
    }
}

/// Upper bound on `P(|Z| > t)` for the discrete Gaussian of variance `s2`:
/// 2·w(t+1)/(1 − e^{−(2t+3)/2s²}) with w(z) = exp(−z²/2s²) (the normaliser is ≥ 1).
fn gaussian_tail(s2: f64, t: usize) -> f64 {
    let t1 = (t + 1) as f64;
    let w = libm::exp(-t1 * t1 / (2.0 * s2));
    let r = libm::exp(-(2.0 * t1 + 1.0) / (2.0 * s2));
    next_up(2.0 * w / (1.0 - r) * (1.0 + TAIL_MARGIN))
}

/// The half-width of the table of a discrete Gaussian of variance `s2`: the first `t`
/// (on a geometric grid from √(2 ln(2/τ))·s) whose tail is below [`TAIL_TARGET`].
/// Scalar work only, so the cost of an audit is known before its tables exist.
fn half_width(s2: f64) -> usize {
    let s = libm::sqrt(s2);
    let mut half = (s * libm::sqrt(2.0 * libm::log(2.0 / TAIL_TARGET))) as usize + 1;
    while gaussian_tail(s2, half) > TAIL_TARGET && half < 300_000_000 {
        half += 1 + half / 16;
    }
    half
}

impl LatticeMechanism {
    /// Pure ε-LIP, pure ε-LDP and the tail mass (see [`LatticeAudit`]).
    ///
    /// # Errors
    /// `invalid_argument` if the exact audit would exceed [`MAX_AUDIT_WORK`].
    pub fn audit(&self) -> Result<LatticeAudit> {
        let n = self.lattice.len();
        Ok(match &self.kind {
            Kind::Gaussian { samplers, .. } => {
                let tables = self.gaussian_tables()?;
                let pure = if n == 1 { 0.0 } else { f64::INFINITY };
                let ldp = if samplers.len() > 1 && n > 128 { f64::NAN } else { pure };
                LatticeAudit {
                    lip_eps: pure,
                    ldp_eps: ldp,
                    tail_mass: tables.iter().map(|t| t.tail).fold(0.0, f64::max),
                }
            }
            Kind::Laplace(l) => {
                let (lip, ldp) = self.laplace_pure(l);
                LatticeAudit { lip_eps: lip, ldp_eps: ldp, tail_mass: 0.0 }
            }
            Kind::Sampling { lambda, q, .. } => {
                let (lip, ldp) = sampling_pure(lambda.get(), &self.prior, q);
                LatticeAudit { lip_eps: lip, ldp_eps: ldp, tail_mass: 0.0 }
            }
        })
    }

    /// What verifying this mechanism costs, in the work units of
    /// [`crate::verify::Work`] (≈ 1/2²⁸ s of the wasm client's first verification), from
    /// its parameters alone, for the audit and then `lip_evals` evaluations of the LIP δ
    /// and `ldp_evals` of the LDP δ. Every evaluation rebuilds the noise tables (one `exp`
    /// per entry and per term of the normaliser, [`TABLE_ENTRY_UNITS`]); a LIP δ then
    /// accumulates P(j) and sums the positive parts over each point's table
    /// ([`LIP_CELL_UNITS`] per point and table entry); an LDP δ compares the two extreme
    /// shifts, or, for one σ per point on ≤ 128 points, every pair ([`PAIR_CELL_UNITS`]).
    pub fn audit_work(&self, lip_evals: usize, ldp_evals: usize) -> f64 {
        let n = self.lattice.len() as f64;
        let (lip_evals, ldp_evals) = (lip_evals as f64, ldp_evals as f64);
        match &self.kind {
            Kind::Gaussian { samplers, .. } => {
                let (mut tables, mut widest) = (0.0f64, 0.0f64);
                for g in samplers {
                    let (num, den) = g.variance();
                    let s2 = num as f64 / den as f64;
                    let m = 2.0 * half_width(s2) as f64 + 1.0;
                    tables += m + 40.0 * libm::sqrt(s2) + 2.0;
                    widest = widest.max(m);
                }
                let builds = 1.0 + lip_evals + ldp_evals;
                let lip = LIP_CELL_UNITS * n * widest + 4.0 * (n + widest);
                let ldp = if samplers.len() > 1 && n <= 128.0 {
                    PAIR_CELL_UNITS * n * (n - 1.0) * widest
                } else {
                    2.0 * widest
                };
                TABLE_ENTRY_UNITS * builds * tables + lip_evals * lip + ldp_evals * ldp
            }
            // S(j) for the audit and each LIP δ, and each LIP δ's two sums over (k, j).
            Kind::Laplace(_) => (1.0 + 3.0 * lip_evals) * n * n + 16.0 * n,
            Kind::Sampling { .. } => 16.0 * n,
        }
    }

    /// The δ of (ε, δ)-LIP (definition (3)), an upper bound (module docs).
    ///
    /// # Errors
    /// `invalid_argument` for ε not in `[0, 700]` or an audit above [`MAX_AUDIT_WORK`].
    pub fn lip_delta(&self, eps: Epsilon) -> Result<f64> {
        let eps = eps.get();
        let d = match &self.kind {
            Kind::Gaussian { .. } => self.gaussian_lip_delta(eps, f64::INFINITY)?,
            Kind::Laplace(l) => self.laplace_lip_delta(l, eps),
            Kind::Sampling { lambda, q, .. } => sampling_lip_delta(lambda.get(), &self.prior, q, eps),
        };
        Ok(d.clamp(0.0, 1.0))
    }

    /// Whether the LIP δ at ε exceeds `target` (a decision for calibration: for Gaussian
    /// noise it stops at the first point found above `target`, visiting the domain's
    /// ends first, where δ is largest in practice). Same bound as
    /// [`LatticeMechanism::lip_delta`].
    ///
    /// # Errors
    /// As [`LatticeMechanism::lip_delta`].
    pub fn lip_delta_exceeds(&self, eps: Epsilon, target: Delta) -> Result<bool> {
        let target = target.get();
        Ok(match &self.kind {
            Kind::Gaussian { .. } => self.gaussian_lip_delta(eps.get(), target)?.min(1.0) > target,
            _ => self.lip_delta(eps)? > target,
        })
    }

    /// The δ of (ε, δ)-LDP: `max_{k,k'} E_{e^ε}(P_{·|k} ‖ P_{·|k'})`, an upper bound; NaN
    /// when not computed (instance-dependent σ on more than 128 points).
    ///
    /// # Errors
    /// As [`LatticeMechanism::lip_delta`].
    pub fn ldp_delta(&self, eps: Epsilon) -> Result<f64> {
        let eps = eps.get();
        let n = self.lattice.len();
        let gam = libm::exp(eps);
        let d = match &self.kind {
            Kind::Gaussian { samplers, which } => {
                if n == 1 {
                    return Ok(0.0);
                }
                let tables = self.gaussian_tables()?;
                if samplers.len() == 1 {
                    e_shift(&tables[0], &tables[0], (n - 1) as i64, gam)
                } else if n > 128 {
                    f64::NAN
                } else {
                    let mut worst = 0.0f64;
                    for k in 0..n {
                        for k2 in 0..n {
                            if k != k2 {
                                let (a, b) = (&tables[which[k] as usize], &tables[which[k2] as usize]);
                                worst = worst.max(e_shift(a, b, k2 as i64 - k as i64, gam));
                            }
                        }
                    }
                    worst
                }
            }
            Kind::Laplace(l) => laplace_ldp_delta(l, (n - 1) as i64, eps),
            Kind::Sampling { lambda, q, .. } => {
                if n == 1 {
                    return Ok(0.0);
                }
                let qmin = q.iter().copied().fold(1.0, f64::min);
                let lambda = lambda.get();
                let v = lambda - (gam - 1.0) * (1.0 - lambda) * qmin;
                next_up(v.max(0.0) + 8.0 * U * (1.0 + gam))
            }
        };
        Ok(if d.is_nan() { d } else { d.clamp(0.0, 1.0) })
    }

    /// The pmf tables of the distinct Gaussian scales, once their sizes are known to be
    /// within [`MAX_AUDIT_WORK`] (work) and [`MAX_TABLE_ENTRIES`] (memory): both are
    /// checked from the widths alone, before any table is built.
    fn gaussian_tables(&self) -> Result<Vec<PmfTable>> {
        let Kind::Gaussian { samplers, .. } = &self.kind else { return Ok(Vec::new()) };
        let halves: Vec<usize> = samplers
            .iter()
            .map(|g| {
                let (num, den) = g.variance();
                half_width(num as f64 / den as f64)
            })
            .collect();
        let entries: f64 = halves.iter().map(|&h| (2 * h + 1) as f64).sum();
        if entries > MAX_TABLE_ENTRIES {
            return Err(Error::invalid(
                "mechanism.sigma",
                alloc::format!(
                    "the exact audit's tables of the {} distinct noise scales need {} entries (limit {}): use fewer \
                     distinct σ or a coarser step",
                    samplers.len(),
                    crate::numeric::Sci(entries),
                    crate::numeric::Sci(MAX_TABLE_ENTRIES)
                ),
            ));
        }
        let half = halves.iter().copied().max().unwrap_or(0);
        let work = self.lattice.len() as f64 * (2 * half + 1) as f64;
        if work > MAX_AUDIT_WORK {
            return Err(Error::invalid(
                "mechanism.sigma",
                alloc::format!(
                    "an exact audit needs {} operations (limit {}): use a coarser step",
                    crate::numeric::Sci(work),
                    crate::numeric::Sci(MAX_AUDIT_WORK)
                ),
            ));
        }
        samplers.iter().map(PmfTable::gaussian).collect()
    }

    /// The LIP δ; with a finite `stop`, returns as soon as some point exceeds it.
    fn gaussian_lip_delta(&self, eps: f64, stop: f64) -> Result<f64> {
        let Kind::Gaussian { which, .. } = &self.kind else { return Ok(f64::NAN) };
        let tables = self.gaussian_tables()?;
        let n = self.lattice.len();
        let tg = tables.iter().map(|t| t.half).max().unwrap_or(0) as i64;
        let width = n + 2 * tg as usize;
        // P(j) on the global window j ∈ [−T, n−1+T], stored at j + T.
        let mut py = vec![0.0f64; width];
        for (k, &p) in self.prior.iter().enumerate() {
            if p == 0.0 {
                continue;
            }
            let t = &tables[which[k] as usize];
            let start = (k as i64 + tg - t.half as i64) as usize;
            for (y, &v) in py[start..start + t.vals.len()].iter_mut().zip(&t.vals) {
                *y += p * v;
            }
        }
        let rel_pmf = tables.iter().map(|t| t.rel).fold(0.0, f64::max);
        let rel_py = rel_pmf + gamma(n + 2) + 2.0 * n as f64 * U;
        let tail = tables.iter().map(|t| t.tail).fold(0.0, f64::max);
        // prefix[i] = Σ_{i' < i} py[i'], suffix[i] = Σ_{i' ≥ i} py[i'] (positive terms:
        // relative error ≤ γ_width each).
        let (prefix, suffix) = crate::numeric::prefix_suffix_sums(&py);
        let gam = libm::exp(eps);
        let down = if eps == 0.0 { 1.0 } else { next_up(next_up(libm::exp(-eps))) };
        let mut worst = 0.0f64;
        // 0, n−1, 1, n−2, …: the ends first.
        for i in 0..n {
            let k = if i % 2 == 0 { i / 2 } else { n - 1 - i / 2 };
            if worst > stop {
                break;
            }
            let t = &tables[which[k] as usize];
            let start = (k as i64 + tg - t.half as i64) as usize;
            let m = t.vals.len();
            let (d1, d2) = positive_parts(&t.vals, &py[start..start + m], gam);
            let outside = prefix[start] + suffix[start + m];
            let sg = 1.0 + gamma(m + 4);
            let e1 = next_up(d1 * sg + rel_pmf + gam * rel_py * 1.01 + tail);
            let e2 = next_up(
                d2 * sg + outside * (1.0 + gamma(width + 4)) + rel_py * 1.01 + gam * rel_pmf + tail + outside * rel_py,
            );
            worst = worst.max(next_up(e1 * down)).max(e2);
        }
        Ok(worst)
    }

    /// Laplace: `P(j|k)/P(j) = e^{−|j−k|/τ}/S(j)`, `S(j) = Σ_k p_k e^{−|j−k|/τ}`; constant
    /// beyond the domain, so the extremes are at `j ∈ 0..n`.
    fn laplace_s(&self, l: &DiscreteLaplace) -> (Vec<f64>, Vec<f64>, f64, f64) {
        let n = self.lattice.len();
        let (t, s) = l.scale();
        let rate = s as f64 / t as f64; // 1/τ
        let e: Vec<f64> = (0..n).map(|m| libm::exp(-(m as f64) * rate)).collect();
        let sj: Vec<f64> =
            (0..n).map(|j| self.prior.iter().enumerate().map(|(k, &p)| p * e[j.abs_diff(k)]).sum()).collect();
        let max_arg = (n - 1) as f64 * rate;
        let rel = gamma(n + 8) + 8.0 * U * max_arg + 2.0 * n as f64 * U;
        (e, sj, rate, rel)
    }

    fn laplace_pure(&self, l: &DiscreteLaplace) -> (f64, f64) {
        let n = self.lattice.len();
        let (_, sj, rate, rel) = self.laplace_s(l);
        let mut lip = 0.0f64;
        for (j, &s) in sj.iter().enumerate() {
            // k = j: ratio 1/S(j) ≥ 1; the farthest k: e^{−far/τ}/S(j).
            lip = lip.max(abs_ln_up(1.0 / s, rel));
            let far = j.max(n - 1 - j) as f64 * rate;
            let lo_ln = -far - libm::log(s);
            if lo_ln < 0.0 {
                let v = -lo_ln;
                lip = lip.max(next_up(v + v * 8.0 * U + far * 4.0 * U - libm::log1p(-rel)));
            }
        }
        let ldp = next_up((n - 1) as f64 * rate * (1.0 + 4.0 * U));
        (lip, ldp)
    }

    fn laplace_lip_delta(&self, l: &DiscreteLaplace, eps: f64) -> f64 {
        let n = self.lattice.len();
        let (e, sj, rate, rel) = self.laplace_s(l);
        let gam = libm::exp(eps);
        // c = tanh(1/2τ) cancels in the ratios; P(j|k) = c·e^{−|j−k|/τ}, P(j) = c·S(j).
        let c = libm::tanh(0.5 * rate);
        // Σ_{j ≤ −1} e^{j/τ} times c = 1/(e^{1/τ} + 1) (both rays alike).
        let ray = 1.0 / (libm::exp(rate) + 1.0);
        let down = if eps == 0.0 { 1.0 } else { next_up(next_up(libm::exp(-eps))) };
        let mut worst = 0.0f64;
        for k in 0..n {
            let (mut d1, mut d2) = (0.0f64, 0.0f64);
            for j in 0..n {
                let (a, b) = (e[j.abs_diff(k)], sj[j]);
                d1 += (a - gam * b).max(0.0);
                d2 += (b - gam * a).max(0.0);
            }
            let (el, er) = (e[k], e[n - 1 - k]);
            let (sl, sr) = (sj[0], sj[n - 1]);
            let r1 = ray * ((el - gam * sl).max(0.0) + (er - gam * sr).max(0.0));
            let r2 = ray * ((sl - gam * el).max(0.0) + (sr - gam * er).max(0.0));
            let d1 = c * d1 + r1;
            let d2 = c * d2 + r2;
            let margin = (1.0 + gam) * (rel + gamma(n + 8)) * 1.01;
            let e1 = next_up(d1 * (1.0 + gamma(n + 8)) + margin);
            let e2 = next_up(d2 * (1.0 + gamma(n + 8)) + margin);
            worst = worst.max(next_up(e1 * down)).max(e2);
        }
        worst
    }
}

/// `(Σ_i (a_i − γb_i)₊, Σ_i (b_i − γa_i)₊)` with four accumulators per sum (so the
/// compiler can vectorise); still a sum of non-negative terms, so the error bound
/// `γ_{m}` of its caller holds whatever the order.
fn positive_parts(a: &[f64], b: &[f64], gam: f64) -> (f64, f64) {
    let mut s1 = [0.0f64; 4];
    let mut s2 = [0.0f64; 4];
    let (ca, cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for l in 0..4 {
            s1[l] += (x[l] - gam * y[l]).max(0.0);
            s2[l] += (y[l] - gam * x[l]).max(0.0);
        }
    }
    let (mut d1, mut d2) = ((s1[0] + s1[1]) + (s1[2] + s1[3]), (s2[0] + s2[1]) + (s2[2] + s2[3]));
    for (x, y) in ra.iter().zip(rb) {
        d1 += (x - gam * y).max(0.0);
        d2 += (y - gam * x).max(0.0);
    }
    (d1, d2)
}

/// `E_γ(P_a ‖ P_b(· − Δ))` for two noise tables, `P_a` centred at 0 and `P_b` at Δ,
/// summed over the support of `P_a`'s table plus its tail (upper bound).
fn e_shift(a: &PmfTable, b: &PmfTable, delta: i64, gam: f64) -> f64 {
    let mut d = 0.0f64;
    let h = a.half as i64;
    for z in -h..=h {
        d += (a.at(z) - gam * b.at(z - delta)).max(0.0);
    }
    next_up(d * (1.0 + gamma(a.vals.len() + 4)) + a.rel + gam * b.rel + a.tail)
}

/// `E_γ(Lap_0 ‖ Lap_Δ)` for the discrete Laplace in closed form: the ratio
/// `pmf(z)/pmf(z − Δ) = e^{(|z−Δ| − |z|)/τ}` is `> γ` exactly for `z ≤ m`,
/// `m = ⌈(Δ − ετ)/2⌉ − 1`, so `δ = F(m) − γF(m − Δ)` with the CDF
/// `F(m) = e^{m/τ}/(1 + e^{−1/τ})` for `m < 0`, `1 − e^{−(m+1)/τ}/(1 + e^{−1/τ})` for `m ≥ 0`.
fn laplace_ldp_delta(l: &DiscreteLaplace, delta: i64, eps: f64) -> f64 {
    if delta == 0 {
        return 0.0;
    }
    let (t, s) = l.scale();
    let rate = s as f64 / t as f64;
    let pure = next_up(delta as f64 * rate * (1.0 + 4.0 * U));
    if pure <= eps {
        return 0.0;
    }
    let tau = t as f64 / s as f64;
    let m = libm::ceil((delta as f64 - eps * tau) / 2.0) as i64 - 1;
    let z = 1.0 + libm::exp(-rate);
    let cdf = |m: i64| {
        if m < 0 {
            libm::exp(m as f64 * rate) / z
        } else {
            1.0 - libm::exp(-((m + 1) as f64) * rate) / z
        }
    };
    let gam = libm::exp(eps);
    let v = cdf(m) - gam * cdf(m - delta);
    let arg = (delta as f64 + 1.0) * rate + eps;
    next_up(v.max(0.0) + (1.0 + gam) * (16.0 * U * (1.0 + arg)))
}

fn sampling_pure(lambda: f64, p: &[f64], q: &[f64]) -> (f64, f64) {
    let n = p.len();
    if n == 1 {
        return (0.0, 0.0);
    }
    let rel = 8.0 * U;
    let mut lip = 0.0f64;
    for j in 0..n {
        let py = lambda * p[j] + (1.0 - lambda) * q[j];
        // k = j and k ≠ j.
        let own = lambda + (1.0 - lambda) * q[j];
        let other = (1.0 - lambda) * q[j];
        if py == 0.0 {
            if own > 0.0 {
                return (f64::INFINITY, f64::INFINITY);
            }
            continue;
        }
        lip = lip.max(abs_ln_up(own / py, rel));
        lip = lip.max(abs_ln_up(other / py, rel));
    }
    let qmin = q.iter().copied().fold(1.0, f64::min);
    let ldp = if lambda == 0.0 {
        0.0
    } else if qmin == 0.0 || lambda == 1.0 {
        f64::INFINITY
    } else {
        abs_ln_up(1.0 + lambda / ((1.0 - lambda) * qmin), rel)
    };
    (lip, ldp)
}

/// Sampling mechanism: `P(j|k) = λ1[j=k] + (1−λ)q_j`, `P(j) = λp_j + (1−λ)q_j`.
fn sampling_lip_delta(lambda: f64, p: &[f64], q: &[f64], eps: f64) -> f64 {
    let n = p.len();
    let gam = libm::exp(eps);
    let py: Vec<f64> = (0..n).map(|j| lambda * p[j] + (1.0 - lambda) * q[j]).collect();
    let a1: f64 = (0..n).map(|j| ((1.0 - lambda) * q[j] - gam * py[j]).max(0.0)).sum();
    let a2: f64 = (0..n).map(|j| (py[j] - gam * (1.0 - lambda) * q[j]).max(0.0)).sum();
    let down = if eps == 0.0 { 1.0 } else { next_up(next_up(libm::exp(-eps))) };
    let margin = (1.0 + gam) * (gamma(n + 8) * 4.0 + 16.0 * U);
    let mut worst = 0.0f64;
    for k in 0..n {
        let other = (1.0 - lambda) * q[k];
        let own = lambda + other;
        let d1 = a1 - (other - gam * py[k]).max(0.0) + (own - gam * py[k]).max(0.0);
        let d2 = a2 - (py[k] - gam * other).max(0.0) + (py[k] - gam * own).max(0.0);
        let e1 = next_up(d1.max(0.0) + margin);
        let e2 = next_up(d2.max(0.0) + margin);
        worst = worst.max(next_up(e1 * down)).max(e2);
    }
    worst
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::{ContinuousPrior, Gaussian};
    use crate::param::Probability;
    use crate::sample::lattice::Lattice;

    fn lat(lo: f64, hi: f64, step: f64) -> Lattice {
        Lattice::new(lo, hi, step).unwrap()
    }

    #[test]
    fn lattice_points_and_errors() {
        let l = lat(0.0, 1.0, 0.1);
        assert_eq!(l.len(), 11);
        assert_eq!(l.index_of(0.34).unwrap(), 3);
        assert_eq!(l.index_of(1.0).unwrap(), 10);
        assert_eq!(l.output_index(l.value(-3)).unwrap(), -3);
        assert!(l.output_index(0.05).is_err());
        assert_eq!(l.index_of(1.01).unwrap_err().code(), "unknown_value");
        assert_eq!(l.index_of(f64::NAN).unwrap_err().code(), "non_finite");
        assert_eq!(Lattice::new(0.0, 1.0, 1e-4).unwrap_err().code(), "too_many_symbols");
        assert_eq!(Lattice::new(1.0, 1.0, 0.1).unwrap_err().code(), "invalid_argument");
        assert_eq!(lat(0.0, 1.05, 0.1).len(), 11);
    }

    #[test]
    fn ldp_endpoints_are_the_worst_pair() {
        let l = lat(0.0, 2.0, 0.25);
        let p = ContinuousPrior::Gaussian(Gaussian::new(1.0, 0.7).unwrap()).lattice_pmf(&l).unwrap();
        for m in [
            LatticeMechanism::gaussian(l, p.clone(), &[0.6]).unwrap(),
            LatticeMechanism::laplace(l, p.clone(), 0.8).unwrap(),
            LatticeMechanism::sampling(l, p.clone(), Probability::new("lambda", 0.3).unwrap()).unwrap(),
        ] {
            for eps in [0.1, 0.5, 1.0, 2.0] {
                let gam = libm::exp(eps);
                let mut best = 0.0f64;
                for k in 0..l.len() {
                    for k2 in 0..l.len() {
                        let d: f64 = (-200..l.len() as i64 + 200)
                            .map(|j| (m.p_given(j, k) - gam * m.p_given(j, k2)).max(0.0))
                            .sum();
                        best = best.max(d);
                    }
                }
                let audited = m.ldp_delta(Epsilon::new("e", eps).unwrap()).unwrap();
                assert!(audited >= best && audited - best < 1e-9, "{eps}: {audited} vs {best}");
            }
        }
    }

    #[test]
    fn decision_agrees_with_the_full_audit() {
        let l = lat(-3.0, 3.0, 0.05);
        let p = ContinuousPrior::Gaussian(Gaussian::new(0.5, 1.0).unwrap()).lattice_pmf(&l).unwrap();
        for sigma in [[1.0].as_slice(), &[2.0], &[4.0]] {
            let m = LatticeMechanism::gaussian(l, p.clone(), sigma).unwrap();
            for eps in [0.3, 1.0, 2.5] {
                let d = m.lip_delta(Epsilon::new("e", eps).unwrap()).unwrap();
                for t in [d * 0.999, d * 1.001] {
                    assert_eq!(
                        m.lip_delta_exceeds(Epsilon::new("e", eps).unwrap(), Delta::new("t", t).unwrap()).unwrap(),
                        d > t,
                        "{sigma:?} {eps} {t}"
                    );
                }
            }
        }
    }
}
