//! The CLI's input files (M.json, P.json, J.json, PS.json, D.json): reading, parsing and
//! validation with the same rules and error codes as documents. Shared by `audit` and
//! `design`.

use privlift::spec::{check_distribution, Alphabet, LabelJson, Matrix, MAX_SYMBOLS};
use privlift::Error;
use serde::Deserialize;

use crate::CliError;

/// `M.json`: the channel P(Y|X), rows x, columns y.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatrixFile {
    p_y_given_x: Vec<Vec<f64>>,
}

/// `P.json`: the prior of X (the secret is X itself).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriorFile {
    #[serde(default)]
    labels: Option<Vec<LabelJson>>,
    p: Vec<f64>,
}

/// `J.json`: the joint of S and X, rows s, columns x.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JointFile {
    #[serde(default)]
    secret_labels: Option<Vec<LabelJson>>,
    #[serde(default)]
    labels: Option<Vec<LabelJson>>,
    p_sx: Vec<Vec<f64>>,
}

/// `PS.json`: a finite set of priors of X (for BP-LIP).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriorsFile {
    #[serde(default)]
    labels: Option<Vec<LabelJson>>,
    priors: Vec<Vec<f64>>,
}

/// `D.json`: a distortion d[x][y].
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DistortionFile {
    d: Vec<Vec<f64>>,
}

/// Reads a file as UTF-8 text. A missing or unreadable file is `io`; bytes that are not
/// UTF-8 are `json` (the file is not a JSON text).
pub fn read(path: &str) -> Result<String, CliError> {
    let bytes = std::fs::read(path).map_err(|e| CliError::io(format!("cannot read {path}"), e))?;
    String::from_utf8(bytes).map_err(|e| CliError::in_file(path, Error::Json { message: format!("not UTF-8: {e}") }))
}

/// Reads and deserialises a JSON file (`json` on syntax, missing or unknown fields).
pub fn parse_file<T: serde::de::DeserializeOwned>(path: &str) -> Result<T, CliError> {
    serde_json::from_str(&read(path)?).map_err(|e| CliError::in_file(path, Error::Json { message: e.to_string() }))
}

/// Alphabet size checks in the order and with the codes a document gets.
pub fn check_size(field: &str, n: usize) -> Result<(), Error> {
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
pub fn labels_or_indices(field: &str, labels: Option<Vec<LabelJson>>, n: usize) -> Result<Alphabet, Error> {
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
pub fn load_matrix(f: MatrixFile) -> Result<Matrix, Error> {
    check_size("p_y_given_x", f.p_y_given_x.len())?;
    let ny = f.p_y_given_x[0].len();
    check_size("p_y_given_x[0]", ny)?;
    let m = Matrix::from_rows("p_y_given_x", &f.p_y_given_x, ny)?;
    m.check_row_stochastic("p_y_given_x")?;
    Ok(m)
}

/// A validated prior: its labels (indices when absent) and p.
pub fn load_prior(f: PriorFile) -> Result<(Alphabet, Vec<f64>), Error> {
    check_size("p", f.p.len())?;
    let labels = labels_or_indices("labels", f.labels, f.p.len())?;
    check_distribution("p", &f.p)?;
    Ok((labels, f.p))
}

/// A validated joint: secret labels, input labels (indices when absent) and P_SX.
/// `nx` is the number of inputs the caller expects (the channel's rows), if any;
/// otherwise the first row decides.
pub fn load_joint(f: JointFile, nx: Option<usize>) -> Result<(Alphabet, Alphabet, Matrix), Error> {
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
pub fn load_priors(f: PriorsFile) -> Result<(Alphabet, Vec<Vec<f64>>), Error> {
    let Some(first) = f.priors.first() else {
        return Err(Error::InvalidArgument { name: "priors".into(), reason: "need at least one prior".into() });
    };
    let k = first.len();
    check_size("priors[0]", k)?;
    let labels = labels_or_indices("labels", f.labels, k)?;
    Ok((labels, f.priors))
}

/// A distortion matrix (square; its size and entries are checked by the designer).
pub fn load_distortion(f: DistortionFile) -> Result<Matrix, Error> {
    check_size("d", f.d.len())?;
    let ny = f.d[0].len();
    check_size("d[0]", ny)?;
    Matrix::from_rows("d", &f.d, ny)
}

/// The joint diag(p) of S = X.
pub fn diag(p: &[f64]) -> Matrix {
    let n = p.len();
    let mut d = vec![0.0; n * n];
    for (i, &v) in p.iter().enumerate() {
        d[i * n + i] = v;
    }
    Matrix::from_flat(n, n, d)
}

/// Parses and validates `path` with `load`, naming the file in any error.
pub fn load<F: serde::de::DeserializeOwned, T>(
    path: &str,
    load: impl FnOnce(F) -> Result<T, Error>,
) -> Result<T, CliError> {
    load(parse_file(path)?).map_err(|e| CliError::in_file(path, e))
}
