//! The inputs of a design as data: the shapes the CLI reads from files (P.json, J.json,
//! PS.json, D.json, M.json) and the JS binding receives as objects, and their validation
//! with the same rules and codes as documents.

use alloc::vec::Vec;
use serde::Deserialize;

use super::Source;
use privlift::leakage::MAX_SRLIP_ATTRIBUTES;

use privlift::document::{
    check_distribution, matrix_check_entries, Alphabet, LabelJson, Matrix, MAX_PRIORS, MAX_SYMBOLS,
};
use privlift::error::{Error, Result};

/// `M.json`: the channel P(Y|X), rows x, columns y.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatrixFile {
    /// P(y|x): one row per input x, each a distribution over the outputs y.
    pub p_y_given_x: Vec<Vec<f64>>,
}

/// `P.json`: the prior of X (the secret is X itself).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriorFile {
    /// The symbols of X; the indices `"0"`, …, `n-1` when absent.
    #[serde(default)]
    pub labels: Option<Vec<LabelJson>>,
    /// P_X, one probability per symbol.
    pub p: Vec<f64>,
}

/// `J.json`: the joint of S and X, rows s, columns x.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JointFile {
    /// The symbols of S (the rows of `p_sx`); indices when absent.
    #[serde(default)]
    pub secret_labels: Option<Vec<LabelJson>>,
    /// The symbols of X (the columns of `p_sx`); indices when absent. Not with `attributes`.
    #[serde(default)]
    pub labels: Option<Vec<LabelJson>>,
    /// P_SX: one row per secret s, one column per input x, summing to 1.
    pub p_sx: Vec<Vec<f64>>,
    /// A multi-attribute X = (X¹,…,Xᵐ) instead of `labels`: the columns of `p_sx` are
    /// the tuples, flattened row-major (read by the `srlip` designer).
    #[serde(default)]
    pub attributes: Option<Vec<AttributeFile>>,
}

/// `PS.json`: a finite set of priors of X (for BP-LIP).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriorsFile {
    /// The symbols of X; indices when absent.
    #[serde(default)]
    pub labels: Option<Vec<LabelJson>>,
    /// The priors of X, each a distribution over the symbols.
    pub priors: Vec<Vec<f64>>,
}

/// `D.json`: a distortion d\[x\]\[y\].
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DistortionFile {
    /// `d[x][y]`: the cost of releasing y for the input x.
    pub d: Vec<Vec<f64>>,
}

/// Alphabet size checks in the order and with the codes a document gets.
pub fn check_size(field: &str, n: usize) -> Result<()> {
    if n == 0 {
        return Err(Error::EmptyAlphabet { field: field.into() });
    }
    if n > MAX_SYMBOLS {
        return Err(Error::TooManySymbols { field: field.into(), found: n, max: MAX_SYMBOLS });
    }
    Ok(())
}

/// Optional labels (unique, at most [`MAX_SYMBOLS`], exactly `n` of them), or the
/// indices `"0"`, …, `n-1` when absent.
pub fn labels_or_indices(field: &str, labels: Option<Vec<LabelJson>>, n: usize) -> Result<Alphabet> {
    match labels {
        None => Alphabet::indices(field, n),
        Some(l) => {
            let a = Alphabet::new(field, l.into_iter().map(LabelJson::into_string).collect())?;
            if a.len() != n {
                return Err(Error::DimensionMismatch { field: field.into(), expected: n, found: a.len() });
            }
            Ok(a)
        }
    }
}

/// A validated channel.
pub fn load_matrix(f: MatrixFile) -> Result<Matrix> {
    check_size("p_y_given_x", f.p_y_given_x.len())?;
    let ny = f.p_y_given_x[0].len();
    check_size("p_y_given_x[0]", ny)?;
    let m = Matrix::from_rows("p_y_given_x", &f.p_y_given_x, ny)?;
    m.check_row_stochastic("p_y_given_x")?;
    Ok(m)
}

/// A validated prior: its labels (indices when absent) and p.
pub fn load_prior(f: PriorFile) -> Result<(Alphabet, Vec<f64>)> {
    check_size("p", f.p.len())?;
    let labels = labels_or_indices("labels", f.labels, f.p.len())?;
    check_distribution("p", &f.p)?;
    Ok((labels, f.p))
}

/// A validated joint: secret labels, input labels (indices when absent) and P_SX.
/// `nx` is the number of inputs the caller expects (the channel's rows), if any;
/// otherwise the first row decides.
pub fn load_joint(f: JointFile, nx: Option<usize>) -> Result<(Alphabet, Alphabet, Matrix)> {
    if f.attributes.is_some() {
        // A multi-attribute joint is also a joint over its flattened tuples.
        let j = load_multi_joint(f)?;
        match nx {
            Some(n) if n != j.labels().len() => return Err(Error::field("p_sx[0]").dims(n, j.labels().len())),
            _ => return Ok((j.secret().clone(), j.labels().clone(), j.p_sx().clone())),
        }
    }
    check_size("p_sx", f.p_sx.len())?;
    let nx = match nx {
        Some(n) => n,
        None => {
            let n = f.p_sx[0].len();
            check_size("p_sx[0]", n)?;
            n
        }
    };
    let m = Matrix::from_rows("p_sx", &f.p_sx, nx)?;
    m.check_joint("p_sx")?;
    let secret = labels_or_indices("secret_labels", f.secret_labels, m.rows())?;
    let labels = labels_or_indices("labels", f.labels, nx)?;
    Ok((secret, labels, m))
}

