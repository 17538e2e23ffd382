//! The discrete mechanism document, validated: [`Document`] read from its wire form (the
//! `mechanism` object by its kind, the structured kinds in [`super::structured`]) and
//! written back.

use alloc::borrow::Cow;
use alloc::string::{String, ToString};
use alloc::sync::Arc;
use alloc::vec::Vec;

use super::claims::Claims;
use super::codec::Json;
use super::labels::{Alphabet, Labels};
use super::limits::{MAX_PER_SECRET_ENTRIES, MAX_SYMBOLS};
use super::matrix::Matrix;
use super::wire::{self, check_header, DocumentJson, FORMAT, VERSION};
use super::{channel, fields, parse_matrix, structured, MechanismKind};
use crate::error::{Error, Result};
use crate::param::{check_distribution, Probability, MIN_PROBABILITY, SUM_TOLERANCE};

/// A validated mechanism document (version 1).
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    id: String,
    description: Option<String>,
    input: Alphabet,
    output: Alphabet,
    secret: Alphabet,
    /// True when the document declared a secret; false when S = X.
    has_secret: bool,
    prior: Vec<f64>,
    /// Joint P_SX, rows s, columns x, when the document declares a secret (S = X: `None`,
    /// the joint is diag(prior), built only on request: at |X| = 4096 it is 134 MB).
    joint: Option<Arc<Matrix>>,
    /// Shared: a verified mechanism keeps a copy of its document, and a dense channel at
    /// k = 1024 is 8 MB.
    mechanism: Arc<MechanismKind>,
    claims: Claims,
    /// Shared, as `mechanism` and `joint` are: every verified mechanism keeps a copy of
    /// its document.
    utility: Option<Arc<Json>>,
}

fn labels(field: &str, v: Labels) -> Result<Alphabet> {
    Alphabet::from_labels(field, v)
}

impl Document {
    /// Parses and validates a JSON document.
    ///
    /// # Errors
    /// `json` for syntax errors or missing/unknown fields; `unsupported_format`,
    /// `unsupported_version`, `unsupported_mechanism`; and every validation error of
    /// [`Document::from_wire`].
    pub fn from_json(text: &str) -> Result<Self> {
        let wire = DocumentJson::read(text.as_bytes())?;
        Self::from_wire(wire)
    }

    /// Validates an already-deserialised document.
    ///
    /// # Errors
    /// `non_finite`, `negative_probability`, `not_normalized` (naming the row),
    /// `dimension_mismatch`, `duplicate_label`, `too_many_symbols`, `empty_alphabet`,
    /// `prior_mismatch` (prior ≠ column sums of `secret.p_sx` beyond 1e-9).
    pub fn from_wire(w: DocumentJson) -> Result<Self> {
        check_header(&w.format, w.version)?;
        let input = labels("labels", w.labels)?;
        let nx = input.len();

        // Mechanism first: its kind decides what the other fields must look like.
        let kind = w
            .mechanism
            .get("kind")
            .and_then(|k| k.as_str())
            .ok_or_else(|| Error::Json { message: "`mechanism.kind` is missing or not a string".into() })?
            .to_string();
        let ns_declared = w.secret.as_ref().map(|s| s.p_sx.len());
        let mechanism = parse_mechanism(&kind, w.mechanism, nx, ns_declared)?;
        let ny = structured::outputs(&mechanism, nx);
        let output = match w.output_labels {
            // k-RR and RR-LIP release a value of X: their outputs are the input labels.
            Some(l) if releases_input(&mechanism) => match labels("output_labels", l)? == input {
                true => input.clone(),
                false => {
                    return Err(Error::invalid(
                        "output_labels",
                        "a `krr` or `rr_lip` mechanism releases a value of X: its outputs are `labels` \
                             (omit `output_labels`)",
                    ))
                }
            },
            Some(l) => labels("output_labels", l)?,
            None if output_is_implied(&mechanism) => input.clone(),
            None => Alphabet::indices("output_labels", ny)?,
        };
        if output.len() != ny {
            return Err(Error::field("output_labels").dims(ny, output.len()));
        }

        if w.prior.len() != nx {
            return Err(Error::field("prior").dims(nx, w.prior.len()));
        }
        check_distribution("prior", &w.prior)?;

        let (secret, joint, has_secret) = match w.secret {
            None => (input.clone(), None, false),
            Some(s) => {
                let (alpha, joint) = secret(s, &w.prior, nx)?;
                (alpha, Some(Arc::new(joint)), true)
            }
        };

        let claims = Claims::from_wire(w.claims, nx)?;

        Ok(Document {
            id: w.id,
            description: w.description,
            input,
            output,
            secret,
            has_secret,
            prior: w.prior,
            joint,
            mechanism: Arc::new(mechanism),
            claims,
            utility: w.utility.map(Arc::new),
        })
    }

