//! Exact discrete Laplace and discrete Gaussian noise on ℤ (Canonne, Kamath, Steinke,
//! *The Discrete Gaussian for Differential Privacy*, NeurIPS 2020; "CKS" below), with
//! integer and rational arithmetic only.
//!
//! # Why not floating-point noise
//! `x + b·ln(U)` computed in doubles does not have the distribution its privacy proof
//! assumes: the set of doubles it can reach depends on `x`, so a released value can rule
//! some inputs out entirely (Mironov, *On Significance of the Least Significant Bits for
//! Differential Privacy*, CCS 2012). Here noise is an integer `Z` drawn *exactly* from
//!
//! * [`DiscreteLaplace`] with scale `τ = t/s`: `P(Z = z) = tanh(1/2τ)·e^{−|z|/τ}`;
//! * [`DiscreteGaussian`] with variance parameter `σ² = n/d`:
//!   `P(Z = z) = e^{−z²/2σ²} / Σ_k e^{−k²/2σ²}`;
//!
//! and a value on the lattice `γ·ℤ` is released as `γ·(k + Z)` where `k` is its lattice
//! index: the output is on the lattice for every input, and its distribution is exactly
//! the shifted pmf. The caller maps a real value to its index and a lattice index back
//! (`privlift::continuous` documents the rounding).
//!
//! # Algorithms (CKS §5)
//! * `Bernoulli(e^{−γ})` for rational `γ = num/den` (CKS Algorithm 1): for `γ ≤ 1`, draw
//!   `A_k ~ Bernoulli(γ/k)` for `k = 1, 2, …` until the first 0 and return whether that
//!   `k` is odd; for `γ > 1`, `⌊γ⌋` independent `Bernoulli(e^{−1})` (stopping at the first 0)
//!   and one `Bernoulli(e^{−(γ−⌊γ⌋)})`. `Bernoulli(a/b)` compares a uniform real, drawn bit
//!   by bit, with the binary expansion of `a/b` and stops at the first differing bit
//!   (exact, 2 random bits on average); uniform integers below `n` take `⌈log₂ n⌉` bits
//!   per rejection attempt. Random words are split into bits, so a draw of scale ~100
//!   consumes about one 64-bit word instead of about twelve (a bench pins the speed-up
//!   on the OS generator, whose bytes are the bottleneck).
//! * Discrete Laplace (CKS Algorithm 2), discrete Gaussian (CKS Algorithm 3, proposals
//!   from the discrete Laplace of scale `⌊σ⌋ + 1`). The Gaussian's acceptance exponent
//!   `(|Y|·d·t − n)²/(2·n·d·t²)` is formed exactly in 256-bit arithmetic when it exceeds
//!   128 bits (only for astronomically unlikely proposals).
//!
//! Every probability is therefore exactly the stated pmf, with one documented exception:
//! a draw whose magnitude would not fit an `i64` (probability below `e^{−2⁶²/τ}`, resp.
//! far smaller for the Gaussian) is rejected and redrawn, i.e. the output is conditioned on
//! `|Z| < 2⁶³`.
//!
//! # Timing
//! The samplers never see the input value: `perturb(k)` draws `Z` and then adds `k`. The
//! number of random words consumed and the work done depend only on the noise draw and
//! on the sampler's parameters, never on `k`. If a caller chooses the *parameters* from
//! the input (an instance-dependent scale, `privlift::continuous` Cor 10 / eq 26), the
//! running-time distribution depends on that scale and so, through it, on the input;
//! that channel is outside the local-privacy model (the adversary sees the released
//! value, not the device), as for the alias sampler's cache line (see `alias/mod.rs`).
//!
//! No floating-point operation is on the sampling path; `pmf` (for tests and audits) is
//! the only place that uses `f64`.

use rand::{CryptoRng, RngCore};

use crate::error::{Error, Result};

