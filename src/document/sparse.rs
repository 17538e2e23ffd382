//! A channel stored by its non-zero entries ([`Sparse`]), and the structure of subset
//! random response ([`Srr`]) it keeps when it came as one: what the `sparse` and `srr`
//! kinds hold once validated.

use alloc::vec::Vec;

use super::limits::MAX_SYMBOLS;
use super::matrix::Matrix;
use crate::error::{Error, Result};
use crate::param::check_distribution;

/// Largest number of non-zero entries of a `sparse` mechanism.
pub const MAX_SPARSE_ENTRIES: usize = 1 << 24;

/// A channel P(Y|X) stored by its non-zero entries: row x is the pairs (y, P(y|x)) in
/// increasing y. It is published as `sparse`, or, when it came as one, in the `srr` form.
#[derive(Debug, Clone)]
pub struct Sparse {
    outputs: usize,
    /// Row x is `entries[spans[x].0..spans[x].1]`. The inputs of an SRR that are neither
    /// low-risk nor in a group share one span: the `others` row is stored once, so the
    /// memory is that of the numbers the document gives, not |X| copies of one of them.
    spans: Vec<(usize, usize)>,
    entries: Vec<(u32, f64)>,
    /// Σₓ |row x|: the entries of the channel, a shared row counted once per input.
    nonzeros: usize,
    /// The subset-random-response structure, for a channel read from (or built as) `srr`.
    srr: Option<Srr>,
}

/// Two channels are equal when their rows are, however they are stored.
impl PartialEq for Sparse {
    fn eq(&self, other: &Self) -> bool {
        self.outputs == other.outputs
            && self.srr == other.srr
            && self.inputs() == other.inputs()
            && (0..self.inputs()).all(|x| self.row(x) == other.row(x))
    }
}

/// The structure of subset random response (Zarrabian et al. Sec. V, Algorithm 2, eqs
/// 25–26): inputs released as themselves (`low_risk`), then disjoint groups, each with its
/// own outputs and a random response over them; the other inputs (of prior 0) share one
/// row over every output. Outputs are numbered low-risk first, then group by group.
#[derive(Debug, Clone, PartialEq)]
pub struct Srr {
    /// The low-risk inputs; the i-th is released as output i.
    pub low_risk: Vec<u32>,
    /// Each group: its inputs and its number of outputs.
    pub groups: Vec<(Vec<u32>, usize)>,
}

impl Sparse {
    /// Validates `rows` (one list of `(y, p)` pairs per input) as a channel with `outputs`
    /// outputs: y < `outputs` and strictly increasing in each row, every row a distribution.
    ///
    /// # Errors
    /// `too_many_symbols`, `empty_alphabet`, `invalid_argument` (an output out of range or
    /// out of order, naming `field[x][j]`), and the probability-vector errors naming the row.
    pub fn new(field: &str, outputs: usize, rows: &[Vec<(usize, f64)>]) -> Result<Self> {
        if outputs == 0 {
            return Err(Error::EmptyAlphabet { field: alloc::format!("{field}.outputs") });
        }
        if outputs > MAX_SYMBOLS {
            return Err(Error::TooManySymbols {
                field: alloc::format!("{field}.outputs"),
                found: outputs,
                max: MAX_SYMBOLS,
            });
        }
        let nnz = rows.iter().fold(0usize, |n, r| n.saturating_add(r.len()));
        if nnz > MAX_SPARSE_ENTRIES {
            return Err(Error::TooManySymbols {
                field: alloc::format!("{field}.rows"),
                found: nnz,
                max: MAX_SPARSE_ENTRIES,
            });
        }
        let mut spans = Vec::with_capacity(rows.len());
        let mut entries = Vec::with_capacity(nnz);
        let mut values = Vec::new();
        for (x, row) in rows.iter().enumerate() {
            let start = entries.len();
            let f = alloc::format!("{field}.rows[{x}]");
            values.clear();
            let mut last: Option<usize> = None;
            for (j, &(y, p)) in row.iter().enumerate() {
                if y >= outputs || last.is_some_and(|l| y <= l) {
                    return Err(Error::invalid(alloc::format!("{f}[{j}]"), alloc::format!(
                            "output {y} is out of range or out of order (outputs are 0..{outputs}, increasing in each row)"
                        )));
                }
                last = Some(y);
                values.push(p);
                entries.push((y as u32, p));
            }
            if values.is_empty() {
                return Err(Error::EmptyAlphabet { field: f });
            }
            check_distribution(&f, &values)?;
            spans.push((start, entries.len()));
        }
        Ok(Sparse { outputs, spans, entries, nonzeros: nnz, srr: None })
    }

