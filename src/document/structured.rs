//! The structured mechanism kinds: `krr`, `rr_lip`, `merge` and `sparse`. Each states a
//! channel P(Y|X) in O(k) (or O(non-zeros)) numbers instead of a dense k × k matrix, and
//! each is validated here as strictly as a `matrix`: every probability finite, non-negative,
//! not below [`MIN_PROBABILITY`], every row a distribution.

use alloc::boxed::Box;
use alloc::vec::Vec;

use super::fields::{array, index, number, numbers, object, optional_number, required};
use super::{channel, Json, Matrix, MechanismKind, MAX_SYMBOLS};
use crate::error::{Error, Result};
use crate::param::{check_distribution, check_not_tiny, Epsilon, Probability};

/// Largest number of non-zero entries of a `sparse` mechanism.
pub const MAX_SPARSE_ENTRIES: usize = 1 << 24;

/// A channel P(Y|X) stored by its non-zero entries: row x is the pairs (y, P(y|x)) in
/// increasing y. It is published as `sparse`, or, when it came as one, in the `srr` form.
#[derive(Debug, Clone, PartialEq)]
pub struct Sparse {
    outputs: usize,
    /// Row x is `entries[offsets[x]..offsets[x + 1]]`.
    offsets: Vec<usize>,
    entries: Vec<(u32, f64)>,
    /// The subset-random-response structure, for a channel read from (or built as) `srr`.
    srr: Option<Srr>,
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
        let mut offsets = Vec::with_capacity(rows.len() + 1);
        let mut entries = Vec::with_capacity(nnz);
        let mut values = Vec::new();
        offsets.push(0);
        for (x, row) in rows.iter().enumerate() {
            let f = alloc::format!("{field}.rows[{x}]");
            values.clear();
            let mut last: Option<usize> = None;
            for (j, &(y, p)) in row.iter().enumerate() {
                if y >= outputs || last.is_some_and(|l| y <= l) {
                    return Err(Error::InvalidArgument {
                        name: alloc::format!("{f}[{j}]"),
                        reason: alloc::format!(
                            "output {y} is out of range or out of order (outputs are 0..{outputs}, increasing in each row)"
                        ),
                    });
                }
                last = Some(y);
                values.push(p);
                entries.push((y as u32, p));
            }
            if values.is_empty() {
                return Err(Error::EmptyAlphabet { field: f });
            }
            check_distribution(&f, &values)?;
            offsets.push(entries.len());
        }
        Ok(Sparse { outputs, offsets, entries, srr: None })
    }

    /// The non-zero entries of a dense channel (the curator side).
    pub fn from_matrix(m: &Matrix) -> Self {
        let mut offsets = alloc::vec![0];
        let mut entries = Vec::new();
        for x in 0..m.rows() {
            entries.extend(m.row(x).iter().enumerate().filter(|(_, &p)| p != 0.0).map(|(y, &p)| (y as u32, p)));
            offsets.push(entries.len());
        }
        Sparse { outputs: m.cols(), offsets, entries, srr: None }
    }

    /// The channel `m` in the `srr` form of `srr` (the curator side: SRR and ORR designs).
    ///
    /// # Errors
    /// `invalid_argument` when `m` is not of that form: a low-risk input not released as
    /// its own output, a group's row with mass outside its outputs, or two other inputs
    /// with different rows.
    pub fn srr_from_matrix(m: &Matrix, srr: Srr) -> Result<Self> {
        let rows: Vec<Vec<(usize, f64)>> = (0..m.rows())
            .map(|x| m.row(x).iter().enumerate().filter(|(_, &p)| p != 0.0).map(|(y, &p)| (y, p)).collect())
            .collect();
        let built = srr_rows(
            &srr,
            m.rows(),
            |g, j| {
                let (y0, r) = group_outputs(&srr, g);
                Ok(m.row(srr.groups[g].0[j] as usize)[y0..y0 + r].to_vec())
            },
            || Ok(other_row(&srr, m)),
        )?;
        if built.iter().zip(&rows).any(|(a, b)| a != b) {
            return Err(Error::InvalidArgument {
                name: "srr".into(),
                reason: "the channel is not of the SRR form".into(),
            });
        }
        let mut s = Sparse::new("mechanism", m.cols(), &rows)?;
        s.srr = Some(srr);
        Ok(s)
    }

    /// The SRR structure, when the channel has that form.
    pub fn srr(&self) -> Option<&Srr> {
        self.srr.as_ref()
    }

    /// |X|.
    pub fn inputs(&self) -> usize {
        self.offsets.len() - 1
    }
    /// |Y|.
    pub fn outputs(&self) -> usize {
        self.outputs
    }
    /// Number of stored entries.
    pub fn nonzeros(&self) -> usize {
        self.entries.len()
    }
    /// Row x: the pairs (y, P(y|x)).
    pub fn row(&self, x: usize) -> &[(u32, f64)] {
        &self.entries[self.offsets[x]..self.offsets[x + 1]]
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
    fn to_json(&self) -> serde_json::Value {
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

/// B, the number of blocks of a merge's `blocks` (b(x) for each input, 0..B−1).
pub fn block_count(blocks: &[u32]) -> usize {
    blocks.iter().max().map_or(0, |&b| b as usize + 1)
}

/// The first output and the number of outputs of group `g`.
fn group_outputs(srr: &Srr, g: usize) -> (usize, usize) {
    let y0 = srr.low_risk.len() + srr.groups[..g].iter().map(|(_, r)| r).sum::<usize>();
    (y0, srr.groups[g].1)
}

/// The inputs neither low-risk nor in a group.
fn uncovered(srr: &Srr, nx: usize) -> Vec<usize> {
    let mut covered = alloc::vec![false; nx];
    for &x in srr.low_risk.iter().chain(srr.groups.iter().flat_map(|(g, _)| g)) {
        covered[x as usize] = true;
    }
    (0..nx).filter(|&x| !covered[x]).collect()
}

/// The shared row of the uncovered inputs of a dense channel (that of the first one).
fn other_row(srr: &Srr, m: &Matrix) -> Vec<f64> {
    uncovered(srr, m.rows()).first().map_or_else(Vec::new, |&x| m.row(x).to_vec())
}

/// The sparse rows of an SRR over `nx` inputs: low-risk input i → output i; input j of
/// group g → `group_row(g, j)` over the group's outputs; every other input → `others()`.
fn srr_rows(
    srr: &Srr,
    nx: usize,
    group_row: impl Fn(usize, usize) -> Result<Vec<f64>>,
    others: impl Fn() -> Result<Vec<f64>>,
) -> Result<Vec<Vec<(usize, f64)>>> {
    let mut rows: Vec<Option<Vec<(usize, f64)>>> = alloc::vec![None; nx];
    for (i, &x) in srr.low_risk.iter().enumerate() {
        rows[x as usize] = Some(alloc::vec![(i, 1.0)]);
    }
    for g in 0..srr.groups.len() {
        let (y0, _) = group_outputs(srr, g);
        for (j, &x) in srr.groups[g].0.iter().enumerate() {
            let row = group_row(g, j)?;
            rows[x as usize] =
                Some(row.iter().enumerate().filter(|(_, &p)| p != 0.0).map(|(y, &p)| (y0 + y, p)).collect());
        }
    }
    let mut other: Option<Vec<(usize, f64)>> = None;
    rows.into_iter()
        .map(|r| match r {
            Some(r) => Ok(r),
            None => {
                if other.is_none() {
                    other =
                        Some(others()?.iter().enumerate().filter(|(_, &p)| p != 0.0).map(|(y, &p)| (y, p)).collect());
                }
                Ok(other.clone().unwrap_or_default())
            }
        })
        .collect()
}

/// κ of k-RR at ε: (e^ε − 1)/(e^ε + k − 1), so that P(x|x)/P(y|x) = e^ε.
pub fn krr_keep(k: usize, eps: f64) -> f64 {
    let g = libm::expm1(eps);
    g / (g + k as f64)
}

/// The JSON form of a structured kind (`None` for the other kinds).
pub(super) fn to_json(kind: &MechanismKind) -> Option<serde_json::Value> {
    Some(match kind {
        MechanismKind::Krr { epsilon: Some(e), .. } => serde_json::json!({"kind": "krr", "epsilon": e}),
        MechanismKind::Krr { epsilon: None, keep } => serde_json::json!({"kind": "krr", "keep": keep}),
        MechanismKind::RrLip { keep, mixing } => serde_json::json!({"kind": "rr_lip", "keep": keep, "mixing": mixing}),
        MechanismKind::Merge { blocks, inner } => {
            let mut v = serde_json::json!({"kind": "merge", "blocks": blocks});
            if let Some(i) = inner {
                v["inner"] = i.to_json();
            }
            v
        }
        MechanismKind::Sparse(s) => s.to_json(),
        _ => return None,
    })
}

/// The `kind` tags of the structured kinds.
pub(super) const KINDS: [&str; 5] = ["krr", "rr_lip", "merge", "sparse", "srr"];

/// Parses a structured kind (one of [`KINDS`]) over `nx` inputs; `field` names the
/// mechanism object (`mechanism`, or `mechanism.inner`).
pub(super) fn parse(field: &str, kind: &str, v: &Json, nx: usize) -> Result<MechanismKind> {
    match kind {
        "krr" => krr(field, v, nx),
        "rr_lip" => rr_lip(field, v, nx),
        "merge" => merge(field, v, nx),
        "sparse" => sparse(field, v, nx),
        "srr" => srr(field, v, nx),
        _ => Err(Error::UnsupportedMechanism { kind: kind.into() }),
    }
}

fn srr(field: &str, v: &Json, nx: usize) -> Result<MechanismKind> {
    let m = object(field, v, &["kind", "low_risk", "groups", "others"])?;
    let input = |f: &str, x: &Json| -> Result<u32> {
        let x = index(f, x)?;
        if x >= nx {
            return Err(Error::InvalidArgument {
                name: f.into(),
                reason: alloc::format!("input {x} is not below |X| = {nx}"),
            });
        }
        Ok(x as u32)
    };
    let fl = alloc::format!("{field}.low_risk");
    let low_risk: Vec<u32> = match m.get("low_risk") {
        None => Vec::new(),
        Some(l) => array(&fl, l)?.iter().map(|x| input(&fl, x)).collect::<Result<_>>()?,
    };
    let fg = alloc::format!("{field}.groups");
    let mut groups = Vec::new();
    let mut blocks = Vec::new();
    for (g, gv) in array(&fg, required(field, m, "groups")?)?.iter().enumerate() {
        let f = alloc::format!("{fg}[{g}]");
        let gm = object(&f, gv, &["inputs", "p_y_given_x"])?;
        let fi = alloc::format!("{f}.inputs");
        let inputs: Vec<u32> =
            array(&fi, required(&f, gm, "inputs")?)?.iter().map(|x| input(&fi, x)).collect::<Result<_>>()?;
        let fr = alloc::format!("{f}.p_y_given_x");
        let rows = super::fields::rows(&fr, required(&f, gm, "p_y_given_x")?.clone())?;
        if rows.len() != inputs.len() || inputs.is_empty() {
            return Err(Error::field(fr).dims(inputs.len().max(1), rows.len()));
        }
        let block = channel(&fr, &rows, inputs.len())?;
        groups.push((inputs, block.cols()));
        blocks.push(block);
    }
    let srr = Srr { low_risk, groups };
    let mut seen = alloc::vec![false; nx];
    for &x in srr.low_risk.iter().chain(srr.groups.iter().flat_map(|(g, _)| g)) {
        if core::mem::replace(&mut seen[x as usize], true) {
            return Err(Error::InvalidArgument {
                name: field.into(),
                reason: alloc::format!("input {x} is listed twice"),
            });
        }
    }
    let outputs = srr.low_risk.len() + srr.groups.iter().map(|(_, r)| r).sum::<usize>();
    let fo = alloc::format!("{field}.others");
    let others = match m.get("others") {
        None | Some(Json::Null) => None,
        Some(o) => {
            let o = numbers(&fo, o)?;
            if o.len() != outputs {
                return Err(Error::field(fo).dims(outputs, o.len()));
            }
            check_distribution(&fo, &o)?;
            Some(o)
        }
    };
    if others.is_none() != uncovered(&srr, nx).is_empty() {
        return Err(Error::InvalidArgument {
            name: fo,
            reason: "is required exactly when some input is neither low-risk nor in a group".into(),
        });
    }
    let rows = srr_rows(&srr, nx, |g, j| Ok(blocks[g].row(j).to_vec()), || Ok(others.clone().unwrap_or_default()))?;
    let mut sparse = Sparse::new(field, outputs, &rows)?;
    sparse.srr = Some(srr);
    Ok(MechanismKind::Sparse(sparse))
}

fn krr(field: &str, v: &Json, nx: usize) -> Result<MechanismKind> {
    let m = object(field, v, &["kind", "epsilon", "keep"])?;
    match (optional_number(field, m, "epsilon")?, optional_number(field, m, "keep")?) {
        (Some(e), None) => {
            let e = Epsilon::new(&alloc::format!("{field}.epsilon"), e)?.get();
            Ok(MechanismKind::Krr { epsilon: Some(e), keep: krr_keep(nx, e) })
        }
        (None, Some(k)) => Ok(MechanismKind::Krr { epsilon: None, keep: keep(field, k)? }),
        _ => Err(Error::InvalidArgument {
            name: field.into(),
            reason: "a `krr` mechanism gives exactly one of `epsilon` and `keep`".into(),
        }),
    }
}

fn keep(field: &str, k: f64) -> Result<f64> {
    let name = alloc::format!("{field}.keep");
    let k = Probability::new(&name, k)?.get();
    check_not_tiny(&name, &[k])?;
    Ok(k)
}

fn rr_lip(field: &str, v: &Json, nx: usize) -> Result<MechanismKind> {
    let m = object(field, v, &["kind", "keep", "mixing"])?;
    let k = keep(field, number(&alloc::format!("{field}.keep"), required(field, m, "keep")?)?)?;
    let f = alloc::format!("{field}.mixing");
    let mixing = numbers(&f, required(field, m, "mixing")?)?;
    if mixing.len() != nx {
        return Err(Error::field(f).dims(nx, mixing.len()));
    }
    check_distribution(&f, &mixing)?;
    Ok(MechanismKind::RrLip { keep: k, mixing })
}

fn merge(field: &str, v: &Json, nx: usize) -> Result<MechanismKind> {
    let m = object(field, v, &["kind", "blocks", "inner"])?;
    let f = alloc::format!("{field}.blocks");
    let blocks = array(&f, required(field, m, "blocks")?)?;
    if blocks.len() != nx {
        return Err(Error::field(f).dims(nx, blocks.len()));
    }
    let blocks: Vec<usize> = blocks.iter().map(|b| index(&f, b)).collect::<Result<_>>()?;
    let nb = blocks.iter().max().map_or(0, |&b| b.saturating_add(1));
    if nb > nx {
        return Err(Error::InvalidArgument {
            name: f,
            reason: alloc::format!("block {} does not exist: blocks are numbered 0..B−1 with B ≤ |X| = {nx}", nb - 1),
        });
    }
    let mut used = alloc::vec![false; nb];
    for &b in &blocks {
        used[b] = true;
    }
    if let Some(b) = used.iter().position(|u| !u) {
        return Err(Error::InvalidArgument { name: f, reason: alloc::format!("block {b} has no input") });
    }
    let inner = match m.get("inner") {
        None | Some(Json::Null) => None,
        Some(v) => {
            let fi = alloc::format!("{field}.inner");
            let kind = v
                .get("kind")
                .and_then(Json::as_str)
                .ok_or_else(|| Error::Json { message: alloc::format!("`{fi}.kind` is missing or not a string") })?;
            let inner = match kind {
                "matrix" => super::parse_matrix(&fi, v.clone(), nb)?,
                "krr" | "rr_lip" | "sparse" => parse(&fi, kind, v, nb)?,
                _ => {
                    return Err(Error::InvalidArgument {
                        name: fi,
                        reason: alloc::format!(
                            "a merge's inner mechanism is `matrix`, `sparse`, `krr` or `rr_lip`, not {}",
                            crate::error::Quoted(kind)
                        ),
                    })
                }
            };
            Some(Box::new(inner))
        }
    };
    Ok(MechanismKind::Merge { blocks: blocks.iter().map(|&b| b as u32).collect(), inner })
}

fn sparse(field: &str, v: &Json, nx: usize) -> Result<MechanismKind> {
    let m = object(field, v, &["kind", "outputs", "rows"])?;
    let outputs = index(&alloc::format!("{field}.outputs"), required(field, m, "outputs")?)?;
    let f = alloc::format!("{field}.rows");
    let rows = array(&f, required(field, m, "rows")?)?;
    if rows.len() != nx {
        return Err(Error::field(f).dims(nx, rows.len()));
    }
    let rows: Vec<Vec<(usize, f64)>> = rows
        .iter()
        .map(|r| {
            array(&f, r)?
                .iter()
                .map(|pair| match array(&f, pair)? {
                    [y, p] => Ok((index(&f, y)?, number(&f, p)?)),
                    _ => Err(Error::Json { message: alloc::format!("`{f}`: an entry is a pair [y, p]") }),
                })
                .collect()
        })
        .collect::<Result<_>>()?;
    Ok(MechanismKind::Sparse(Sparse::new(field, outputs, &rows)?))
}

/// The number of outputs of a structured kind over `nx` inputs.
pub(super) fn outputs(kind: &MechanismKind, nx: usize) -> usize {
    match kind {
        MechanismKind::Krr { .. } | MechanismKind::RrLip { .. } => nx,
        MechanismKind::Merge { blocks, inner } => {
            let nb = block_count(blocks);
            inner.as_ref().map_or(nb, |i| outputs(i, nb))
        }
        MechanismKind::Sparse(s) => s.outputs(),
        MechanismKind::Matrix(m) => m.cols(),
        MechanismKind::PerSecret { p_y_given_sx, .. } => p_y_given_sx[0].cols(),
        MechanismKind::Unary { .. } => nx,
    }
}