/// Largest parameter numerator/denominator accepted (so every product below fits).
pub const MAX_PARAM: u64 = 1 << 62;

/// Denominator used when a real parameter is rounded up to a rational (`k / 2²⁰`).
pub const ROUNDING_DENOMINATOR: u64 = 1 << 20;

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `⌈v · 2²⁰⌉ / 2²⁰` as a reduced fraction, for `v` in `(0, 2⁴⁰]`.
fn rational_up(name: &str, v: f64) -> Result<(u64, u64)> {
    if !v.is_finite() || v <= 0.0 || v > (1u64 << 40) as f64 {
        return Err(Error::invalid(
            name,
            alloc::format!("must be in (0, 2^40]; got {v}", v = crate::numeric::Shown(v)),
        ));
    }
    // Scaling by a power of two is exact; `ceil` is exact; the result is < 2^61.
    let k = libm::ceil(v * ROUNDING_DENOMINATOR as f64) as u64;
    let g = gcd(k as u128, ROUNDING_DENOMINATOR as u128) as u64;
    Ok((k / g, ROUNDING_DENOMINATOR / g))
}

// ---- sampling primitives: integers only (the test `no_float_on_sampling_path` reads
// ---- this file between the two markers) ----
// BEGIN INTEGER SAMPLING

/// Random bits drawn from `rng` one 64-bit word at a time and handed out a few at a
/// time, so that a Bernoulli trial costs about 2 bits instead of a word. Bits left in the
/// buffer when a draw ends are discarded (never reused for another draw).
struct Bits<'a, R: RngCore + ?Sized> {
    rng: &'a mut R,
    word: u64,
    left: u32,
}

impl<'a, R: RngCore + ?Sized> Bits<'a, R> {
    fn new(rng: &'a mut R) -> Self {
        Bits { rng, word: 0, left: 0 }
    }

    fn bit(&mut self) -> bool {
        if self.left == 0 {
            self.word = self.rng.next_u64();
            self.left = 64;
        }
        let b = self.word & 1 == 1;
        self.word >>= 1;
        self.left -= 1;
        b
    }

    /// `n ≤ 128` uniform bits.
    fn bits(&mut self, n: u32) -> u128 {
        if n < self.left {
            // The loop's one step when the buffer holds them (n < 64): its low n bits.
            let v = self.word & ((1u64 << n) - 1);
            self.word >>= n;
            self.left -= n;
            return v as u128;
        }
        let mut v: u128 = 0;
        let mut need = n;
        while need > 0 {
            if self.left == 0 {
                self.word = self.rng.next_u64();
                self.left = 64;
            }
            let take = need.min(self.left);
            let chunk = if take == 64 { self.word } else { self.word & ((1u64 << take) - 1) };
            v = (v << take) | chunk as u128;
            self.word = if take == 64 { 0 } else { self.word >> take };
            self.left -= take;
            need -= take;
        }
        v
    }
}

/// Uniform integer in `[0, n)`, `n ≥ 1`, by rejection on the smallest covering power of
/// two (`⌈log₂ n⌉` bits per attempt, fewer than 2 attempts on average).
fn uniform_below<R: RngCore + ?Sized>(n: u128, bits: &mut Bits<'_, R>) -> u128 {
    if n <= 1 {
        return 0;
    }
    let width = 128 - (n - 1).leading_zeros();
    loop {
        let v = bits.bits(width);
        if v < n {
            return v;
        }
    }
}