    /// The non-zero entries of a dense channel (the curator side).
    pub fn from_matrix(m: &Matrix) -> Self {
        let mut spans = Vec::with_capacity(m.rows());
        let mut entries = Vec::new();
        for x in 0..m.rows() {
            let start = entries.len();
            entries.extend(m.row(x).iter().enumerate().filter(|(_, &p)| p != 0.0).map(|(y, &p)| (y as u32, p)));
            spans.push((start, entries.len()));
        }
        Sparse { outputs: m.cols(), spans, nonzeros: entries.len(), entries, srr: None }
    }

    /// The channel `m` in the `srr` form of `srr` (the curator side: SRR and ORR designs).
    ///
    /// # Errors
    /// `invalid_argument` when `m` is not of that form: a low-risk input not released as
    /// its own output, a group's row with mass outside its outputs, or two other inputs
    /// with different rows.
    pub fn srr_from_matrix(m: &Matrix, srr: Srr) -> Result<Self> {
        let outputs: Vec<(usize, usize)> = (0..srr.groups.len()).map(|g| group_outputs(&srr, g)).collect();
        let members: Vec<Vec<u32>> = srr.groups.iter().map(|(g, _)| g.clone()).collect();
        let others = uncovered(&srr, m.rows()).first().map_or(&[][..], |&x| m.row(x));
        let group_row = |g: usize, j: usize| {
            let (y0, r) = outputs[g];
            m.row(members[g][j] as usize).get(y0..y0 + r).unwrap_or_default()
        };
        let s = Sparse::from_srr("mechanism", m.rows(), m.cols(), srr, &group_row, others)?;
        let dense_row = |x: usize| m.row(x).iter().enumerate().filter(|(_, &p)| p != 0.0).map(|(y, &p)| (y as u32, p));
        if m.cols() != s.outputs || (0..m.rows()).any(|x| !s.row(x).iter().copied().eq(dense_row(x))) {
            return Err(Error::invalid("srr", "the channel is not of the SRR form"));
        }
        Ok(s)
    }

