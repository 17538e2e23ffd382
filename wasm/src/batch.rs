//! Batches of input indices perturbed into a JS typed array, a block at a time through one
//! buffer of the module's memory: each block is copied in, checked, drawn and copied out
//! while it is in cache, and no array is allocated on either side (a copy of the whole
//! batch first cost as much as the draws).
//!
//! The outputs go to a `Uint32Array`, or to the narrowest array that holds every output
//! index: a `Uint8Array` up to 256 outputs, a `Uint16Array` up to 65,536. The width is
//! fixed by the document (its output count, public), never by a draw. A new array's first
//! writes are what an allocating batch pays most for in a browser (4 MB of fresh pages for
//! 10⁶ `u32` outputs cost more than the draws); a narrow one has a half or a quarter of
//! those pages.
//!
//! Each call into JS has a fixed cost that, for a short batch, is most of the batch's time:
//! a block of at most [`FEW`] inputs crosses one input at a time, and a batch of one block
//! uses the caller's arrays themselves, never a `subarray` of them.

use alloc::borrow::Cow;
use alloc::vec::Vec;

use js_sys::{Uint16Array, Uint32Array, Uint8Array};
use privlift::error::{Error, Result};
use privlift::mechanism::VerifiedMechanism;
use privlift::rng::Randomness;
use wasm_bindgen::{JsCast, JsValue};

/// The block drawn at a time: 65,536 inputs (256 KiB in, at most as much out, in cache),
/// eight `crypto.getRandomValues` calls of 64 KiB. Each block pays a check of its inputs
/// and the zeroing of its random bytes: at 8192 inputs a block those were a tenth of the
/// call.
const BATCH_BLOCK: u32 = 65536;

/// A block of at most this many inputs crosses one input at a time: a `get_index` or
/// `set_index` call each, and its buffer is on the stack. A longer one crosses whole
/// (`copy_to`, `copy_from`): two calls into JS each way, a view of the module's memory
/// built for each and, for a narrow output, a buffer. In Node one at a time was faster up
/// to 16 inputs (64 bytes, what V8 keeps inside a `Uint32Array`), slower from 17.
const FEW: usize = 16;