/// `Bernoulli(a/b)` for `a ≤ b`, `b ≥ 1`, exactly: compares a uniform real `U ∈ [0, 1)`,
/// generated bit by bit, with the binary expansion of `a/b` computed by long division, and
/// stops at the first differing bit (2 bits on average). `U < a/b` has probability `a/b`.
fn bernoulli_ratio<R: RngCore + ?Sized>(a: u128, b: u128, bits: &mut Bits<'_, R>) -> bool {
    if a >= b {
        return true;
    }
    if b <= u64::MAX as u128 {
        return bernoulli_ratio64(a as u64, b as u64, bits);
    }
    let mut r = a; // remainder: the expansion's tail is r/b
    loop {
        if r == 0 {
            // The expansion ended: U ≥ a/b from here on (U's tail is ≥ 0 = a/b's tail).
            return false;
        }
        // Next digit of a/b: 1 iff 2r ≥ b (written without overflowing u128).
        let digit = r >= b - r;
        r = if digit { r - (b - r) } else { r + r };
        let u = bits.bit();
        if u != digit {
            return digit; // U's digit 0 < 1: U < a/b; U's digit 1 > 0: U > a/b
        }
    }
}

/// [`bernoulli_ratio`] in 64-bit arithmetic (`a < b`): the same digits, cheaper.
fn bernoulli_ratio64<R: RngCore + ?Sized>(a: u64, b: u64, bits: &mut Bits<'_, R>) -> bool {
    let mut r = a;
    loop {
        if r == 0 {
            return false;
        }
        let digit = r >= b - r;
        r = if digit { r - (b - r) } else { r + r };
        if bits.bit() != digit {
            return digit;
        }
    }
}

/// `Bernoulli(num / (den·k))`, exactly, for `num ≤ den`, `k ≥ 1`.
fn bernoulli_over_k<R: RngCore + ?Sized>(num: u128, den: u128, k: u128, bits: &mut Bits<'_, R>) -> bool {
    // The same trial in 64-bit arithmetic where it fits, as a small scale's draws do.
    if let (Ok(num), Ok(den), Ok(k)) = (u64::try_from(num), u64::try_from(den), u64::try_from(k)) {
        if let Some(dk) = den.checked_mul(k) {
            return num >= dk || bernoulli_ratio64(num, dk, bits);
        }
    }
    match den.checked_mul(k) {
        Some(dk) => bernoulli_ratio(num, dk, bits),
        // Bernoulli(1/k) and Bernoulli(num/den), independent: product of probabilities.
        None => bernoulli_ratio(1, k, bits) && bernoulli_ratio(num, den, bits),
    }
}

/// `Bernoulli(e^{−num/den})` for `num ≤ den` (CKS Algorithm 1, first part).
fn bernoulli_exp_le1<R: RngCore + ?Sized>(num: u128, den: u128, rng: &mut Bits<'_, R>) -> bool {
    let mut k: u128 = 1;
    while bernoulli_over_k(num, den, k, rng) {
        k += 1;
    }
    k % 2 == 1
}

/// `Bernoulli(e^{−(q + r/den)})` with `q` a 256-bit integer `(hi, lo)` and `r < den`.
fn bernoulli_exp_parts<R: RngCore + ?Sized>(q: (u128, u128), r: u128, den: u128, rng: &mut Bits<'_, R>) -> bool {
    let mut i: u128 = 0;
    while q.0 > 0 || i < q.1 {
        if !bernoulli_exp_le1(1, 1, rng) {
            return false;
        }
        i += 1;
    }
    bernoulli_exp_le1(r, den, rng)
}

/// `Bernoulli(e^{−num/den})`, `den ≥ 1` (CKS Algorithm 1).
fn bernoulli_exp<R: RngCore + ?Sized>(num: u128, den: u128, rng: &mut Bits<'_, R>) -> bool {
    if num <= den {
        // The common case (CKS Algorithm 2's inner draws), without a 128-bit division.
        return bernoulli_exp_le1(num, den, rng);
    }
    let (q, r) = div_rem(num, den);
    bernoulli_exp_parts((0, q), r, den, rng)
}

/// `(a / b, a % b)`, `b ≥ 1`, in 64-bit arithmetic when both fit: a 128-bit division is a
/// library call, and the draws of a small scale divide small numbers.
fn div_rem(a: u128, b: u128) -> (u128, u128) {
    match (u64::try_from(a), u64::try_from(b)) {
        (Ok(a), Ok(b)) => ((a / b) as u128, (a % b) as u128),
        _ => (a / b, a % b),
    }
}