/// A set of priors: labels (indices when absent) and the priors as given (each one is
/// checked by the designer, which names it `priors[i]`).
pub fn load_priors(f: PriorsFile) -> Result<(Alphabet, Vec<Vec<f64>>)> {
    let Some(first) = f.priors.first() else {
        return Err(Error::invalid("priors", "need at least one prior"));
    };
    let k = first.len();
    check_size("priors[0]", k)?;
    let labels = labels_or_indices("labels", f.labels, k)?;
    Ok((labels, f.priors))
}

/// A distortion matrix (square; its size and entries are checked by the designer).
pub fn load_distortion(f: DistortionFile) -> Result<Matrix> {
    check_size("d", f.d.len())?;
    let ny = f.d[0].len();
    check_size("d[0]", ny)?;
    Matrix::from_rows("d", &f.d, ny)
}

/// One attribute of a multi-attribute joint file: its labels.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttributeFile {
    /// The symbols of this attribute Xʲ.
    pub labels: Vec<LabelJson>,
}

/// A validated distortion for `k` symbols: `k × k`, finite, non-negative.
pub fn checked_distortion(f: DistortionFile, k: usize) -> Result<Matrix> {
    let d = load_distortion(f)?;
    if d.rows() != k {
        return Err(Error::DimensionMismatch { field: "d".into(), expected: k, found: d.rows() });
    }
    if d.cols() != k {
        return Err(Error::DimensionMismatch { field: "d[0]".into(), expected: k, found: d.cols() });
    }
    for x in 0..k {
        matrix_check_entries(&alloc::format!("d[{x}]"), d.row(x))?;
    }
    Ok(d)
}

/// A validated set of priors (each of length |labels|, at most [`MAX_PRIORS`]).
pub fn checked_priors(f: PriorsFile) -> Result<(Alphabet, Vec<Vec<f64>>)> {
    let (labels, priors) = load_priors(f)?;
    if priors.len() > MAX_PRIORS {
        return Err(Error::invalid("priors", alloc::format!("needs 1..={MAX_PRIORS} priors, got {}", priors.len())));
    }
    for (i, p) in priors.iter().enumerate() {
        let field = alloc::format!("priors[{i}]");
        if p.len() != labels.len() {
            return Err(Error::DimensionMismatch { field, expected: labels.len(), found: p.len() });
        }
        check_distribution(&field, p)?;
    }
    Ok((labels, priors))
}

/// A joint P(S, X¹, …, Xᵐ): rows s, columns the tuples x = (x¹,…,xᵐ) flattened
/// row-major (attribute 1 most significant, see [`privlift::document::Srlip`]).
#[derive(Debug, Clone)]
pub struct MultiJoint {
    secret: Alphabet,
    attributes: Vec<Alphabet>,
    labels: Alphabet,
    p_sx: Matrix,
}

impl MultiJoint {
    /// A validated multi-attribute joint.
    ///
    /// # Errors
    /// `invalid_argument` for 0 or more than [`MAX_SRLIP_ATTRIBUTES`] attributes;
    /// `too_many_symbols` when Π|Xʲ| exceeds [`privlift::document::MAX_SYMBOLS`];
    /// `dimension_mismatch` when P_SX does not have |S| rows and Π|Xʲ| columns;
    /// `negative_probability`, `non_finite`, `not_normalized` for a bad joint.
    pub fn new(secret: Alphabet, attributes: Vec<Alphabet>, p_sx: Matrix) -> Result<Self> {
        if attributes.is_empty() || attributes.len() > MAX_SRLIP_ATTRIBUTES {
            return Err(Error::invalid(
                "attributes",
                alloc::format!("needs 1..={MAX_SRLIP_ATTRIBUTES} attributes, got {}", attributes.len()),
            ));
        }
        let nx = product_size(&attributes.iter().map(Alphabet::len).collect::<Vec<_>>())?;
        if p_sx.rows() != secret.len() {
            return Err(Error::field("p_sx").dims(secret.len(), p_sx.rows()));
        }
        if p_sx.cols() != nx {
            return Err(Error::field("p_sx[0]").dims(nx, p_sx.cols()));
        }
        p_sx.check_joint("p_sx")?;
        let labels = tuple_labels("labels", &attributes)?;
        Ok(MultiJoint { secret, attributes, labels, p_sx })
    }

    /// |X¹|, …, |Xᵐ|.
    pub fn sizes(&self) -> Vec<usize> {
        self.attributes.iter().map(Alphabet::len).collect()
    }
    /// The alphabets of X¹, …, Xᵐ.
    pub fn attributes(&self) -> &[Alphabet] {
        &self.attributes
    }
    /// The symbols of the secret S (the rows of [`Self::p_sx`]).
    pub fn secret(&self) -> &Alphabet {
        &self.secret
    }
    /// The tuple labels of X (see [`tuple_labels`]).
    pub fn labels(&self) -> &Alphabet {
        &self.labels
    }
    /// P_SX over the flattened tuples.
    pub fn p_sx(&self) -> &Matrix {
        &self.p_sx
    }

