//! The user's limits, and the one place their names and shape are checked.
//!
//! # Whose value a limit is about
//! A limit protects **the value the user enters**, X. `maxLdpX`/`maxLdp` cap the
//! prior-free LDP w.r.t. X; `maxLip`, `maxEpsL`, `maxEpsU` cap LIP/ALIP w.r.t. X under
//! the document's declared prior (the audit with S = X). A document cannot weaken them by
//! declaring a trivial secret (one value "all" makes every S-notion 0 while X is sent in
//! the clear), and a lying prior cannot hide a clear-text channel either: for every
//! prior, LIP_X ≥ LDP_X / 2 over the inputs it covers (the lift's maximum is ≥ 1 and its
//! minimum ≤ 1, since P(y) averages the rows, so max/min of P(y|x) = max/min of the lift
//! ≤ e^{2ε}).
//!
//! Limits about the curator's secret S exist under their own names (`maxLipS`,
//! `maxLdpS`, `maxEpsLS`, `maxEpsUS`) and are checked **in addition**, never instead.
//! `maxVerifyWork` raises (or lowers) the verification budget
//! ([`super::DEFAULT_MAX_VERIFY_WORK`]).

use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

use crate::error::{Error, Result};

/// Limits a client sets, in nats (`max_verify_work` in work units). Absent fields are
/// not checked. Build one in code, or from the JS/JSON names with
/// [`Policy::from_entries`] / [`Policy::from_json`].
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Policy {
    /// LDP w.r.t. X (prior-free).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_ldp_x: Option<f64>,
    /// LDP w.r.t. X (prior-free); the same cap as `max_ldp_x` under its short name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_ldp: Option<f64>,
    /// LIP w.r.t. X under the declared prior.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_lip: Option<f64>,
    /// ALIP εl w.r.t. X under the declared prior.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_eps_l: Option<f64>,
    /// ALIP εu w.r.t. X under the declared prior.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_eps_u: Option<f64>,
    /// LDP w.r.t. the curator's secret S.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_ldp_s: Option<f64>,
    /// LIP w.r.t. S under the declared joint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_lip_s: Option<f64>,
    /// ALIP εl w.r.t. S.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_eps_l_s: Option<f64>,
    /// ALIP εu w.r.t. S.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_eps_u_s: Option<f64>,
    /// The verification budget in work units (absent: [`super::DEFAULT_MAX_VERIFY_WORK`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_verify_work: Option<f64>,
}

/// Which audit a limit reads, and which measure of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Measure {
    LdpX,
    LipX,
    EpsLX,
    EpsUX,
    LdpS,
    LipS,
    EpsLS,
    EpsUS,
}

/// (snake_case, camelCase, measure) of every leakage limit; both spellings are read.
pub(crate) const LIMITS: [(&str, &str, Measure); 9] = [
    ("max_ldp_x", "maxLdpX", Measure::LdpX),
    ("max_ldp", "maxLdp", Measure::LdpX),
    ("max_lip", "maxLip", Measure::LipX),
    ("max_eps_l", "maxEpsL", Measure::EpsLX),
    ("max_eps_u", "maxEpsU", Measure::EpsUX),
    ("max_ldp_s", "maxLdpS", Measure::LdpS),
    ("max_lip_s", "maxLipS", Measure::LipS),
    ("max_eps_l_s", "maxEpsLS", Measure::EpsLS),
    ("max_eps_u_s", "maxEpsUS", Measure::EpsUS),
];

/// The budget's key names.
const WORK_KEYS: (&str, &str) = ("max_verify_work", "maxVerifyWork");

