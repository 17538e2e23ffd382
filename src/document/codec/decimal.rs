//! Exact decimal → binary64 conversion for the document reader: a JSON number's text to
//! the f64 nearest to its value (ties to even), or to the integer it names, with the
//! kinds and limits serde_json gives it (a `u64` integer, a negative `i64` one, else a
//! float; ±∞ refused, underflow to ±0).
//!
//! The reader's numbers are the document's probabilities, so an error in the last bit is
//! an error in the audited channel. serde_json's number reader (exact, with
//! `float_roundtrip`) rounds the same way, but carries tables of powers of five that every
//! wasm client would download; this module has none. Three paths, each exact:
//!
//! 1. **Clinger's fast path**: at most 2⁵³ in the digits and |e| ≤ 22, so the digits and
//!    10^|e| are exact f64s and one IEEE multiplication or division rounds once.
//! 2. **128-bit arithmetic**, for up to 19 significant digits D and a value D·10^e: for
//!    e ≥ 0, D·10^e exactly while it fits 128 bits; for e = −k, k ≤ 31, the f64 quotient
//!    c = D / 10^k is within a few ulps, and the exact comparisons of the value with the
//!    midpoints around c (integers below 2^128, no division) move c to the nearest.
//! 3. **Big integers** for the rest (more digits, larger exponents): the quotient
//!    ⌊D·2^s / 10^k⌋ by long division of the exact integers, rounded with a sticky bit
//!    (`assemble`). Digits past the 800th only decide ties, so they are kept as one
//!    sticky digit.
//!
//! `tests/decimal.rs` compares every path with serde_json's reader on millions of
//! strings: random doubles in shortest and long forms, exact halfway points and their
//! neighbours, subnormals, the limits of the integer kinds and of the exponent range.

use alloc::vec::Vec;

/// A JSON number read from its text: as [`serde_json::Number`] classifies it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    /// An integer without fraction or exponent that fits u64.
    U64(u64),
    /// A negative integer without fraction or exponent that fits i64.
    I64(i64),
    /// Everything else, rounded to the nearest f64.
    F64(f64),
}

/// Significant digits kept exactly; beyond them a non-zero digit only breaks a tie. The
/// exact decimal expansion of a binary64 halfway point has at most 767 significant
/// digits, so 800 decide every rounding.
const MAX_DIGITS: usize = 800;

/// Reads a number from text of the JSON grammar `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`
/// (the caller checked it). `None` when the value is beyond the f64 range (±∞).
pub fn parse(text: &[u8]) -> Option<Num> {
    let negative = text.first() == Some(&b'-');
    let body = &text[negative as usize..];
    let int_end = body.iter().position(|b| !b.is_ascii_digit()).unwrap_or(body.len());
    let (int, rest) = body.split_at(int_end);
    if rest.is_empty() {
        if let Some(n) = integer(int, negative) {
            return Some(n);
        }
    }
    let (frac, exp_text) = match rest.first() {
        Some(b'.') => {
            let f = &rest[1..];
            let end = f.iter().position(|b| !b.is_ascii_digit()).unwrap_or(f.len());
            (&f[..end], &f[end..])
        }
        _ => (&rest[..0], rest),
    };
    let exp = exponent(exp_text);
    float(int, frac, exp, negative).map(Num::F64)
}

/// An integer's kind: u64, or a negative i64; `None` when it is a float for serde_json
/// (too large, or `-0`).
fn integer(digits: &[u8], negative: bool) -> Option<Num> {
    let mut v: u64 = 0;
    for &d in digits {
        v = v.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
    }
    if !negative {
        return Some(Num::U64(v));
    }
    let neg = (v as i64).wrapping_neg();
    (neg < 0).then_some(Num::I64(neg))
}

/// The exponent after `e`/`E` (empty text: 0), saturated far beyond any f64's range.
fn exponent(text: &[u8]) -> i64 {
    let Some(rest) = text.get(1..) else { return 0 };
    let (negative, digits) = match rest.first() {
        Some(b'-') => (true, &rest[1..]),
        Some(b'+') => (false, &rest[1..]),
        _ => (false, rest),
    };
    let mut e: i64 = 0;
    for &d in digits {
        e = (e * 10 + i64::from(d - b'0')).min(1 << 40);
    }
    if negative {
        -e
    } else {
        e
    }
}

