//! The reverse search's bases, stored flat (a stack, or the queue of bases given away).

use alloc::vec::Vec;

/// Bases stored flat: sorted basic variables, side bits of the secret rows, B⁻¹, the
/// basic values, the pivots since B⁻¹ was factorised afresh and the share of the tree
/// below each (Knuth's weights: see `Worker::would_pass_deadline`).
pub(super) struct Nodes {
    m: usize,
    sw: usize,
    basis: Vec<u32>,
    upper: Vec<u64>,
    inv: Vec<f64>,
    x: Vec<f64>,
    gen: Vec<u8>,
    share: Vec<f64>,
}

impl Nodes {
    pub(super) fn new(m: usize, sw: usize) -> Self {
        Nodes {
            m,
            sw,
            basis: Vec::new(),
            upper: Vec::new(),
            inv: Vec::new(),
            x: Vec::new(),
            gen: Vec::new(),
            share: Vec::new(),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.gen.len()
    }

    pub(super) fn push(&mut self, basis: &[u32], upper: &[u64], inv: &[f64], x: &[f64], gen: u8, share: f64) {
        self.basis.extend_from_slice(basis);
        self.upper.extend_from_slice(upper);
        self.inv.extend_from_slice(inv);
        self.x.extend_from_slice(x);
        self.gen.push(gen);
        self.share.push(share);
    }

    /// Copies node `k` into `node`.
    pub(super) fn load(&self, k: usize, node: &mut Node) {
        let (m, sw) = (self.m, self.sw);
        node.basis.copy_from_slice(&self.basis[k * m..(k + 1) * m]);
        node.upper.copy_from_slice(&self.upper[k * sw..(k + 1) * sw]);
        node.inv.copy_from_slice(&self.inv[k * m * m..(k + 1) * m * m]);
        node.x.copy_from_slice(&self.x[k * m..(k + 1) * m]);
        node.gen = self.gen[k];
        node.share = self.share[k];
    }

    /// Moves the first `count` nodes to the end of `to`.
    pub(super) fn move_bottom(&mut self, count: usize, to: &mut Nodes) {
        let (m, sw) = (self.m, self.sw);
        to.basis.extend(self.basis.drain(..count * m));
        to.upper.extend(self.upper.drain(..count * sw));
        to.inv.extend(self.inv.drain(..count * m * m));
        to.x.extend(self.x.drain(..count * m));
        to.gen.extend(self.gen.drain(..count));
        to.share.extend(self.share.drain(..count));
    }

    /// Shares `share`, a parent's, equally among the nodes from `first` on, its children.
    pub(super) fn split(&mut self, first: usize, share: f64) {
        let each = share / (self.len() - first) as f64;
        self.share[first..].iter_mut().for_each(|w| *w = each);
    }

    /// Moves the last node into `node`; false if there is none.
    pub(super) fn pop(&mut self, node: &mut Node) -> bool {
        let Some(k) = self.len().checked_sub(1) else { return false };
        self.load(k, node);
        let (m, sw) = (self.m, self.sw);
        self.basis.truncate(k * m);
        self.upper.truncate(k * sw);
        self.inv.truncate(k * m * m);
        self.x.truncate(k * m);
        self.gen.truncate(k);
        self.share.truncate(k);
        true
    }
}

/// One basis: as in [`Nodes`].
pub(super) struct Node {
    pub(super) basis: Vec<u32>,
    pub(super) upper: Vec<u64>,
    pub(super) inv: Vec<f64>,
    pub(super) x: Vec<f64>,
    pub(super) gen: u8,
    pub(super) share: f64,
}