    /// The channel of an SRR over `nx` inputs with `outputs` outputs (Zarrabian et al.
    /// Algorithm 2): low-risk input i → output i; input j of group g → `group_row(g, j)`
    /// over the group's outputs; every other input → `others`, stored once and shared.
    /// The channel's size is computed from these before anything proportional to it is
    /// allocated, and each stored row is validated once.
    ///
    /// # Errors
    /// `too_many_symbols` for more than [`MAX_SPARSE_ENTRIES`] entries (a shared row
    /// counted once per input), `invalid_argument` for an input out of range or listed
    /// twice, `dimension_mismatch` for an `others` row of the wrong length, and the
    /// probability-vector errors naming the row.
    pub(super) fn from_srr<'a>(
        field: &str,
        nx: usize,
        outputs: usize,
        srr: Srr,
        group_row: &dyn Fn(usize, usize) -> &'a [f64],
        others: &[f64],
    ) -> Result<Self> {
        if outputs == 0 {
            return Err(Error::EmptyAlphabet { field: alloc::format!("{field}.outputs") });
        }
        if outputs > MAX_SYMBOLS {
            let field = alloc::format!("{field}.outputs");
            return Err(Error::TooManySymbols { field, found: outputs, max: MAX_SYMBOLS });
        }
        let mut covered = alloc::vec![false; nx];
        for &x in srr.low_risk.iter().chain(srr.groups.iter().flat_map(|(g, _)| g)) {
            match covered.get_mut(x as usize) {
                Some(c) if !*c => *c = true,
                _ => return Err(Error::invalid(field, alloc::format!("input {x} is out of range or listed twice"))),
            }
        }
        let uncovered = covered.iter().filter(|&&c| !c).count();
        if uncovered > 0 && others.len() != outputs {
            return Err(Error::field(alloc::format!("{field}.others")).dims(outputs, others.len()));
        }
        let nonzero = |row: &[f64]| row.iter().filter(|&&p| p != 0.0).count();
        let groups: usize = (0..srr.groups.len())
            .flat_map(|g| (0..srr.groups[g].0.len()).map(move |j| (g, j)))
            .fold(0usize, |n, (g, j)| n.saturating_add(nonzero(group_row(g, j))));
        let shared = if uncovered > 0 { nonzero(others) } else { 0 };
        let nnz = srr.low_risk.len().saturating_add(groups).saturating_add(uncovered.saturating_mul(shared));
        if nnz > MAX_SPARSE_ENTRIES {
            return Err(Error::TooManySymbols {
                field: alloc::format!("{field}.others"),
                found: nnz,
                max: MAX_SPARSE_ENTRIES,
            });
        }
        let mut entries = Vec::with_capacity(srr.low_risk.len() + groups + shared);
        let mut spans = alloc::vec![(0, 0); nx];
        let push_row = |entries: &mut Vec<(u32, f64)>, x: Option<usize>, y0: usize, row: &[f64]| {
            let name = match x {
                Some(x) => alloc::format!("{field}.rows[{x}]"),
                None => alloc::format!("{field}.others"),
            };
            check_distribution(&name, row)?;
            let start = entries.len();
            entries.extend(row.iter().enumerate().filter(|(_, &p)| p != 0.0).map(|(y, &p)| ((y0 + y) as u32, p)));
            Ok::<_, Error>((start, entries.len()))
        };
        for (i, &x) in srr.low_risk.iter().enumerate() {
            spans[x as usize] = push_row(&mut entries, Some(x as usize), i, &[1.0])?;
        }
        for g in 0..srr.groups.len() {
            let (y0, _) = group_outputs(&srr, g);
            for (j, &x) in srr.groups[g].0.iter().enumerate() {
                spans[x as usize] = push_row(&mut entries, Some(x as usize), y0, group_row(g, j))?;
            }
        }
        if uncovered > 0 {
            let span = push_row(&mut entries, None, 0, others)?;
            for (x, _) in covered.iter().enumerate().filter(|(_, &c)| !c) {
                spans[x] = span;
            }
        }
        Ok(Sparse { outputs, spans, entries, nonzeros: nnz, srr: Some(srr) })
    }

    /// The SRR structure, when the channel has that form.
    pub fn srr(&self) -> Option<&Srr> {
        self.srr.as_ref()
    }

    /// |X|.
    pub fn inputs(&self) -> usize {
        self.spans.len()
    }
    /// |Y|.
    pub fn outputs(&self) -> usize {
        self.outputs
    }
    /// Number of entries of the channel: Σₓ |row x| (a shared row counted once per input).
    pub fn nonzeros(&self) -> usize {
        self.nonzeros
    }
    /// Row x: the pairs (y, P(y|x)).
    pub fn row(&self, x: usize) -> &[(u32, f64)] {
        let (start, end) = self.spans[x];
        &self.entries[start..end]
    }
    /// The dense channel.
    pub fn to_matrix(&self) -> Matrix {
        let (nx, ny) = (self.inputs(), self.outputs);
        let mut w = alloc::vec![0.0; nx * ny];
        for x in 0..nx {
            for &(y, p) in self.row(x) {
                w[x * ny + y as usize] = p;
            }
        }
        Matrix::from_flat(nx, ny, w)
    }
    pub(super) fn to_json(&self) -> serde_json::Value {
        if let Some(srr) = &self.srr {
            let dense = |x: usize, y0: usize, r: usize| {
                let mut row = alloc::vec![0.0; r];
                for &(y, p) in self.row(x) {
                    row[y as usize - y0] = p;
                }
                row
            };
            let groups: Vec<serde_json::Value> = (0..srr.groups.len())
                .map(|g| {
                    let (y0, r) = group_outputs(srr, g);
                    let rows: Vec<Vec<f64>> = srr.groups[g].0.iter().map(|&x| dense(x as usize, y0, r)).collect();
                    serde_json::json!({"inputs": srr.groups[g].0, "p_y_given_x": rows})
                })
                .collect();
            let mut v = serde_json::json!({"kind": "srr", "low_risk": srr.low_risk, "groups": groups});
            if let Some(x) = uncovered(srr, self.inputs()).first() {
                v["others"] = serde_json::json!(dense(*x, 0, self.outputs));
            }
            return v;
        }
        let rows: Vec<Vec<(u32, f64)>> = (0..self.inputs()).map(|x| self.row(x).to_vec()).collect();
        serde_json::json!({"kind": "sparse", "outputs": self.outputs, "rows": rows})
    }
}

/// The first output and the number of outputs of group `g`.
fn group_outputs(srr: &Srr, g: usize) -> (usize, usize) {
    let y0 = srr.low_risk.len() + srr.groups[..g].iter().map(|(_, r)| r).sum::<usize>();
    (y0, srr.groups[g].1)
}

/// The inputs neither low-risk nor in a group.
pub(super) fn uncovered(srr: &Srr, nx: usize) -> Vec<usize> {
    let mut covered = alloc::vec![false; nx];
    for &x in srr.low_risk.iter().chain(srr.groups.iter().flat_map(|(g, _)| g)) {
        covered[x as usize] = true;
    }
    (0..nx).filter(|&x| !covered[x]).collect()
}