/// The nearest f64 to ±(the digits `int frac` as an integer) · 10^(exp − |frac|).
fn float(int: &[u8], frac: &[u8], exp: i64, negative: bool) -> Option<f64> {
    let sign = |v: f64| if negative { -v } else { v };
    // Up to 19 significant digits in a u64, without allocating: leading zeros skipped,
    // a run of zeros held back until a non-zero digit follows (trailing zeros go to e).
    let (mut d, mut count, mut zeros, mut started) = (0u64, 0usize, 0usize, false);
    for &c in int.iter().chain(frac) {
        let v = u64::from(c - b'0');
        if v == 0 {
            zeros += started as usize;
            continue;
        }
        started = true;
        count += zeros + 1;
        if count > 19 {
            return many(int, frac, exp).map(sign);
        }
        d = d * POW10_U64[zeros + 1] + v;
        zeros = 0;
    }
    if d == 0 {
        return Some(sign(0.0));
    }
    let e = exp - frac.len() as i64 + zeros as i64;
    if let Some(v) = range(count as i64, e) {
        return v.map(sign);
    }
    let e = e as i32;
    if d <= 1 << 53 && (-22..=22).contains(&e) {
        let p = POW10[e.unsigned_abs() as usize];
        return Some(sign(if e < 0 { d as f64 / p } else { d as f64 * p }));
    }
    match wide(d, e) {
        Some(v) => v.map(sign),
        None => many(int, frac, exp).map(sign),
    }
}

/// The value's range from its n significant digits and exponent e (value = D · 10^e,
/// 10^(n−1+e) ≤ value < 10^(n+e)): `Some(Some(0))` below the least subnormal (≈ 4.9e-324)
/// when n + e ≤ −324, `Some(None)` above f64::MAX when n + e − 1 > 308, else `None`.
fn range(n: i64, e: i64) -> Option<Option<f64>> {
    if n + e <= -324 {
        Some(Some(0.0))
    } else if n + e - 1 > 308 {
        Some(None)
    } else {
        None
    }
}

/// The general path for any number of digits: exact big integers ([`big`]).
fn many(int: &[u8], frac: &[u8], exp: i64) -> Option<f64> {
    let mut digits: Vec<u8> = Vec::new();
    let mut sticky = false;
    let mut e = exp - frac.len() as i64;
    for d in int.iter().chain(frac).copied().skip_while(|&d| d == b'0') {
        if digits.len() < MAX_DIGITS {
            digits.push(d - b'0');
        } else {
            sticky |= d != b'0';
            e += 1;
        }
    }
    if sticky {
        // A digit just below the kept ones: it breaks ties, and nothing else (appended
        // before any trailing zero is dropped, or it would stand for more than it does).
        digits.push(1);
        e -= 1;
    } else {
        while digits.last() == Some(&0) {
            digits.pop();
            e += 1;
        }
    }
    if digits.is_empty() {
        return Some(0.0);
    }
    if let Some(v) = range(digits.len() as i64, e) {
        return v;
    }
    big(&digits, e as i32)
}

/// 10^0 … 10^22, each exact in f64.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
    1e21, 1e22,
];

/// 10^0 … 10^19.
const POW10_U64: [u64; 20] = {
    let mut p = [1u64; 20];
    let mut i = 1;
    while i < 20 {
        p[i] = p[i - 1] * 10;
        i += 1;
    }
    p
};

/// Largest −e of [`wide`]: (2M + 1)·5^k stays below 2^128 (54 + 2.33·31 < 127 bits).
const WIDE_K: u32 = 31;

