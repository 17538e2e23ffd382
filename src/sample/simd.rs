//! Kernels in wasm's 128-bit SIMD (`simd128`), for builds that enable it (the discrete
//! client module: every engine it runs in — Chromium, Firefox, WebKit ≥ 16.4, Node, Deno,
//! workerd — has it): four 32-bit lanes an instruction where the scalar loops take one.
//! Each computes exactly what its scalar counterpart does, and neither a branch nor a
//! memory access depends on an input or a random word. Lanes are read and written as whole
//! 16-byte values (`zerocopy::transmute!`: safe code, one load or store each).
//!
//! Each iteration takes several vectors, written out one by one (opt-level "s" neither
//! unrolls a loop over them nor keeps them in registers): with one vector an iteration, a
//! bounds check, the loop's steps and the engine's stack check took as many instructions
//! as the work.

use core::arch::wasm32::{
    i32x4_mul, i32x4_shuffle, u32x4_extract_lane, u32x4_le, u32x4_max, u32x4_shr, u32x4_splat, u64x2_extmul_high_u32x4,
    u64x2_extmul_low_u32x4, v128, v128_bitselect,
};
use zerocopy::transmute;

/// Inputs an iteration of the draw: four vectors (eight were no faster).
const DRAWN: usize = 16;

/// Inputs an iteration of the largest-input check: sixteen vectors.
const READ: usize = 64;

/// Draws the first 16⌊n/16⌋ inputs of `xs` (n = the inputs that have a word in `bytes`)
/// as [`super::KeepOrUniform`]'s 32-bit draw does, and returns how many it drew.
#[inline(always)]
pub(crate) fn draw32(g: u64, outputs: u64, xs: &mut [u32], bytes: &[u8]) -> usize {
    // g < 2³² (the constructor's bound) and 1 ≤ F = g·w ≤ 2³² (w ≥ 1 as κ < 1). A word
    // outputs its bucket when its fraction is below F: at most F − 1, which a u32 lane
    // holds even for F = 2³² (never keep). F = 0 (always keep) is no constructor's: it is
    // left to the scalar loop.
    let Some(last) = outputs.checked_sub(1) else {
        return 0;
    };
    let last = u32x4_splat(last as u32);
    let (pow2, s, g) = (g > 1 && g.is_power_of_two(), g.trailing_zeros(), u32x4_splat(g as u32));
    if pow2 {
        // g = 2ˢ (0 < s < 32): r·g is r shifted left by s, so its top 32 bits (the bucket)
        // are r >> (32 − s), and its low 32 bits (the fraction) one 32-bit multiply: where
        // the product takes two widening multiplies and two shuffles (a shift by a
        // variable count costs the engines three instructions, the multiply one).
        in_sixteens(xs, bytes, last, || move |r| (u32x4_shr(r, 32 - s), i32x4_mul(r, g)))
    } else {
        in_sixteens(xs, bytes, last, || {
            // g opaque in each iteration: otherwise the optimiser hoists the widening of
            // g's lanes out of the loop, and each product becomes a 64×64-bit multiply
            // (emulated in several instructions by the engines) instead of one 32×32→64
            // `extmul`.
            let g = core::hint::black_box(g);
            move |r| {
                let (lo, hi) = (u64x2_extmul_low_u32x4(r, g), u64x2_extmul_high_u32x4(r, g));
                (i32x4_shuffle::<1, 3, 5, 7>(lo, hi), i32x4_shuffle::<0, 2, 4, 6>(lo, hi))
            }
        })
    }
}

/// The 32-bit draw of the first 16⌊n/16⌋ inputs, sixteen an iteration: the product
/// function `iteration()` returns, applied to four words r, gives the buckets and the
/// fractions of r·g, and each input becomes its bucket where the fraction is at most
/// `last` (F − 1), else stays. Returns how many it drew.
#[inline(always)]
fn in_sixteens<P: Fn(v128) -> (v128, v128)>(
    xs: &mut [u32],
    bytes: &[u8],
    last: v128,
    iteration: impl Fn() -> P,
) -> usize {
    let n = xs.len().min(bytes.len() / 4) / DRAWN * DRAWN;
    // Indices, not iterator adapters, as in `super::in_blocks` (opt-level "s").
    for i in (0..n).step_by(DRAWN) {
        let (Ok(x), Ok(r)) = (
            <&mut [u32; DRAWN]>::try_from(&mut xs[i..i + DRAWN]),
            <&[u8; 4 * DRAWN]>::try_from(&bytes[4 * i..4 * i + 4 * DRAWN]),
        ) else {
            continue; // never: both are exactly sixteen lanes
        };
        let product = iteration();
        // Vector j of the sixteen inputs (constant indices into arrays: no bounds check).
        let mut draw4 = |j: usize| {
            let (Ok(x4), Ok(r)) =
                (<&mut [u32; 4]>::try_from(&mut x[4 * j..4 * j + 4]), <&[u8; 16]>::try_from(&r[16 * j..16 * j + 16]))
            else {
                return;
            };
            // Little-endian lanes: the words as u32::from_le_bytes reads them.
            let (r, x): (v128, v128) = (transmute!(*r), transmute!(*x4));
            let (bucket, fraction) = product(r);
            *x4 = transmute!(v128_bitselect(bucket, x, u32x4_le(fraction, last)));
        };
        draw4(0);
        draw4(1);
        draw4(2);
        draw4(3);
    }
    n
}

/// The largest of the first 64⌊n/64⌋ of `xs` (n = `xs.len()`; 0 for none), in four
/// lane-wise maxima of four lanes, and how many it read.
#[inline(always)]
pub(crate) fn largest(xs: &[u32]) -> (u32, usize) {
    let n = xs.len() / READ * READ;
    let mut m = [u32x4_splat(0); 4];
    for i in (0..n).step_by(READ) {
        if let Ok(x) = <&[u32; READ]>::try_from(&xs[i..i + READ]) {
            // Vector j (a constant index into an array: no bounds check).
            let v = |j: usize| -> v128 {
                let x4: Result<&[u32; 4], _> = x[4 * j..4 * j + 4].try_into();
                x4.map_or(u32x4_splat(0), |x4| transmute!(*x4))
            };
            // Each maximum takes four vectors, two of them first side by side.
            m = [
                u32x4_max(u32x4_max(m[0], v(0)), u32x4_max(v(4), v(8))),
                u32x4_max(u32x4_max(m[1], v(1)), u32x4_max(v(5), v(9))),
                u32x4_max(u32x4_max(m[2], v(2)), u32x4_max(v(6), v(10))),
                u32x4_max(u32x4_max(m[3], v(3)), u32x4_max(v(7), v(11))),
            ];
            m = [u32x4_max(m[0], v(12)), u32x4_max(m[1], v(13)), u32x4_max(m[2], v(14)), u32x4_max(m[3], v(15))];
        }
    }
    let m = u32x4_max(u32x4_max(m[0], m[1]), u32x4_max(m[2], m[3]));
    let lanes = [
        u32x4_extract_lane::<0>(m),
        u32x4_extract_lane::<1>(m),
        u32x4_extract_lane::<2>(m),
        u32x4_extract_lane::<3>(m),
    ];
    (lanes.into_iter().fold(0, u32::max), n)
}