/// One entry of a policy object as a caller read it.
#[derive(Debug, Clone, PartialEq)]
pub enum PolicyValue {
    /// A number (NaN and ±∞ included: the range check refuses what it must).
    Number(f64),
    /// `null` or `undefined`: the limit is not set.
    Absent,
    /// Anything else; the string names its type for the error.
    Other(&'static str),
}

fn bad(name: &str, reason: impl Into<String>) -> Error {
    Error::InvalidArgument { name: alloc::format!("policy.{name}"), reason: reason.into() }
}

impl Policy {
    /// Builds a policy from `(key, value)` entries, the keys in either spelling
    /// (`maxLdpX` or `max_ldp_x`). This is the only reader of policy objects: the wasm
    /// bindings and `privlift verify` both call it.
    ///
    /// # Errors
    /// `invalid_argument` naming the key: an unknown key (so a misspelt limit is never
    /// silently dropped), a key given twice or in both spellings, a value that is not a
    /// number, and every range error of [`Policy::validate`].
    pub fn from_entries(entries: impl IntoIterator<Item = (String, PolicyValue)>) -> Result<Self> {
        let mut p = Policy::default();
        let mut seen: Vec<&'static str> = Vec::new();
        for (key, value) in entries {
            let canonical = LIMITS
                .iter()
                .map(|&(s, c, _)| (s, c))
                .chain([WORK_KEYS])
                .find(|(s, c)| *s == key || *c == key)
                .ok_or_else(|| {
                    bad(
                        &key,
                        "unknown limit; expected maxLdpX, maxLdp, maxLip, maxEpsL, maxEpsU, maxLdpS, maxLipS, \
                         maxEpsLS, maxEpsUS or maxVerifyWork (or their snake_case names)",
                    )
                })?;
            if seen.contains(&canonical.1) {
                return Err(bad(canonical.1, "given twice"));
            }
            seen.push(canonical.1);
            let v = match value {
                PolicyValue::Number(v) => Some(v),
                PolicyValue::Absent => None,
                PolicyValue::Other(t) => {
                    return Err(bad(canonical.1, alloc::format!("a limit must be a number, got {t}")))
                }
            };
            *p.slot(canonical.0) = v;
        }
        p.validate()?;
        Ok(p)
    }

    /// [`Policy::from_entries`] on a JSON object (what `privlift verify --policy` reads).
    ///
    /// # Errors
    /// `json` for text that is not one JSON object; otherwise as `from_entries`.
    pub fn from_json(text: &str) -> Result<Self> {
        let v = crate::document::strict::from_str(text)?;
        let serde_json::Value::Object(map) = v else {
            return Err(Error::Json { message: "a policy is a JSON object such as {\"maxLdpX\": 1.1}".into() });
        };
        Self::from_entries(map.into_iter().map(|(k, v)| {
            let value = match v {
                serde_json::Value::Number(n) => {
                    n.as_f64().map_or(PolicyValue::Other("a number out of range"), PolicyValue::Number)
                }
                serde_json::Value::Null => PolicyValue::Absent,
                serde_json::Value::Bool(_) => PolicyValue::Other("a boolean"),
                serde_json::Value::String(_) => PolicyValue::Other("a string"),
                serde_json::Value::Array(_) => PolicyValue::Other("an array"),
                serde_json::Value::Object(_) => PolicyValue::Other("an object"),
            };
            (k, value)
        }))
    }

    fn slot(&mut self, snake: &str) -> &mut Option<f64> {
        match snake {
            "max_ldp_x" => &mut self.max_ldp_x,
            "max_ldp" => &mut self.max_ldp,
            "max_lip" => &mut self.max_lip,
            "max_eps_l" => &mut self.max_eps_l,
            "max_eps_u" => &mut self.max_eps_u,
            "max_ldp_s" => &mut self.max_ldp_s,
            "max_lip_s" => &mut self.max_lip_s,
            "max_eps_l_s" => &mut self.max_eps_l_s,
            "max_eps_u_s" => &mut self.max_eps_u_s,
            _ => &mut self.max_verify_work,
        }
    }

    /// Checks that every limit is a number ≥ 0 (+∞ allowed: no limit) and the work
    /// budget a number > 0.
    ///
    /// # Errors
    /// `invalid_argument` naming the field.
    pub fn validate(&self) -> Result<()> {
        for (name, v) in self.limits() {
            if let Some(v) = v {
                crate::param::Budget::new(name, v)?;
            }
        }
        super::work_budget(self.max_verify_work)?;
        Ok(())
    }

    /// `(snake_case name, limit)` of every leakage limit, set or not, in [`LIMITS`] order.
    pub(crate) fn limits(&self) -> [(&'static str, Option<f64>); 9] {
        let mut read = self.clone();
        LIMITS.map(|(snake, _, _)| (snake, *read.slot(snake)))
    }

    /// Whether some limit is about the document's secret S (`max_ldp_s`, `max_lip_s`, …).
    pub(crate) fn limits_the_secret(&self) -> bool {
        self.limits().iter().zip(LIMITS).any(|((_, v), (_, _, m))| {
            v.is_some() && matches!(m, Measure::LdpS | Measure::LipS | Measure::EpsLS | Measure::EpsUS)
        })
    }
}