    /// Builds a document for a matrix mechanism (the curator side: designers and the CLI).
    ///
    /// `p_sx` is `None` when the secret is X itself.
    pub fn matrix(
        id: &str,
        input: Alphabet,
        output: Alphabet,
        prior: Vec<f64>,
        secret: Option<(Alphabet, Matrix)>,
        p_y_given_x: Matrix,
        claims: Claims,
    ) -> Result<Self> {
        let secret = secret.map(|(a, m)| wire::SecretJson { labels: Some(a.labels().clone()), p_sx: m.to_rows() });
        let w = DocumentJson {
            format: FORMAT.into(),
            version: VERSION,
            id: id.into(),
            description: None,
            labels: input.labels().clone(),
            output_labels: Some(output.labels().clone()),
            prior,
            secret,
            mechanism: MechanismKind::Matrix(p_y_given_x).to_json().into(),
            claims: claims.to_wire(),
            utility: None,
        };
        Self::from_wire(w)
    }

    /// Builds a document for any mechanism kind (the curator side).
    pub fn new(
        id: &str,
        input: Alphabet,
        output: Option<Alphabet>,
        prior: Vec<f64>,
        secret: Option<(Alphabet, Matrix)>,
        mechanism: MechanismKind,
        claims: Claims,
    ) -> Result<Self> {
        let text = |a: &Alphabet| a.labels().clone();
        let w = DocumentJson {
            format: FORMAT.into(),
            version: VERSION,
            id: id.into(),
            description: None,
            labels: text(&input),
            output_labels: output.as_ref().map(text),
            prior,
            secret: secret.map(|(a, m)| wire::SecretJson { labels: Some(text(&a)), p_sx: m.to_rows() }),
            mechanism: mechanism.to_json().into(),
            claims: claims.to_wire(),
            utility: None,
        };
        Self::from_wire(w)
    }

    /// The document back in its wire form (for printing). `output_labels` is left out when
    /// the kind implies it (k-RR, RR-LIP and unary with the input labels as outputs), where
    /// it would only repeat `labels`.
    pub fn to_wire(&self) -> DocumentJson {
        let text = |a: &Alphabet| a.labels().clone();
        DocumentJson {
            format: FORMAT.into(),
            version: VERSION,
            id: self.id.clone(),
            description: self.description.clone(),
            labels: text(&self.input),
            output_labels: (!output_is_implied(&self.mechanism) || self.output != self.input)
                .then(|| text(&self.output)),
            prior: self.prior.clone(),
            secret: self
                .joint
                .as_ref()
                .map(|j| wire::SecretJson { labels: Some(text(&self.secret)), p_sx: j.to_rows() }),
            mechanism: self.mechanism.to_json().into(),
            claims: self.claims.to_wire(),
            utility: self.utility.as_deref().cloned(),
        }
    }

