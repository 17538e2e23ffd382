//! The structured mechanism kinds: `krr`, `rr_lip`, `merge` and `sparse`. Each states a
//! channel P(Y|X) in O(k) (or O(non-zeros)) numbers instead of a dense k × k matrix, and
//! each is validated here as strictly as a `matrix`: every probability finite, non-negative,
//! not below [`MIN_PROBABILITY`], every row a distribution.

use alloc::boxed::Box;
use alloc::vec::Vec;

use super::fields::{array, index, indices, number, numbers, object, optional_number, required, take};
use super::{channel, Json, Matrix, MechanismKind, MAX_SYMBOLS};
use crate::error::{Error, Result};
use crate::param::{check_distribution, check_not_tiny, Epsilon, Probability};

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
    fn from_srr<'a>(
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

/// κ of k-RR at ε: (e^ε − 1)/(e^ε + k − 1), so that P(x|x)/P(y|x) = e^ε.
pub fn krr_keep(k: usize, eps: Epsilon) -> f64 {
    let g = libm::expm1(eps.get());
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
pub(super) fn parse(field: &str, kind: &str, v: Json, nx: usize) -> Result<MechanismKind> {
    match kind {
        "krr" => krr(field, &v, nx),
        "rr_lip" => rr_lip(field, &v, nx),
        "merge" => merge(field, v, nx),
        "sparse" => sparse(field, &v, nx),
        "srr" => srr(field, v, nx),
        _ => Err(Error::UnsupportedMechanism { kind: kind.into() }),
    }
}

fn srr(field: &str, mut v: Json, nx: usize) -> Result<MechanismKind> {
    let m = object(field, &v, &["kind", "low_risk", "groups", "others"])?;
    let inputs = |f: &str, list: &Json| -> Result<Vec<u32>> {
        indices(f, list)?
            .into_iter()
            .map(|x| match x < nx {
                true => Ok(x as u32),
                false => Err(Error::invalid(f, alloc::format!("input {x} is not below |X| = {nx}"))),
            })
            .collect()
    };
    let fl = alloc::format!("{field}.low_risk");
    let low_risk: Vec<u32> = match m.get("low_risk") {
        None => Vec::new(),
        Some(l) => inputs(&fl, l)?,
    };
    let fo = alloc::format!("{field}.others");
    let others = match m.get("others") {
        None | Some(Json::Null) => None,
        Some(o) => Some(numbers(&fo, o)?),
    };
    required(field, m, "groups")?;
    let fg = alloc::format!("{field}.groups");
    // Moved out, so that each group's numbers move into its block.
    let group_values = match take(&mut v, "groups") {
        Json::Array(a) => a,
        other => array(&fg, &other)?.to_vec(),
    };
    let mut groups = Vec::new();
    let mut blocks = Vec::new();
    for (g, mut gv) in group_values.into_iter().enumerate() {
        let f = alloc::format!("{fg}[{g}]");
        let gm = object(&f, &gv, &["inputs", "p_y_given_x"])?;
        let members = inputs(&alloc::format!("{f}.inputs"), required(&f, gm, "inputs")?)?;
        required(&f, gm, "p_y_given_x")?;
        let fr = alloc::format!("{f}.p_y_given_x");
        let rows = take(&mut gv, "p_y_given_x");
        if members.is_empty() {
            return Err(Error::field(fr.clone()).dims(1, super::fields::rows(&fr, rows)?.len()));
        }
        let block = channel(&fr, rows, members.len())?;
        groups.push((members, block.cols()));
        blocks.push(block);
    }
    let srr = Srr { low_risk, groups };
    let outputs = srr.low_risk.len().saturating_add(srr.groups.iter().map(|(_, r)| r).sum::<usize>());
    if let Some(o) = &others {
        if o.len() != outputs {
            return Err(Error::field(fo).dims(outputs, o.len()));
        }
        check_distribution(&fo, o)?;
    }
    if others.is_none() != uncovered(&srr, nx).is_empty() {
        return Err(Error::invalid(fo, "is required exactly when some input is neither low-risk nor in a group"));
    }
    let sparse = Sparse::from_srr(field, nx, outputs, srr, &|g, j| blocks[g].row(j), others.as_deref().unwrap_or(&[]))?;
    Ok(MechanismKind::Sparse(sparse))
}

fn krr(field: &str, v: &Json, nx: usize) -> Result<MechanismKind> {
    let m = object(field, v, &["kind", "epsilon", "keep"])?;
    match (optional_number(field, m, "epsilon")?, optional_number(field, m, "keep")?) {
        (Some(e), None) => {
            let e = Epsilon::new(&alloc::format!("{field}.epsilon"), e)?;
            Ok(MechanismKind::Krr { epsilon: Some(e.get()), keep: krr_keep(nx, e) })
        }
        (None, Some(k)) => Ok(MechanismKind::Krr { epsilon: None, keep: keep(field, k)? }),
        _ => Err(Error::invalid(field, "a `krr` mechanism gives exactly one of `epsilon` and `keep`")),
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

fn merge(field: &str, mut v: Json, nx: usize) -> Result<MechanismKind> {
    let m = object(field, &v, &["kind", "blocks", "inner"])?;
    let f = alloc::format!("{field}.blocks");
    let blocks = indices(&f, required(field, m, "blocks")?)?;
    if blocks.len() != nx {
        return Err(Error::field(f).dims(nx, blocks.len()));
    }
    let nb = blocks.iter().max().map_or(0, |&b| b.saturating_add(1));
    if nb > nx {
        return Err(Error::invalid(
            f,
            alloc::format!("block {} does not exist: blocks are numbered 0..B−1 with B ≤ |X| = {nx}", nb - 1),
        ));
    }
    let mut used = alloc::vec![false; nb];
    for &b in &blocks {
        used[b] = true;
    }
    if let Some(b) = used.iter().position(|u| !u) {
        return Err(Error::invalid(f, alloc::format!("block {b} has no input")));
    }
    let inner = match take(&mut v, "inner") {
        Json::Null => None,
        v => {
            let fi = alloc::format!("{field}.inner");
            let kind: alloc::string::String = v
                .get("kind")
                .and_then(Json::as_str)
                .ok_or_else(|| Error::Json { message: alloc::format!("`{fi}.kind` is missing or not a string") })?
                .into();
            let inner = match kind.as_str() {
                "matrix" => super::parse_matrix(&fi, v, nb)?,
                "krr" | "rr_lip" | "sparse" => parse(&fi, &kind, v, nb)?,
                _ => {
                    return Err(Error::invalid(
                        fi,
                        alloc::format!(
                            "a merge's inner mechanism is `matrix`, `sparse`, `krr` or `rr_lip`, not {}",
                            crate::error::Quoted(&kind)
                        ),
                    ))
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
    let rows: Vec<Vec<(usize, f64)>> = match required(field, m, "rows")? {
        // Rows with no pair (or numbers where pairs belong) are read as rows of numbers.
        Json::Numbers(n) if n.is_rows() => (0..n.len())
            .map(|i| match n.row(i) {
                Some(r) if r.is_empty() => Ok(Vec::new()),
                _ => Err(Error::Json { message: alloc::format!("`{f}`: expected an array") }),
            })
            .collect::<Result<_>>()?,
        rows => array(&f, rows)?.iter().map(|r| pairs(&f, r)).collect::<Result<_>>()?,
    };
    if rows.len() != nx {
        return Err(Error::field(f).dims(nx, rows.len()));
    }
    Ok(MechanismKind::Sparse(Sparse::new(field, outputs, &rows)?))
}

/// A sparse row: its pairs [y, p] (from the reader, flat: [`Json::Numbers`] of rows of two).
fn pairs(f: &str, r: &Json) -> Result<Vec<(usize, f64)>> {
    let pair = || Error::Json { message: alloc::format!("`{f}`: an entry is a pair [y, p]") };
    match r {
        Json::Numbers(n) if n.is_rows() => (0..n.len())
            .map(|i| match n.row(i) {
                Some(p) if p.len() == 2 => Ok((index(f, &Json::Number(n.num(p.start)))?, n.values()[p.start + 1])),
                _ => Err(pair()),
            })
            .collect(),
        Json::Numbers(_) => Err(Error::Json { message: alloc::format!("`{f}`: expected an array") }),
        r => array(f, r)?
            .iter()
            .map(|p| match p {
                Json::Numbers(n) if !n.is_rows() => match n.len() {
                    2 => Ok((index(f, &Json::Number(n.num(0)))?, n.values()[1])),
                    _ => Err(pair()),
                },
                p => match array(f, p)? {
                    [y, p] => Ok((index(f, y)?, number(f, p)?)),
                    _ => Err(pair()),
                },
            })
            .collect(),
    }
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