/// `a · b` as a 256-bit `(hi, lo)`.
fn mul_wide(a: u128, b: u128) -> (u128, u128) {
    const M: u128 = u64::MAX as u128;
    let (a1, a0, b1, b0) = (a >> 64, a & M, b >> 64, b & M);
    let (p00, p01, p10, p11) = (a0 * b0, a0 * b1, a1 * b0, a1 * b1);
    let mid = (p00 >> 64) + (p01 & M) + (p10 & M);
    let lo = (p00 & M) | (mid << 64);
    let hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
    (hi, lo)
}

/// `(hi, lo) = q·d + r` by long division, for `1 ≤ d < 2¹²⁷`.
fn divrem_wide(x: (u128, u128), d: u128) -> ((u128, u128), u128) {
    let (mut qh, mut ql, mut r) = (0u128, 0u128, 0u128);
    for i in (0..256u32).rev() {
        let bit = if i >= 128 { (x.0 >> (i - 128)) & 1 } else { (x.1 >> i) & 1 };
        r = (r << 1) | bit;
        qh = (qh << 1) | (ql >> 127);
        ql <<= 1;
        if r >= d {
            r -= d;
            ql |= 1;
        }
    }
    ((qh, ql), r)
}

/// `Bernoulli(e^{−m²/den})`, `den < 2¹²⁷`.
fn bernoulli_exp_square<R: RngCore + ?Sized>(m: u128, den: u128, rng: &mut Bits<'_, R>) -> bool {
    if m <= u64::MAX as u128 {
        bernoulli_exp(m * m, den, rng)
    } else {
        let (q, r) = divrem_wide(mul_wide(m, m), den);
        bernoulli_exp_parts(q, r, den, rng)
    }
}

/// CKS Algorithm 2: `P(Z = z) ∝ e^{−|z|·s/t}` (scale `t/s`), as an `i64`.
fn discrete_laplace<R: RngCore + ?Sized>(t: u64, s: u64, rng: &mut Bits<'_, R>) -> i64 {
    let (t, s) = (t as u128, s as u128);
    loop {
        let u = uniform_below(t, rng);
        if !bernoulli_exp(u, t, rng) {
            continue;
        }
        let mut v: u128 = 0;
        while bernoulli_exp_le1(1, 1, rng) {
            v += 1;
        }
        let Some(x) = v.checked_mul(t).and_then(|tv| tv.checked_add(u)) else { continue };
        let (y, _) = div_rem(x, s);
        let negative = rng.bit();
        if negative && y == 0 {
            continue;
        }
        if y > i64::MAX as u128 {
            continue; // conditioned on |Z| < 2^63 (see the module docs)
        }
        return if negative { -(y as i64) } else { y as i64 };
    }
}

/// CKS Algorithm 3 for `σ² = n/d`, proposals of scale `t` (any positive integer;
/// `⌊σ⌋ + 1` is CKS's efficient choice); `den = 2·n·d·t²`.
fn discrete_gaussian<R: RngCore + ?Sized>(n: u64, d: u64, t: u64, den: u128, rng: &mut Bits<'_, R>) -> i64 {
    let dt = d as u128 * t as u128; // < 2^64 (checked at construction)
    loop {
        let y = discrete_laplace(t, 1, rng);
        // |Y|·d·t < 2^63 · 2^64: no overflow.
        let a = y.unsigned_abs() as u128 * dt;
        let m = a.abs_diff(n as u128);
        if bernoulli_exp_square(m, den, rng) {
            return y;
        }
    }
}

// END INTEGER SAMPLING

