//! The document reader's number conversion (`privlift::document::codec::decimal`) against
//! serde_json's reader (with `float_roundtrip`, exact): the same kind (u64, i64, float),
//! the same bits, the same refusals, on every kind of number text a document can hold.
//!
//! - random doubles of every exponent (subnormals included) in shortest, 17-digit and
//!   long scientific forms;
//! - the exact halfway point between two neighbouring doubles (its full decimal
//!   expansion, up to 767 significant digits), and just above and below it;
//! - random decimal strings: 1–40 digits, exponents across the whole range and beyond;
//! - the limits: u64 and i64 bounds, `-0`, f64::MAX and past it, the least subnormal and
//!   half of it, exponents far out of range, very long digit strings.

use privlift::document::codec::decimal::{parse, Num};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// serde_json's reading of `text`: `None` when it refuses it.
fn reference(text: &str) -> Option<Num> {
    let n: serde_json::Number = serde_json::from_str(text).ok()?;
    Some(match (n.as_u64(), n.as_i64(), n.as_f64()) {
        (Some(v), _, _) => Num::U64(v),
        (None, Some(v), _) => Num::I64(v),
        (None, None, Some(v)) => Num::F64(v),
        _ => unreachable!("a number has a kind"),
    })
}

fn same(a: Option<Num>, b: Option<Num>) -> bool {
    match (a, b) {
        (Some(Num::F64(x)), Some(Num::F64(y))) => x.to_bits() == y.to_bits(),
        (a, b) => a == b,
    }
}

#[track_caller]
fn check(text: &str) {
    let ours = parse(text);
    let theirs = reference(text);
    assert!(same(ours, theirs), "{text}: ours {ours:?}, serde_json {theirs:?}");
}

/// A random finite double, every exponent equally likely (subnormals and zeros included).
fn random_double(rng: &mut ChaCha8Rng) -> f64 {
    loop {
        let x = f64::from_bits(rng.random::<u64>());
        if x.is_finite() {
            return x;
        }
    }
}

/// The exact decimal expansion of m · 2^e (m > 0), in scientific notation.
fn exact(m: u64, e: i32) -> String {
    // Base-10⁹ limbs, least significant first.
    let mut limbs: Vec<u64> = vec![m % 1_000_000_000, m / 1_000_000_000 % 1_000_000_000, m / 1_000_000_000_000_000_000];
    let times = |limbs: &mut Vec<u64>, k: u64| {
        let mut carry = 0;
        for l in limbs.iter_mut() {
            let v = *l * k + carry;
            *l = v % 1_000_000_000;
            carry = v / 1_000_000_000;
        }
        while carry > 0 {
            limbs.push(carry % 1_000_000_000);
            carry /= 1_000_000_000;
        }
    };
    // m · 2^e = m · 5^(−e) / 10^(−e) for e < 0.
    for _ in 0..e.unsigned_abs() {
        times(&mut limbs, if e < 0 { 5 } else { 2 });
    }
    while limbs.len() > 1 && *limbs.last().unwrap() == 0 {
        limbs.pop();
    }
    let mut digits = limbs.last().unwrap().to_string();
    for l in limbs.iter().rev().skip(1) {
        digits.push_str(&format!("{l:09}"));
    }
    let scale = if e < 0 { e.unsigned_abs() as i64 } else { 0 };
    let exp = digits.len() as i64 - 1 - scale;
    let (head, tail) = digits.split_at(1);
    let tail = tail.trim_end_matches('0');
    if tail.is_empty() {
        format!("{head}e{exp}")
    } else {
        format!("{head}.{tail}e{exp}")
    }
}

/// (m, e) with x = m · 2^e for a positive finite double x.
fn parts(x: f64) -> (u64, i32) {
    let bits = x.to_bits();
    let (exp, frac) = ((bits >> 52) as i32 & 0x7ff, bits & ((1 << 52) - 1));
    if exp == 0 {
        (frac, -1074)
    } else {
        (frac | 1 << 52, exp - 1075)
    }
}

#[test]
fn random_doubles_in_every_form() {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    for _ in 0..200_000 {
        let x = random_double(&mut rng);
        check(&format!("{x:?}"));
        check(&format!("{x:e}"));
        check(&format!("{x:.16e}"));
        check(&format!("{x:.25e}"));
        check(&serde_json::to_string(&x).unwrap());
    }
    // Probabilities, the documents' own numbers: uniform in (0, 1) and tiny ones.
    for _ in 0..200_000 {
        let p: f64 = rng.random::<f64>() * 10f64.powi(-rng.random_range(0..20));
        check(&format!("{p:?}"));
        check(&format!("{p:.17}"));
        check(&format!("{p:.19e}"));
    }
}