/// d·10^e in 128-bit arithmetic (path 2), without a division; `None` if out of its
/// range, `Some(None)` past f64::MAX.
///
/// e ≥ 0: d·10^e exactly, while it fits 128 bits. e = −k < 0, k ≤ [`WIDE_K`]: the f64
/// quotient c = d / 10^k is within a few ulps of the value v; v is then compared exactly
/// with the midpoints between c and its neighbours (v ≷ (2M + 1)·2^(E−1) iff
/// d ≷ (2M + 1)·5^k·2^(E−1+k), integers of at most 127 bits), and c moves towards v until
/// both midpoints enclose it (a tie goes to the even mantissa).
fn wide(d: u64, e: i32) -> Option<Option<f64>> {
    if e >= 0 {
        let p = 10u128.checked_pow(e as u32)?;
        let q = u128::from(d).checked_mul(p)?;
        return Some(assemble(q, false, 0));
    }
    let k = e.unsigned_abs();
    if k > WIDE_K {
        return None;
    }
    let five = 5u128.pow(k);
    // c: at most two roundings of 10^k (exact up to 10^22) and one of d, each ½ ulp.
    let mut c = if k <= 22 { d as f64 / POW10[k as usize] } else { d as f64 / 1e22 / POW10[k as usize - 22] };
    // v ≷ m·2^x, for the midpoint m·2^x (m odd).
    let compare = |m: u64, x: i32| {
        let (left, right) = (u128::from(d), u128::from(m) * five);
        let shift = x + k as i32;
        // A side shifted past 128 bits is the larger: the other is below 2^127.
        if shift >= 0 {
            match right.leading_zeros() > shift as u32 {
                true => left.cmp(&(right << shift)),
                false => core::cmp::Ordering::Less,
            }
        } else {
            match left.leading_zeros() > shift.unsigned_abs() {
                true => (left << shift.unsigned_abs()).cmp(&right),
                false => core::cmp::Ordering::Greater,
            }
        }
    };
    for _ in 0..8 {
        let bits = c.to_bits();
        let (m, x) = ((bits & ((1 << 52) - 1)) | 1 << 52, (bits >> 52) as i32 - 1075);
        // The midpoint with the next double up, and with the next down (one binade lower
        // when c is a power of two).
        match compare(2 * m + 1, x - 1) {
            core::cmp::Ordering::Greater => {
                c = f64::from_bits(bits + 1);
                continue;
            }
            core::cmp::Ordering::Equal => return Some(Some(if m & 1 == 0 { c } else { f64::from_bits(bits + 1) })),
            core::cmp::Ordering::Less => {}
        }
        let below = if m == 1 << 52 { compare((1 << 54) - 1, x - 2) } else { compare(2 * m - 1, x - 1) };
        match below {
            core::cmp::Ordering::Less => c = f64::from_bits(bits - 1),
            core::cmp::Ordering::Equal => return Some(Some(if m & 1 == 0 { c } else { f64::from_bits(bits - 1) })),
            core::cmp::Ordering::Greater => return Some(Some(c)),
        }
    }
    None
}

/// The f64 nearest to (q + ρ)·2^(−s), where 0 < ρ < 1 iff `sticky` (ties to even,
/// subnormals rounded once at their own precision); `None` past f64::MAX. With `sticky`,
/// q must have at least 55 bits, so that ρ lies below the rounding bit.
fn assemble(q: u128, sticky: bool, s: i32) -> Option<f64> {
    if q == 0 {
        return Some(0.0);
    }
    let bits = 128 - q.leading_zeros() as i32;
    // The leading bit's exponent, and the bits of precision it leaves (53 if normal).
    let top = bits - 1 - s;
    if top > 1023 {
        return None;
    }
    let precision = if top >= -1022 { 53 } else { 53 - (-1022 - top) };
    if precision <= 0 {
        // Below half the least subnormal, or exactly half (a tie to the even 0) unless
        // something lies above it.
        let above_half = precision == 0 && (q.count_ones() > 1 || sticky);
        return Some(if above_half { f64::from_bits(1) } else { 0.0 });
    }
    let drop = bits - precision;
    let (mut mant, round_up) = if drop > 0 {
        let mant = (q >> drop) as u64;
        let rest = q & ((1u128 << drop) - 1);
        let half = 1u128 << (drop - 1);
        (mant, rest > half || (rest == half && (sticky || mant & 1 == 1)))
    } else {
        // Fewer bits than the precision: exact (no sticky then, by the contract).
        ((q << -drop) as u64, false)
    };
    let mut top = top;
    if round_up {
        mant += 1;
        // A carry out of a normal's 53 bits moves the exponent; a subnormal's carry is
        // already right as bits (mant · 2^−1074, up to the least normal 2^52 · 2^−1074).
        if top >= -1022 && mant >> 53 == 1 {
            mant >>= 1;
            top += 1;
            if top > 1023 {
                return None;
            }
        }
    }
    Some(if top >= -1022 {
        f64::from_bits(((top + 1023) as u64) << 52 | (mant & ((1 << 52) - 1)))
    } else {
        // A subnormal: mant · 2^−1074 (a carry into 2^52 is the least normal, as bits).
        f64::from_bits(mant)
    })
}