/// Exact discrete Laplace noise on ℤ with scale `τ = t/s`: `P(Z = z) = tanh(1/2τ)·e^{−|z|/τ}`.
///
/// # Privacy
/// Adding `Z` to a lattice index `k` is `(Δ/τ)`-LDP for indices at most `Δ` apart (the
/// ratio of the pmfs at `z` and `z + Δ` is at most `e^{Δ/τ}`); as a Laplace mechanism
/// on the lattice `γℤ` with real scale `b = γτ` it gives the LIP of
/// `privlift::continuous::laplace` for the same `b` (the lift computation there uses
/// the continuous density; on the lattice, sums replace integrals and the same
/// breakpoint argument applies).
///
/// # Example
/// ```
/// use privlift::sample::discrete::DiscreteLaplace;
/// let lap = DiscreteLaplace::new(3, 2)?; // scale 1.5 lattice steps
/// let mut rng = privlift::rng::DeterministicRngForTesting::seed_from_u64(1);
/// let y = lap.perturb(40, &mut rng)?;   // 40 + Z, an integer
/// # let _ = y;
/// # Ok::<(), privlift::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiscreteLaplace {
    t: u64,
    s: u64,
}

impl DiscreteLaplace {
    /// Scale `t/s` lattice steps (reduced).
    ///
    /// # Errors
    /// `invalid_argument` if `t` or `s` is 0 or above [`MAX_PARAM`].
    pub fn new(t: u64, s: u64) -> Result<Self> {
        if t == 0 || s == 0 || t > MAX_PARAM || s > MAX_PARAM {
            return Err(Error::invalid("scale", alloc::format!("t/s needs 1 <= t, s <= 2^62; got {t}/{s}")));
        }
        let g = gcd(t as u128, s as u128) as u64;
        Ok(DiscreteLaplace { t: t / g, s: s / g })
    }

    /// The scale `scale` (in lattice steps) rounded **up** to a multiple of 2⁻²⁰: a larger
    /// scale is more noise, so every privacy bound computed for `scale` still holds.
    ///
    /// # Errors
    /// `invalid_argument` unless `0 < scale ≤ 2⁴⁰`.
    pub fn with_scale_at_least(scale: f64) -> Result<Self> {
        let (t, s) = rational_up("scale", scale)?;
        Self::new(t, s)
    }

    /// The exact scale as `(t, s)`: `τ = t/s`.
    pub fn scale(&self) -> (u64, u64) {
        (self.t, self.s)
    }

    /// `P(Z = z)` in `f64` (for tests and audits; not used to sample).
    pub fn pmf(&self, z: i64) -> f64 {
        let tau = self.t as f64 / self.s as f64;
        libm::tanh(0.5 / tau) * libm::exp(-(z.unsigned_abs() as f64) / tau)
    }

    /// One noise draw `Z`.
    pub fn sample<R: RngCore + CryptoRng + ?Sized>(&self, rng: &mut R) -> i64 {
        discrete_laplace(self.t, self.s, &mut Bits::new(rng))
    }

    /// `k + Z` (the noise is drawn first, independently of `k`).
    ///
    /// # Errors
    /// `invalid_argument` if `k + Z` overflows `i64` (only for `|k|` near 2⁶³).
    pub fn perturb<R: RngCore + CryptoRng + ?Sized>(&self, k: i64, rng: &mut R) -> Result<i64> {
        let z = self.sample(rng);
        k.checked_add(z).ok_or_else(|| Error::invalid("k", "k + noise overflows i64"))
    }
}