    /// Serialises to pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(&self.to_wire()).unwrap_or_default()
    }

    /// The document's `id`.
    pub fn id(&self) -> &str {
        &self.id
    }
    /// The free-text `description`, if any.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }
    /// The input alphabet X (`labels`).
    pub fn input(&self) -> &Alphabet {
        &self.input
    }
    /// The output alphabet Y (`output_labels`; indices, or the input labels for `unary`, when absent).
    pub fn output(&self) -> &Alphabet {
        &self.output
    }
    /// The secret alphabet S (the input alphabet when S = X).
    pub fn secret(&self) -> &Alphabet {
        &self.secret
    }
    /// Whether the document declared a secret S distinct from X.
    pub fn has_secret(&self) -> bool {
        self.has_secret
    }
    /// The prior P_X over the input alphabet (the column sums of [`Document::p_sx`], within 1e-9).
    pub fn prior(&self) -> &[f64] {
        &self.prior
    }
    /// Joint P_SX (rows s, columns x): the declared one, or diag(prior) built on request
    /// (O(|X|²)) when S = X.
    pub fn p_sx(&self) -> Cow<'_, Matrix> {
        match &self.joint {
            Some(j) => Cow::Borrowed(&**j),
            None => Cow::Owned(Matrix::diag(&self.prior)),
        }
    }
    /// The declared joint P_SX, `None` when S = X (no allocation either way).
    pub fn declared_joint(&self) -> Option<&Matrix> {
        self.joint.as_deref()
    }
    /// The validated mechanism.
    pub fn mechanism(&self) -> &MechanismKind {
        &self.mechanism
    }
    /// The claimed privacy, in nats (not yet verified: see [`crate::verify`]).
    pub fn claims(&self) -> &Claims {
        &self.claims
    }
    /// Replaces the claims (designers fill them in after auditing).
    pub fn with_claims(mut self, claims: Claims) -> Result<Self> {
        let mut w = self.to_wire();
        w.claims = claims.to_wire();
        self = Self::from_wire(w)?;
        Ok(self)
    }
    /// The informational `utility` figures, if any; never used for verification
    /// ([`Json::to_value`] gives them as a `serde_json::Value`).
    pub fn utility(&self) -> Option<&Json> {
        self.utility.as_deref()
    }
    /// Sets the free-text `description` (not audited: a note for people).
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Attaches informational utility figures.
    pub fn with_utility(mut self, utility: serde_json::Value) -> Self {
        self.utility = Some(Arc::new(utility.into()));
        self
    }

    /// Resolves a value given by label or by decimal index string to an input index.
    pub fn input_index(&self, value: &str) -> Result<usize> {
        resolve(&self.input, value).ok_or_else(|| Error::UnknownValue {
            reason: alloc::format!("it is not in the input alphabet ({} labels)", self.input.len()),
        })
    }
}

/// The declared secret S: its alphabet and its joint distribution with X, whose marginal
/// must be the prior. Out of line, so that a document without a secret does not compile it
/// at a page's first parse (see [`structured::parse`]).
#[inline(never)]
fn secret(s: wire::SecretJson, prior: &[f64], nx: usize) -> Result<(Alphabet, Matrix)> {
    let ns = s.p_sx.len();
    if ns > MAX_SYMBOLS {
        return Err(Error::TooManySymbols { field: "secret.p_sx".into(), found: ns, max: MAX_SYMBOLS });
    }
    let alpha = match s.labels {
        Some(l) => labels("secret.labels", l)?,
        None => Alphabet::indices("secret.labels", ns)?,
    };
    if alpha.len() != ns {
        return Err(Error::field("secret.labels").dims(ns, alpha.len()));
    }
    let joint = Matrix::from_rows("secret.p_sx", &s.p_sx, nx)?;
    joint.check_joint("secret.p_sx")?;
    let marg = joint.col_sums();
    for (i, (&p, &m)) in prior.iter().zip(&marg).enumerate() {
        // Where the joint's column is 0 no S-notion ever weighs that input, so
        // its prior must be exactly 0 (and the runtime refuses it): the 1e-9
        // tolerance must not let an unaudited input be perturbed.
        if m.is_nan() || (p - m).abs() > SUM_TOLERANCE || (m == 0.0 && p != 0.0) {
            return Err(Error::PriorMismatch { index: i, prior: p, marginal: m });
        }
    }
    Ok((alpha, joint))
}

/// Whether the kind's outputs are values of X (k-RR and RR-LIP: keep the input, or release
/// another value of X), so that its `output_labels` can only be `labels`.
fn releases_input(m: &MechanismKind) -> bool {
    matches!(m, MechanismKind::Krr { .. } | MechanismKind::RrLip { .. })
}

/// Whether an absent `output_labels` means the input labels (the kinds of
/// [`releases_input`], and unary: one report bit per input value).
fn output_is_implied(m: &MechanismKind) -> bool {
    releases_input(m) || matches!(m, MechanismKind::Unary { .. })
}

fn parse_mechanism(kind: &str, v: Json, nx: usize, ns: Option<usize>) -> Result<MechanismKind> {
    if structured::KINDS.contains(&kind) {
        return structured::parse("mechanism", kind, v, nx);
    }
    match kind {
        "matrix" => parse_matrix("mechanism", v, nx),
        "per_secret" => per_secret(v, nx, ns),
        "unary" => unary(v),
        _ => Err(Error::UnsupportedMechanism { kind: kind.into() }),
    }
}