/// Where a batch's outputs go: a typed array of one of three widths (borrowed: the JS
/// value is read where it is, with no reference taken across the boundary).
pub(crate) enum Outputs<'a> {
    /// Up to 256 outputs.
    U8(&'a Uint8Array),
    /// Up to 65,536 outputs.
    U16(&'a Uint16Array),
    /// Any output count.
    U32(&'a Uint32Array),
}

impl<'a> Outputs<'a> {
    /// `out` as the array it is, if it is a `Uint8Array`, `Uint16Array` or `Uint32Array`
    /// wide enough for every index below `outputs`. The narrow types are tried first: the
    /// allocating batch passes the narrowest array that fits, so it pays one `instanceof`.
    pub(crate) fn of(out: &'a JsValue, outputs: usize) -> Result<Self> {
        let fits = |bits: u32| outputs <= 1usize << bits;
        let narrow = |array: &str, bits: u32| {
            Error::invalid(
                "out",
                alloc::format!("a {array} holds at most {} output indices, the document has {outputs}", 1u64 << bits),
            )
        };
        if let Some(a) = out.dyn_ref::<Uint8Array>() {
            fits(8).then_some(Outputs::U8(a)).ok_or_else(|| narrow("Uint8Array", 8))
        } else if let Some(a) = out.dyn_ref::<Uint16Array>() {
            fits(16).then_some(Outputs::U16(a)).ok_or_else(|| narrow("Uint16Array", 16))
        } else if let Some(a) = out.dyn_ref::<Uint32Array>() {
            Ok(Outputs::U32(a))
        } else {
            Err(Error::invalid("out", "expected a Uint8Array, Uint16Array or Uint32Array"))
        }
    }

    fn len(&self) -> u32 {
        match self {
            Outputs::U8(a) => a.length(),
            Outputs::U16(a) => a.length(),
            Outputs::U32(a) => a.length(),
        }
    }

    /// Writes `ys` (indices below the width, checked by [`Outputs::of`]) from `at` of the
    /// batch's `n`: one at a time for at most [`FEW`], else narrowed through the scratch
    /// buffer of its width ([`Scratch::for_outputs`]).
    fn write(&self, n: u32, at: u32, ys: &[u32], scratch: &mut Scratch) {
        if ys.len() <= FEW {
            for (i, &y) in (at..).zip(ys) {
                match self {
                    Outputs::U32(a) => a.set_index(i, y),
                    Outputs::U16(a) => a.set_index(i, y as u16),
                    Outputs::U8(a) => a.set_index(i, y as u8),
                }
            }
            return;
        }
        let len = ys.len() as u32;
        match self {
            Outputs::U32(a) => whole_or_part(*a, n, at, len).copy_from(ys),
            Outputs::U16(a) => whole_or_part(*a, n, at, len).copy_from(narrowed(ys, &mut scratch.u16s, |y| y as u16)),
            Outputs::U8(a) => whole_or_part(*a, n, at, len).copy_from(narrowed(ys, &mut scratch.u8s, |y| y as u8)),
        }
    }

    fn zero(&self) {
        match self {
            Outputs::U8(a) => drop(a.fill(0, 0, a.length())),
            Outputs::U16(a) => drop(a.fill(0, 0, a.length())),
            Outputs::U32(a) => drop(a.fill(0, 0, a.length())),
        }
    }
}

/// Perturbs the input indices of `xs` with `rng`, writing each output to the same place in
/// `out` (which may be `xs` itself: in place). On an error (an invalid input, a failing
/// source) `out` is zeroed: nothing in it is a report to send, nor, in place, the user's
/// input. No input, output or random byte stays in the module's memory after the call.
pub(crate) fn perturb_into<R: Randomness + ?Sized>(
    mech: &VerifiedMechanism,
    rng: &mut R,
    xs: &Uint32Array,
    out: &Outputs<'_>,
) -> Result<()> {
    let n = xs.length();
    if out.len() != n {
        return Err(Error::invalid("out", "must have the length of the inputs"));
    }
    let block = BATCH_BLOCK.min(n) as usize;
    let mut stack = [0u32; FEW];
    let mut heap;
    let buf = if block <= FEW {
        &mut stack[..block]
    } else {
        heap = alloc::vec![0u32; block];
        &mut heap[..]
    };
    let mut scratch = Scratch::for_outputs(out, block);
    let mut drawn = Ok(());
    let mut at = 0;
    while at < n {
        let m = BATCH_BLOCK.min(n - at);
        let b = &mut buf[..m as usize];
        read(xs, n, at, b);
        drawn = mech.perturb_in_place(b, rng);
        if drawn.is_err() {
            out.zero();
            break;
        }
        out.write(n, at, b, &mut scratch);
        at += m;
    }
    buf.fill(0);
    scratch.u16s.fill(0);
    scratch.u8s.fill(0);
    // The zeroing is the point: it must not be dropped as a store to memory about to be freed.
    core::hint::black_box((buf, &mut scratch));
    drawn
}

/// The block buffer narrowed outputs pass through on their way out: empty but for the
/// width of the batch's [`Outputs`].
struct Scratch {
    u16s: Vec<u16>,
    u8s: Vec<u8>,
}

impl Scratch {
    fn for_outputs(out: &Outputs<'_>, block: usize) -> Self {
        // A block of at most `FEW` outputs is written one at a time, without narrowing here.
        let len = |wide: bool| if wide && block > FEW { block } else { 0 };
        Scratch {
            u16s: alloc::vec![0; len(matches!(out, Outputs::U16(_)))],
            u8s: alloc::vec![0; len(matches!(out, Outputs::U8(_)))],
        }
    }
}

/// `ys` narrowed by `f` into the front of `buf` (an output index fits the width).
#[inline(always)]
fn narrowed<'a, T: Copy>(ys: &[u32], buf: &'a mut [T], f: impl Fn(u32) -> T) -> &'a [T] {
    let out = &mut buf[..ys.len()];
    for (o, &y) in out.iter_mut().zip(ys) {
        *o = f(y);
    }
    out
}

/// Copies `xs[at..at + b.len()]` into `b` (`n` is the length of `xs`).
fn read(xs: &Uint32Array, n: u32, at: u32, b: &mut [u32]) {
    if b.len() <= FEW {
        for (i, x) in (at..).zip(b.iter_mut()) {
            *x = xs.get_index(i);
        }
    } else {
        whole_or_part(xs, n, at, b.len() as u32).copy_to(b);
    }
}

/// `a[at..at + len]`, where `a` has `n` elements: `a` itself when that is all of it. A
/// `subarray` of a small array (V8 keeps up to 64 bytes inside the array object) first
/// moves its elements out to a buffer of their own: in Node that was half of a one-input
/// batch's time, every call, since each `perturbIndices` writes a new array.
fn whole_or_part<A: Subarray>(a: &A, n: u32, at: u32, len: u32) -> Cow<'_, A> {
    if at == 0 && len == n {
        Cow::Borrowed(a)
    } else {
        Cow::Owned(a.part(at, at + len))
    }
}

/// The typed arrays a batch reads and writes, by their `subarray`.
trait Subarray: Clone {
    fn part(&self, begin: u32, end: u32) -> Self;
}

macro_rules! subarray {
    ($($t:ty),*) => {$(
        impl Subarray for $t {
            fn part(&self, begin: u32, end: u32) -> Self {
                self.subarray(begin, end)
            }
        }
    )*};
}
subarray!(Uint8Array, Uint16Array, Uint32Array);