/// Exact discrete Gaussian noise on ℤ with `σ² = n/d`:
/// `P(Z = z) = e^{−z²/2σ²} / Σ_k e^{−k²/2σ²}` (CKS Algorithm 3).
///
/// # Privacy
/// CKS Thm 4/7: for indices `Δ` apart it is `(Δ²/2σ²)`-concentrated DP and
/// `(ε, δ)`-DP with δ no larger than for the continuous Gaussian of the same σ (up to a
/// negligible term). The context-aware δ of `privlift::continuous::gaussian` is computed
/// for *continuous* noise; on a lattice much finer than σ the two agree closely, but the
/// lattice mechanism's own δ is not what that module reports.
///
/// # Example
/// ```
/// use privlift::sample::discrete::DiscreteGaussian;
/// let g = DiscreteGaussian::new(9, 4)?; // σ² = 2.25 lattice steps²
/// let mut rng = privlift::rng::DeterministicRngForTesting::seed_from_u64(1);
/// let y = g.perturb(-7, &mut rng)?;
/// # let _ = y;
/// # Ok::<(), privlift::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiscreteGaussian {
    n: u64,
    d: u64,
    t: u64,
    den: u128,
}

impl DiscreteGaussian {
    /// `σ² = n/d` (reduced).
    ///
    /// # Errors
    /// `invalid_argument` if `n` or `d` is 0 or above [`MAX_PARAM`], or if the exact
    /// acceptance test would need more than 127 bits (`2·n·d·t² ≥ 2¹²⁷` or `d·t ≥ 2⁶⁴`,
    /// `t = ⌊σ⌋ + 1`); rounding with [`DiscreteGaussian::with_variance_at_least`] always fits for
    /// `σ² ≤ 2⁴⁰`.
    pub fn new(n: u64, d: u64) -> Result<Self> {
        if n == 0 || d == 0 || n > MAX_PARAM || d > MAX_PARAM {
            return Err(Error::invalid("sigma2", alloc::format!("n/d needs 1 <= n, d <= 2^62; got {n}/{d}")));
        }
        let g = gcd(n as u128, d as u128) as u64;
        let (n, d) = (n / g, d / g);
        let t = isqrt(n / d) + 1; // ⌊√(n/d)⌋ = ⌊√⌊n/d⌋⌋
        let too_big = || Error::invalid("sigma2", alloc::format!("{n}/{d} is too large for exact 127-bit arithmetic"));
        let dt = (d as u128).checked_mul(t as u128).filter(|&v| v <= u64::MAX as u128).ok_or_else(too_big)?;
        let den = (2 * n as u128)
            .checked_mul(dt)
            .and_then(|v| v.checked_mul(t as u128))
            .filter(|&v| v < 1u128 << 127)
            .ok_or_else(too_big)?;
        Ok(DiscreteGaussian { n, d, t, den })
    }

    /// `σ²` (in lattice steps²) rounded **up** to a multiple of 2⁻²⁰.
    ///
    /// # Errors
    /// `invalid_argument` unless `0 < sigma2 ≤ 2⁴⁰`.
    pub fn with_variance_at_least(sigma2: f64) -> Result<Self> {
        let (n, d) = rational_up("sigma2", sigma2)?;
        Self::new(n, d)
    }

    /// The exact `σ² = n/d` as `(n, d)`.
    pub fn variance(&self) -> (u64, u64) {
        (self.n, self.d)
    }

    /// `P(Z = z)` in `f64` (for tests and audits; not used to sample).
    pub fn pmf(&self, z: i64) -> f64 {
        let s2 = self.n as f64 / self.d as f64;
        let w = |k: f64| libm::exp(-k * k / (2.0 * s2));
        let reach = (libm::sqrt(s2) * 40.0) as i64 + 2;
        let norm: f64 = 1.0 + 2.0 * (1..=reach).map(|k| w(k as f64)).sum::<f64>();
        w(z as f64) / norm
    }

    /// One noise draw `Z`.
    pub fn sample<R: RngCore + CryptoRng + ?Sized>(&self, rng: &mut R) -> i64 {
        discrete_gaussian(self.n, self.d, self.t, self.den, &mut Bits::new(rng))
    }

    /// `k + Z` (the noise is drawn first, independently of `k`).
    ///
    /// # Errors
    /// `invalid_argument` if `k + Z` overflows `i64`.
    pub fn perturb<R: RngCore + CryptoRng + ?Sized>(&self, k: i64, rng: &mut R) -> Result<i64> {
        let z = self.sample(rng);
        k.checked_add(z).ok_or_else(|| Error::invalid("k", "k + noise overflows i64"))
    }
}