/// The general path: digits·10^e by exact big integers; `None` past f64::MAX.
fn big(digits: &[u8], e: i32) -> Option<f64> {
    let mut num = Big::from_digits(digits);
    let mut den = Big::one();
    if e >= 0 {
        num.mul_pow10(e as u32);
    } else {
        den.mul_pow10(e.unsigned_abs());
    }
    // Q = ⌊num·2^s / den⌋ with 2^56 ≤ Q < 2^58: s from the bit lengths.
    let s = 57 - (num.bits() as i32 - den.bits() as i32);
    if s >= 0 {
        num.shl(s as u32);
    } else {
        den.shl(s.unsigned_abs());
    }
    // Long division, one quotient bit at a time from 2^58 down.
    let mut q: u128 = 0;
    let mut shifted = den.clone();
    shifted.shl(58);
    for bit in (0..=58).rev() {
        if num.cmp(&shifted) != core::cmp::Ordering::Less {
            num.sub(&shifted);
            q |= 1 << bit;
        }
        shifted.shr1();
    }
    assemble(q, !num.is_zero(), s)
}

/// A non-negative big integer: 32-bit limbs, least significant first, no leading zero
/// limb.
#[derive(Clone)]
struct Big(Vec<u32>);

impl Big {
    fn one() -> Self {
        Big(alloc::vec![1])
    }

    fn from_digits(digits: &[u8]) -> Self {
        let mut b = Big(Vec::new());
        for chunk in digits.chunks(9) {
            let v = chunk.iter().fold(0u32, |v, &d| v * 10 + u32::from(d));
            b.mul_add(10u32.pow(chunk.len() as u32), v);
        }
        b
    }

    /// self = self·m + a.
    fn mul_add(&mut self, m: u32, a: u32) {
        let mut carry = u64::from(a);
        for limb in &mut self.0 {
            let v = u64::from(*limb) * u64::from(m) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry != 0 {
            self.0.push(carry as u32);
        }
    }

    fn mul_pow10(&mut self, mut k: u32) {
        while k > 0 {
            let step = k.min(9);
            self.mul_add(10u32.pow(step), 0);
            k -= step;
        }
    }

    fn bits(&self) -> u32 {
        self.0.last().map_or(0, |top| 32 * self.0.len() as u32 - top.leading_zeros())
    }

    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    fn shl(&mut self, n: u32) {
        let (limbs, bits) = ((n / 32) as usize, n % 32);
        if bits > 0 {
            let mut carry = 0u32;
            for limb in &mut self.0 {
                let v = *limb;
                *limb = v << bits | carry;
                carry = v >> (32 - bits);
            }
            if carry != 0 {
                self.0.push(carry);
            }
        }
        if !self.0.is_empty() {
            self.0.splice(0..0, core::iter::repeat_n(0, limbs));
        }
    }

    fn shr1(&mut self) {
        let mut carry = 0u32;
        for limb in self.0.iter_mut().rev() {
            let v = *limb;
            *limb = v >> 1 | carry << 31;
            carry = v & 1;
        }
        self.trim();
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn cmp(&self, other: &Big) -> core::cmp::Ordering {
        self.0.len().cmp(&other.0.len()).then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }

    /// self −= other (other ≤ self).
    fn sub(&mut self, other: &Big) {
        let mut borrow = 0i64;
        for (i, limb) in self.0.iter_mut().enumerate() {
            let v = i64::from(*limb) - i64::from(other.0.get(i).copied().unwrap_or(0)) - borrow;
            borrow = (v < 0) as i64;
            *limb = v.rem_euclid(1 << 32) as u32;
        }
        self.trim();
    }
}