    /// The same joint as a single-attribute design source (X flattened).
    pub fn source(&self) -> Result<Source> {
        Source::joint(self.secret.clone(), self.labels.clone(), self.p_sx.clone())
    }

    /// P(Tʲ, Xʲ) with Tʲ = (S, X^{−j}): rows t = s·(|X|/|Xʲ|) + x^{−j} (the other
    /// attributes flattened row-major), columns xʲ.
    pub fn side_joint(&self, j: usize) -> Matrix {
        let sizes = self.sizes();
        let (nx, aj) = (self.p_sx.cols(), sizes[j]);
        let rest = nx / aj;
        let inner: usize = sizes[j + 1..].iter().product();
        let mut m = vec![0.0; self.p_sx.rows() * rest * aj];
        for s in 0..self.p_sx.rows() {
            for x in 0..nx {
                let (hi, xj, lo) = (x / (inner * aj), (x / inner) % aj, x % inner);
                let t = s * rest + hi * inner + lo;
                m[t * aj + xj] = self.p_sx.get(s, x);
            }
        }
        Matrix::from_flat(self.p_sx.rows() * rest, aj, m)
    }
}

/// Π sizes, checked against [`privlift::document::MAX_SYMBOLS`] (`too_many_symbols`, also on
/// overflow) and for empty attributes (`empty_alphabet`).
fn product_size(sizes: &[usize]) -> Result<usize> {
    let mut n = 1usize;
    for (j, &a) in sizes.iter().enumerate() {
        check_size(&alloc::format!("attributes[{j}].labels"), a)?;
        n = n.saturating_mul(a);
    }
    check_size("attributes", n)?;
    Ok(n)
}

/// The labels of the flattened tuples: the attribute labels joined by `,` (e.g.
/// `"young,F,yes"`), or, when some attribute label contains a `,`, each tuple as a JSON
/// array of strings (e.g. `["a,b","F"]`), so that labels are always unambiguous.
pub fn tuple_labels(field: &str, attributes: &[Alphabet]) -> Result<Alphabet> {
    let json = attributes.iter().any(|a| a.labels().iter().any(|l| l.contains(',')));
    let sizes: Vec<usize> = attributes.iter().map(Alphabet::len).collect();
    let n = product_size(&sizes)?;
    let mut out = Vec::with_capacity(n);
    let mut digits = vec![0usize; sizes.len()];
    for _ in 0..n {
        let parts: Vec<&str> = digits.iter().zip(attributes).map(|(&d, a)| &a.labels()[d]).collect();
        out.push(if json { serde_json::to_string(&parts).unwrap_or_default() } else { parts.join(",") });
        for j in (0..sizes.len()).rev() {
            digits[j] += 1;
            if digits[j] < sizes[j] {
                break;
            }
            digits[j] = 0;
        }
    }
    Alphabet::new(field, out)
}

/// A validated multi-attribute J.json: `attributes` (each with its `labels`), optional
/// `secret_labels`, and `p_sx` with rows s and columns the flattened tuples
/// (docs/cli.md). `labels` must be absent (the tuples are named by [`tuple_labels`]).
///
/// # Errors
/// `invalid_argument` without `attributes` or with `labels`; `duplicate_label`,
/// `empty_alphabet`; and the errors of [`MultiJoint::new`].
pub fn load_multi_joint(f: JointFile) -> Result<MultiJoint> {
    let Some(attrs) = f.attributes else {
        return Err(Error::invalid(
            "attributes",
            "a multi-attribute joint needs `attributes: [{\"labels\": [...]}, ...]`",
        ));
    };
    if f.labels.is_some() {
        return Err(Error::invalid(
            "labels",
            "a multi-attribute joint names its inputs by `attributes`; drop `labels`",
        ));
    }
    if attrs.is_empty() || attrs.len() > MAX_SRLIP_ATTRIBUTES {
        return Err(Error::invalid(
            "attributes",
            alloc::format!("needs 1..={MAX_SRLIP_ATTRIBUTES} attributes, got {}", attrs.len()),
        ));
    }
    let attributes = attrs
        .into_iter()
        .enumerate()
        .map(|(j, a)| {
            Alphabet::new(
                &alloc::format!("attributes[{j}].labels"),
                a.labels.into_iter().map(LabelJson::into_string).collect(),
            )
        })
        .collect::<Result<Vec<_>>>()?;
    let nx = product_size(&attributes.iter().map(Alphabet::len).collect::<Vec<_>>())?;
    check_size("p_sx", f.p_sx.len())?;
    let p_sx = Matrix::from_rows("p_sx", &f.p_sx, nx)?;
    let secret = labels_or_indices("secret_labels", f.secret_labels, p_sx.rows())?;
    MultiJoint::new(secret, attributes, p_sx)
}