#[test]
fn halfway_points_and_their_neighbours() {
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let mut cases = 0;
    for i in 0..6_000 {
        // Every 4th near the subnormal range and the top, where the precision changes.
        let x = match i % 4 {
            0 => f64::from_bits(rng.random_range(1..1u64 << 54)),
            1 => f64::from_bits(rng.random_range(0x7fe0_0000_0000_0000..0x7fef_ffff_ffff_ffff)),
            _ => random_double(&mut rng).abs(),
        };
        if x == 0.0 || x == f64::MAX {
            continue;
        }
        // The midpoint between x and the next double: (2m + 1) · 2^(e − 1).
        let (m, e) = parts(x);
        let half = exact(2 * m + 1, e - 1);
        check(&half);
        let (mantissa, exp) = half.split_once('e').unwrap();
        let mantissa = if mantissa.contains('.') { mantissa.to_string() } else { format!("{mantissa}.") };
        // Just above: a digit far below the last one.
        check(&format!("{mantissa}{}1e{exp}", "0".repeat(rng.random_range(0..40))));
        // Just below: the expansion cut short (at least one non-zero digit dropped).
        let digits = mantissa.len() - 2;
        if digits > 2 {
            let cut = rng.random_range(2..digits);
            check(&format!("{}e{exp}", &mantissa[..cut + 1]));
        }
        cases += 1;
    }
    assert!(cases > 5_000);
}

/// Ties with few digits (the 128-bit path, not the big integers): midpoints between
/// doubles near 2^53, whose expansions end a few digits after the point.
#[test]
fn short_ties() {
    let mut rng = ChaCha8Rng::seed_from_u64(16);
    for _ in 0..100_000 {
        let j = rng.random_range(0..4);
        let x = rng.random_range((1u64 << 52) >> j..(1u64 << 53) >> j) as f64 * 2f64.powi(j - 3);
        let (m, e) = parts(x);
        let half = exact(2 * m + 1, e - 1);
        check(&half);
        let x = rng.random_range(1u64 << 53..1 << 54) | 1;
        check(&format!("{x}.0"));
        check(&format!("{x}0e-1"));
    }
}

/// Just below a power of two, where the double below is half as far as the one above:
/// the lower midpoint of 2^j cut to 16–19 digits (just below it) and rounded up at the
/// last digit (just above it), for j across the 128-bit path's range.
#[test]
fn below_powers_of_two() {
    for j in -100..=60 {
        let x = 2f64.powi(j);
        let (m, e) = parts(f64::from_bits(x.to_bits() - 1));
        let low = exact(2 * m + 1, e - 1);
        let (mantissa, exp) = low.split_once('e').unwrap();
        check(&low);
        for n in 16..=19 {
            let Some(cut) = mantissa.get(..n + 1) else { break };
            check(&format!("{cut}e{exp}"));
            // The same digits plus one unit in the last place (carrying through 9s).
            let mut digits: Vec<u8> = cut.bytes().filter(|b| *b != b'.').collect();
            if digits.iter().all(|&d| d == b'9') {
                continue;
            }
            let mut i = digits.len() - 1;
            while digits[i] == b'9' {
                digits[i] = b'0';
                i -= 1;
            }
            digits[i] += 1;
            let up = String::from_utf8(digits).unwrap();
            check(&format!("{}.{}e{exp}", &up[..1], &up[1..]));
        }
    }
    check("0.9999999999999999");
    check("0.99999999999999994");
    check("0.99999999999999995");
    check("1.9999999999999999");
}

#[test]
fn random_decimal_strings() {
    let mut rng = ChaCha8Rng::seed_from_u64(15);
    for _ in 0..400_000 {
        let n = rng.random_range(1..=40);
        let digits: String = (0..n).map(|i| char::from(b'0' + rng.random_range(u8::from(i == 0)..10))).collect();
        let sign = if rng.random_bool(0.3) { "-" } else { "" };
        let text = match rng.random_range(0..3) {
            0 => format!("{sign}{digits}"),
            1 => {
                let point = rng.random_range(1..=n);
                let (a, b) = digits.split_at(point);
                let b = if b.is_empty() { "0" } else { b };
                format!("{sign}{a}.{b}e{}", rng.random_range(-360..330))
            }
            _ => format!("{sign}0.{}{digits}", "0".repeat(rng.random_range(0..330))),
        };
        check(&text);
    }
}

#[test]
fn the_limits() {
    for text in [
        "0",
        "-0",
        "0.0",
        "-0.0",
        "0e0",
        "0e99999999999999999999",
        "-0e-99999999999999999999",
        "1",
        "-1",
        "9007199254740992",
        "9007199254740993",
        "9007199254740993.0",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "-18446744073709551616",
        "123456789012345678901234567890",
        "1e22",
        "1e23",
        "8.98846567431158e307",
        "1.7976931348623157e308",
        "1.7976931348623158e308",
        "1.7976931348623159e308",
        "-1.7976931348623159e308",
        "1e309",
        "1e99999999999999999999",
        "2.2250738585072011e-308",
        "2.2250738585072014e-308",
        "4.9406564584124654e-324",
        "5e-324",
        "3e-324",
        "2.4703282292062328e-324",
        "2.4703282292062327e-324",
        "2.470328229206232720882778e-324",
        "1e-400",
        "-1e-400",
        "1e-99999999999999999999",
        "0.1",
        "0.3",
        "2.5",
        "1.5e-5",
        "7.2057594037927933e16",
    ] {
        check(text);
    }
    // Very long digit strings: thousands of digits, ties decided far out.
    let long = format!("0.{}", "3".repeat(3000));
    check(&long);
    check(&format!("1{}", "0".repeat(400)));
    check(&format!("1{}e-400", "0".repeat(400)));
    check(&format!("{}e-2000", "9".repeat(2000)));
    let (m, e) = parts(1.0);
    let half = exact(2 * m + 1, e - 1); // 1 + 2^-53: a tie, to the even 1.0
    check(&half);
    check(&format!("{}{}1e0", half.trim_end_matches("e0"), "0".repeat(900)));
}