/// `⌊√v⌋` for `u64`, exactly.
fn isqrt(v: u64) -> u64 {
    if v < 2 {
        return v;
    }
    let mut x = libm::sqrt(v as f64) as u64; // close; then fix up exactly
    while (x as u128) * (x as u128) > v as u128 {
        x -= 1;
    }
    while ((x + 1) as u128) * ((x + 1) as u128) <= v as u128 {
        x += 1;
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::DeterministicRngForTesting;

    #[test]
    fn wide_arithmetic_is_exact() {
        let a = u128::MAX;
        let (hi, lo) = mul_wide(a, a);
        // (2^128 − 1)² = 2^256 − 2^129 + 1
        assert_eq!((hi, lo), (u128::MAX - 1, 1));
        // x = 2^100 · (3·2^90 + 5) divided by 7: q·7 + r == x.
        let x = mul_wide(1u128 << 100, (3 << 90) + 5);
        let (q, r) = divrem_wide(x, 7);
        let back = mul_wide(q.1, 7);
        let q_hi_part = mul_wide(q.0, 7); // q.0 · 7 · 2^128
        let (lo, carry) = back.1.overflowing_add(r);
        assert_eq!((back.0 + q_hi_part.1 + carry as u128, lo), x);
        let exact = 3u128 << 63; // 2^100·3·2^90 / 2^127
        let (q2, r2) = divrem_wide(mul_wide(1u128 << 100, 3 << 90), 1 << 127);
        assert_eq!((q2, r2), ((0, exact), 0));
    }

    #[test]
    fn isqrt_exact() {
        for v in [0u64, 1, 2, 3, 4, 15, 16, 17, u64::MAX, (1 << 62) + 5] {
            let r = isqrt(v) as u128;
            assert!(r * r <= v as u128 && (r + 1) * (r + 1) > v as u128, "{v}");
        }
    }

    #[test]
    fn bernoulli_exp_frequencies() {
        let mut rng = DeterministicRngForTesting::seed_from_u64(3);
        let mut rng = Bits::new(&mut rng);
        for (num, den) in [(0u128, 1u128), (1, 2), (1, 1), (5, 2), (7, 3)] {
            let n = 200_000;
            let hits = (0..n).filter(|_| bernoulli_exp(num, den, &mut rng)).count() as f64;
            let p = libm::exp(-(num as f64) / den as f64);
            let sd = (p * (1.0 - p) / n as f64).sqrt().max(1e-9);
            assert!((hits / n as f64 - p).abs() < 6.0 * sd, "{num}/{den}: {} vs {p}", hits / n as f64);
        }
        // Huge exponents are handled exactly and (almost surely) reject at once.
        assert!(!bernoulli_exp_square(u128::MAX >> 1, 3, &mut rng));
    }

    /// `bernoulli_ratio` and `uniform_below` against their probabilities, including
    /// denominators near 2¹²⁸ (where `2r` would overflow) and terminating expansions.
    #[test]
    fn bit_level_primitives_are_exact() {
        let mut rng = DeterministicRngForTesting::seed_from_u64(4);
        let mut bits = Bits::new(&mut rng);
        let n = 400_000;
        let big = u128::MAX - 6;
        for (a, b) in
            [(1u128, 2u128), (1, 3), (2, 3), (3, 8), (0, 5), (5, 5), (1, 1000), (big / 3, big), (big - 1, big)]
        {
            let p = a as f64 / b as f64;
            let hits = (0..n).filter(|_| bernoulli_ratio(a, b, &mut bits)).count() as f64;
            let sd = (p * (1.0 - p) / n as f64).sqrt().max(1e-9);
            assert!((hits / n as f64 - p).abs() < 6.0 * sd, "{a}/{b}: {} vs {p}", hits / n as f64);
        }
        for m in [1u128, 2, 3, 7, 100, 1 << 70] {
            let draws: Vec<u128> = (0..30_000).map(|_| uniform_below(m, &mut bits)).collect();
            assert!(draws.iter().all(|&v| v < m));
            let mean = draws.iter().map(|&v| v as f64).sum::<f64>() / draws.len() as f64;
            let (mu, sd) = ((m as f64 - 1.0) / 2.0, ((m as f64 * m as f64 - 1.0) / 12.0 / 30_000.0).sqrt());
            assert!((mean - mu).abs() <= 6.0 * sd + 1e-12, "m = {m}: mean {mean} vs {mu}");
        }
        // Bits are handed out in order without loss: 64 single bits rebuild the word.
        let mut words = DeterministicRngForTesting::seed_from_u64(5);
        let w = words.next_u64();
        let mut again = DeterministicRngForTesting::seed_from_u64(5);
        let mut b = Bits::new(&mut again);
        let rebuilt = (0..64).fold(0u64, |acc, i| acc | (u64::from(b.bit()) << i));
        assert_eq!(rebuilt, w);
    }

    #[test]
    fn the_64_bit_shortcuts_draw_what_the_128_bit_arithmetic_draws() {
        // a/b and a·2⁶⁴/(b·2⁶⁴) have the same binary expansion, so `bernoulli_ratio`'s
        // 128-bit loop reads the same bits and answers the same as the 64-bit trial.
        let max = u64::MAX as u128;
        for seed in 0..200 {
            for (num, den, k) in
                [(1, 1, 1), (1, 1, 3), (57, 101, 1), (57, 101, 4), (0, 7, 2), (7, 7, 1), (max / 3, max / 2, 1)]
            {
                let (mut r64, mut r128) =
                    (DeterministicRngForTesting::seed_from_u64(seed), DeterministicRngForTesting::seed_from_u64(seed));
                let (mut b64, mut b128) = (Bits::new(&mut r64), Bits::new(&mut r128));
                let short = bernoulli_over_k(num, den, k, &mut b64);
                let wide = bernoulli_ratio(num << 64, (den * k) << 64, &mut b128);
                assert_eq!(short, wide, "{num}/({den}·{k}), seed {seed}");
                assert_eq!(
                    (b64.word, b64.left),
                    (b128.word, b128.left),
                    "{num}/({den}·{k}), seed {seed}: the bits read"
                );
            }
        }
        for (a, b) in [(0, 1), (5, 3), (max, 7), (max + 1, 7), (max, max + 1), (1 << 100, 3), (1 << 100, 1 << 70)] {
            assert_eq!(div_rem(a, b), (a / b, a % b), "{a} / {b}");
        }
    }

    #[test]
    fn rejects_bad_parameters() {
        assert!(DiscreteLaplace::new(0, 1).is_err());
        assert!(DiscreteLaplace::new(1, 0).is_err());
        assert!(DiscreteGaussian::new(0, 1).is_err());
        assert!(DiscreteGaussian::new(MAX_PARAM + 1, 1).is_err());
        assert!(DiscreteGaussian::new(MAX_PARAM, 1).is_ok());
        assert!(DiscreteLaplace::with_scale_at_least(f64::NAN).is_err());
        assert!(DiscreteGaussian::with_variance_at_least(-1.0).is_err());
        assert!(DiscreteGaussian::with_variance_at_least((1u64 << 40) as f64).is_ok());
        assert_eq!(DiscreteLaplace::with_scale_at_least(1.5).unwrap().scale(), (3, 2));
        assert_eq!(DiscreteLaplace::new(6, 4).unwrap().scale(), (3, 2));
        let up = DiscreteGaussian::with_variance_at_least(0.1).unwrap().variance();
        assert!(up.0 as f64 / up.1 as f64 >= 0.1);
    }
}