/// The `per_secret` kind: one channel of X a secret, and optionally the Markov channel
/// they all equal. Out of line, as each kind's reader (see [`structured::parse`]).
#[inline(never)]
fn per_secret(mut v: Json, nx: usize, ns: Option<usize>) -> Result<MechanismKind> {
    let field = "mechanism";
    fields::object(field, &v, &["kind", "p_y_given_sx", "p_y_given_x"])?;
    let markov_rows = fields::take(&mut v, "p_y_given_x");
    let m = fields::object(field, &v, &["kind", "p_y_given_sx", "p_y_given_x"])?;
    fields::required(field, m, "p_y_given_sx")?;
    // Moved out, so that each block's numbers move into its matrix.
    let blocks = match fields::take(&mut v, "p_y_given_sx") {
        Json::Array(a) => a,
        other => fields::array("mechanism.p_y_given_sx", &other)?.to_vec(),
    };
    let Some(ns) = ns else {
        return Err(Error::invalid("mechanism.p_y_given_sx", "a per-secret mechanism needs the document's `secret`"));
    };
    if blocks.len() != ns {
        return Err(Error::field("mechanism.p_y_given_sx").dims(ns, blocks.len()));
    }
    let ny = blocks.first().map_or(0, fields::first_row_len);
    // Saturating: on wasm32, 4096 · 4096 · 256 entries would wrap a usize to 0.
    let entries = ns.saturating_mul(nx).saturating_mul(ny);
    if entries > MAX_PER_SECRET_ENTRIES {
        return Err(Error::TooManySymbols {
            field: "mechanism.p_y_given_sx".into(),
            found: entries,
            max: MAX_PER_SECRET_ENTRIES,
        });
    }
    let mut mats = Vec::with_capacity(ns);
    for (s, b) in blocks.into_iter().enumerate() {
        let f = alloc::format!("mechanism.p_y_given_sx[{s}]");
        let mm = channel(&f, b, nx)?;
        if mm.cols() != ny {
            return Err(Error::field(alloc::format!("{f}[0]")).dims(ny, mm.cols()));
        }
        mats.push(mm);
    }
    let markov = match markov_rows {
        Json::Null => None,
        rows => {
            let f = "mechanism.p_y_given_x";
            let mm = channel(f, rows, nx)?;
            if mm.cols() != ny {
                return Err(Error::field("mechanism.p_y_given_x[0]").dims(ny, mm.cols()));
            }
            for (s, ms) in mats.iter().enumerate() {
                let worst = ms.as_slice().iter().zip(mm.as_slice()).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
                if worst > SUM_TOLERANCE {
                    return Err(Error::invalid(
                        alloc::format!("mechanism.p_y_given_sx[{s}]"),
                        alloc::format!(
                            "differs from `p_y_given_x` by {worst}; a Markov mechanism must not depend on s",
                            worst = crate::numeric::Shown(worst)
                        ),
                    ));
                }
            }
            Some(mm)
        }
    };
    Ok(MechanismKind::PerSecret { p_y_given_sx: mats, markov })
}

/// The `unary` kind: two flip probabilities q01, q10. Out of line, as each kind's reader.
#[inline(never)]
fn unary(v: Json) -> Result<MechanismKind> {
    let field = "mechanism";
    let m = fields::object(field, &v, &["kind", "q01", "q10"])?;
    let mut q = [Probability::ONE; 2];
    for (slot, (name, key)) in q.iter_mut().zip([("mechanism.q01", "q01"), ("mechanism.q10", "q10")]) {
        let p = fields::number(name, fields::required(field, m, key)?)?;
        if !p.is_finite() {
            return Err(Error::field(name).non_finite());
        }
        if p < 0.0 {
            return Err(Error::field(name).negative(p));
        }
        if p > 1.0 {
            return Err(Error::invalid(name, alloc::format!("{p} is not a probability", p = crate::numeric::Shown(p))));
        }
        if p > 0.0 && p < MIN_PROBABILITY {
            return Err(crate::param::tiny(name, p));
        }
        *slot = Probability::new(name, p)?;
    }
    Ok(MechanismKind::Unary { q01: q[0], q10: q[1] })
}

/// Label first, then a decimal index.
pub(crate) fn resolve(a: &Alphabet, value: &str) -> Option<usize> {
    a.position(value).or_else(|| value.parse::<usize>().ok().filter(|&i| i < a.len()))
}
