//! The structured mechanism kinds: `krr`, `rr_lip`, `merge` and `sparse`. Each states a
//! channel P(Y|X) in O(k) (or O(non-zeros)) numbers instead of a dense k × k matrix, and
//! each is validated here as strictly as a `matrix`: every probability finite, non-negative,
//! not below [`MIN_PROBABILITY`], every row a distribution. A `sparse` or `srr` channel is
//! held as a [`Sparse`]. The `mechanism` object of every kind is written back here too
//! ([`MechanismKind::to_json`]): a `merge` writes its inner kind.

use alloc::boxed::Box;
use alloc::vec::Vec;

use super::fields::{array, index, indices, number, numbers, object, optional_number, required, take};
use super::sparse::{uncovered, Sparse, Srr};
use super::{block_count, channel, Json, Matrix, MechanismKind};
use crate::error::{Error, Result};
use crate::param::{check_distribution, check_not_tiny, Epsilon, Probability};

/// κ of k-RR at ε: (e^ε − 1)/(e^ε + k − 1), so that P(x|x)/P(y|x) = e^ε.
///
/// # Errors
/// `invalid_argument` for k = 0 (κ is in [0, 1) for every k ≥ 1).
pub fn krr_keep(k: usize, eps: Epsilon) -> Result<Probability> {
    let g = libm::expm1(eps.get());
    Probability::new("keep", g / (g + k as f64))
}

/// The JSON form of a structured kind (`None` for the other kinds).
pub(super) fn to_json(kind: &MechanismKind) -> Option<serde_json::Value> {
    Some(match kind {
        MechanismKind::Krr { epsilon: Some(e), .. } => serde_json::json!({"kind": "krr", "epsilon": e.get()}),
        MechanismKind::Krr { epsilon: None, keep } => serde_json::json!({"kind": "krr", "keep": keep.get()}),
        MechanismKind::RrLip { keep, mixing } => {
            serde_json::json!({"kind": "rr_lip", "keep": keep.get(), "mixing": mixing})
        }
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

impl MechanismKind {
    /// The `mechanism` object, built with `json!` (the curator side only: the clients never
    /// write a discrete document), then made a [`Json`] by the caller.
    pub(super) fn to_json(&self) -> serde_json::Value {
        if let Some(v) = to_json(self) {
            return v;
        }
        match self {
            MechanismKind::Matrix(m) => serde_json::json!({"kind": "matrix", "p_y_given_x": m.to_rows()}),
            MechanismKind::PerSecret { p_y_given_sx, markov } => {
                let mut v = serde_json::json!({
                    "kind": "per_secret",
                    "p_y_given_sx": p_y_given_sx.iter().map(Matrix::to_rows).collect::<Vec<_>>(),
                });
                if let Some(m) = markov {
                    v["p_y_given_x"] = serde_json::json!(m.to_rows());
                }
                v
            }
            MechanismKind::Unary { q01, q10 } => {
                serde_json::json!({"kind": "unary", "q01": q01.get(), "q10": q10.get()})
            }
            _ => serde_json::Value::Null,
        }
    }
}

/// The `kind` tags of the structured kinds.
pub(super) const KINDS: [&str; 5] = ["krr", "rr_lip", "merge", "sparse", "srr"];

/// Parses a structured kind (one of [`KINDS`]) over `nx` inputs; `field` names the
/// mechanism object (`mechanism`, or `mechanism.inner`). Each kind's reader is kept out of
/// line, so that a page's first parse compiles only the one it calls (V8 compiles a wasm
/// function at its first call: `benches/wasm/cold.mjs`).
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

#[inline(never)]
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

#[inline(never)]
fn krr(field: &str, v: &Json, nx: usize) -> Result<MechanismKind> {
    let m = object(field, v, &["kind", "epsilon", "keep"])?;
    match (optional_number(field, m, "epsilon")?, optional_number(field, m, "keep")?) {
        (Some(e), None) => {
            let e = Epsilon::new(&alloc::format!("{field}.epsilon"), e)?;
            Ok(MechanismKind::Krr { epsilon: Some(e), keep: krr_keep(nx, e)? })
        }
        (None, Some(k)) => Ok(MechanismKind::Krr { epsilon: None, keep: keep(field, k)? }),
        _ => Err(Error::invalid(field, "a `krr` mechanism gives exactly one of `epsilon` and `keep`")),
    }
}

/// κ as a document gives it: a probability, and not below `MIN_PROBABILITY` unless 0.
fn keep(field: &str, k: f64) -> Result<Probability> {
    let name = alloc::format!("{field}.keep");
    let k = Probability::new(&name, k)?;
    check_not_tiny(&name, &[k.get()])?;
    Ok(k)
}

#[inline(never)]
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

#[inline(never)]
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

#[inline(never)]
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
