//! Kernels in wasm's 128-bit SIMD (`simd128`), for builds that enable it (the discrete
//! client module: every engine it runs in — Chromium, Firefox, WebKit ≥ 16.4, Node, Deno,
//! workerd — has it): four 32-bit lanes an instruction where the scalar loops take one.
//! Each computes exactly what its scalar counterpart does, and neither a branch nor a
//! memory access depends on an input or a random word. Lanes are read and written as whole
//! 16-byte values (`zerocopy::transmute!`: safe code, one load or store each).

use core::arch::wasm32::{
    i32x4_shuffle, u32x4_extract_lane, u32x4_ge, u32x4_max, u32x4_splat, u64x2_extmul_high_u32x4,
    u64x2_extmul_low_u32x4, v128, v128_and, v128_bitselect,
};
use zerocopy::transmute;

/// Draws the first 4⌊n/4⌋ inputs of `xs` (n = the inputs that have a word in `bytes`)
/// as [`super::KeepOrUniform`]'s 32-bit draw does, and returns how many it drew.
#[inline(always)]
pub(crate) fn draw32(g: u64, outputs: u64, xs: &mut [u32], bytes: &[u8]) -> usize {
    let n = xs.len().min(bytes.len() / 4) & !3;
    // g < 2³² (the constructor's bound); F = g·w ≤ 2³². A word keeps x when its
    // fraction is at least F: never when F = 2³², which no u32 lane holds, so that
    // case's comparison is masked off.
    let g = u32x4_splat(g as u32);
    let f = u32x4_splat(outputs as u32);
    let can_keep = u32x4_splat(if outputs <= u64::from(u32::MAX) { u32::MAX } else { 0 });
    // Indices, not iterator adapters, as in `super::in_blocks` (opt-level "s").
    for i in (0..n).step_by(4) {
        let (Ok(x4), Ok(b)) =
            (<&mut [u32; 4]>::try_from(&mut xs[i..i + 4]), <&[u8; 16]>::try_from(&bytes[4 * i..4 * i + 16]))
        else {
            continue; // never: both are exactly four lanes
        };
        // Little-endian lanes: the words as u32::from_le_bytes reads them.
        let (r, x): (v128, v128) = (transmute!(*b), transmute!(*x4));
        // g opaque in each step: otherwise the optimiser hoists the widening of g's lanes
        // out of the loop, and each product becomes a 64×64-bit multiply (emulated in
        // several instructions by the engines) instead of one 32×32→64 `extmul`.
        let g = core::hint::black_box(g);
        let (lo, hi) = (u64x2_extmul_low_u32x4(r, g), u64x2_extmul_high_u32x4(r, g));
        let fraction = i32x4_shuffle::<0, 2, 4, 6>(lo, hi);
        let bucket = i32x4_shuffle::<1, 3, 5, 7>(lo, hi);
        *x4 = transmute!(v128_bitselect(x, bucket, v128_and(u32x4_ge(fraction, f), can_keep)));
    }
    n
}

/// The largest of the first 4⌊n/4⌋ of `xs` (n = `xs.len()`; 0 for none), in one lane-wise
/// maximum of four lanes, and how many it read.
#[inline(always)]
pub(crate) fn largest(xs: &[u32]) -> (u32, usize) {
    let n = xs.len() & !3;
    let mut m = u32x4_splat(0);
    for i in (0..n).step_by(4) {
        if let Ok(x4) = <&[u32; 4]>::try_from(&xs[i..i + 4]) {
            let x: v128 = transmute!(*x4);
            m = u32x4_max(m, x);
        }
    }
    let lanes = [
        u32x4_extract_lane::<0>(m),
        u32x4_extract_lane::<1>(m),
        u32x4_extract_lane::<2>(m),
        u32x4_extract_lane::<3>(m),
    ];
    (lanes.into_iter().fold(0, u32::max), n)
}
