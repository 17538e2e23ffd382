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

use crate::document::EpsDelta;
use crate::error::{Error, Quoted, Result};
use crate::param::{Budget, Delta};

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

/// One value of a policy object as a caller read it (a JSON value, a JS value). There is
/// no "absent" value: a limit that is there is a number, so `null` or `undefined` never
/// removes a limit (a key left out does).
#[derive(Debug, Clone, PartialEq)]
pub enum PolicyValue {
    /// A number (NaN and ±∞ included: the range check refuses what it must).
    Number(f64),
    /// A plain object's own members: a continuous policy's `{eps, delta}`.
    Object(Vec<(String, PolicyValue)>),
    /// Anything else (`null`, `undefined`, a string, a boolean, an array, …); the string
    /// names its type for the error (never its value).
    Other(&'static str),
}

fn bad(name: &str, reason: String) -> Error {
    Error::invalid(alloc::format!("policy.{name}"), reason)
}

/// The error of a key that is no limit: quoted ([`Quoted`]), it is not the caller's
/// to print as it came.
fn unknown(key: &str, expected: &str) -> Error {
    Error::invalid("policy", alloc::format!("unknown limit {}; expected {expected}", Quoted(key)))
}

/// A limit's number, or `invalid_argument` naming its type.
fn number(name: &str, value: PolicyValue) -> Result<f64> {
    match value {
        PolicyValue::Number(v) => Ok(v),
        PolicyValue::Object(_) => Err(not_a_number(name, "an object")),
        PolicyValue::Other(t) => Err(not_a_number(name, t)),
    }
}

fn not_a_number(name: &str, got: &str) -> Error {
    bad(
        name,
        alloc::format!("a limit must be a number >= 0 (Infinity: no limit; leave the key out to set none), got {got}"),
    )
}

/// Records `key` (in any of its spellings), refusing it the second time.
fn first(seen: &mut Vec<&'static str>, key: &'static str) -> Result<()> {
    if seen.contains(&key) {
        return Err(bad(key, "given twice".into()));
    }
    seen.push(key);
    Ok(())
}

/// The entries of a JSON policy object, or `json` for text that is not one.
fn json_entries(text: &str, example: &str) -> Result<Vec<(String, PolicyValue)>> {
    fn value(v: serde_json::Value) -> PolicyValue {
        match v {
            serde_json::Value::Number(n) => {
                n.as_f64().map_or(PolicyValue::Other("a number out of range"), PolicyValue::Number)
            }
            serde_json::Value::Object(m) => PolicyValue::Object(m.into_iter().map(|(k, v)| (k, value(v))).collect()),
            serde_json::Value::Null => PolicyValue::Other("null"),
            serde_json::Value::Bool(_) => PolicyValue::Other("a boolean"),
            serde_json::Value::String(_) => PolicyValue::Other("a string"),
            serde_json::Value::Array(_) => PolicyValue::Other("an array"),
        }
    }
    match crate::document::codec::strict::from_str(text)? {
        serde_json::Value::Object(map) => Ok(map.into_iter().map(|(k, v)| (k, value(v))).collect()),
        _ => Err(Error::Json { message: alloc::format!("a policy is a JSON object such as {example}") }),
    }
}

impl Policy {
    /// Builds a policy from `(key, value)` entries, the keys in either spelling
    /// (`maxLdpX` or `max_ldp_x`). This is the only reader of policy objects: the wasm
    /// bindings and `privlift verify` both call it.
    ///
    /// # Errors
    /// `invalid_argument`: an unknown key (so a misspelt limit is never silently
    /// dropped; the key quoted), a key given twice or in both spellings, a value that is
    /// not a number (`null` included: a limit is never removed by its value), and every
    /// range error of [`Policy::validate`].
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
                    unknown(
                        &key,
                        "maxLdpX, maxLdp, maxLip, maxEpsL, maxEpsU, maxLdpS, maxLipS, maxEpsLS, maxEpsUS or \
                         maxVerifyWork (or their snake_case names)",
                    )
                })?;
            first(&mut seen, canonical.1)?;
            *p.slot(canonical.0) = Some(number(canonical.1, value)?);
        }
        p.validate()?;
        Ok(p)
    }

    /// [`Policy::from_entries`] on a JSON object (what `privlift verify --policy` reads).
    ///
    /// # Errors
    /// `json` for text that is not one JSON object; otherwise as `from_entries`.
    pub fn from_json(text: &str) -> Result<Self> {
        Self::from_entries(json_entries(text, "{\"maxLdpX\": 1.1}")?)
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

/// Limits a client sets on a continuous mechanism (absent: not checked).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ContinuousPolicy {
    /// The most (ε, δ)-LIP the client accepts (pure ε checked when δ = 0, else δ at ε).
    pub lip: Option<EpsDelta>,
    /// The most (ε, δ)-LDP the client accepts (pure ε checked when δ = 0, else δ at ε).
    pub ldp: Option<EpsDelta>,
    /// The verification budget in work units (absent:
    /// [`super::DEFAULT_MAX_VERIFY_WORK`]).
    pub max_verify_work: Option<f64>,
}

impl ContinuousPolicy {
    /// Builds a continuous policy from `(key, value)` entries: `lip` and `ldp`, each an
    /// object `{eps, delta}` (`delta` 0 when left out), and `maxVerifyWork` (or
    /// `max_verify_work`). The one reader of continuous policies: the wasm bindings and
    /// `privlift verify` call it. Each limit's ε is a [`Budget`] (+∞: no limit) and its δ
    /// a [`Delta`], checked here as it is read.
    ///
    /// # Errors
    /// `invalid_argument`, as [`Policy::from_entries`]: an unknown key or field (quoted),
    /// a key given twice, a limit that is not an object `{eps, delta}`, an `eps`, `delta`
    /// or budget that is not a number (`null` included); an ε that is NaN or negative or a
    /// δ outside [0, 1] (naming `policy.lip` or `policy.ldp`).
    pub fn from_entries(entries: impl IntoIterator<Item = (String, PolicyValue)>) -> Result<Self> {
        const EXPECTED: &str = "lip, ldp or maxVerifyWork, as in {lip: {eps: 1, delta: 1e-6}, ldp: {eps: 4}}";
        let mut out = ContinuousPolicy::default();
        let mut seen: Vec<&'static str> = Vec::new();
        for (key, value) in entries {
            let (name, slot) = match key.as_str() {
                "lip" => ("lip", &mut out.lip),
                "ldp" => ("ldp", &mut out.ldp),
                k if k == WORK_KEYS.0 || k == WORK_KEYS.1 => {
                    first(&mut seen, WORK_KEYS.1)?;
                    out.max_verify_work = Some(number(WORK_KEYS.1, value)?);
                    continue;
                }
                _ => return Err(unknown(&key, EXPECTED)),
            };
            first(&mut seen, name)?;
            let PolicyValue::Object(fields) = value else {
                let got = match value {
                    PolicyValue::Other(t) => t,
                    _ => "a number",
                };
                return Err(bad(name, alloc::format!("a limit must be an object {{eps, delta}}, got {got}")));
            };
            let (mut eps, mut delta) = (None, None);
            for (k, v) in fields {
                let field = match k.as_str() {
                    "eps" => &mut eps,
                    "delta" => &mut delta,
                    _ => return Err(bad(name, alloc::format!("unknown field {}; expected eps, delta", Quoted(&k)))),
                };
                *field = Some(number(&alloc::format!("{name}.{k}"), v)?);
            }
            let eps = eps.ok_or_else(|| bad(&alloc::format!("{name}.eps"), "is required".into()))?;
            let limit = alloc::format!("policy.{name}");
            let eps = Budget::new(&limit, eps)?;
            *slot = Some(EpsDelta { eps, delta: Delta::new(&limit, delta.unwrap_or(0.0))? });
        }
        Ok(out)
    }

    /// [`ContinuousPolicy::from_entries`] on a JSON object `{"lip": {"eps", "delta"},
    /// "ldp": {…}, "maxVerifyWork": W}` (what `privlift verify --policy` reads for a
    /// continuous document).
    ///
    /// # Errors
    /// `json` for text that is not one JSON object (duplicate keys refused); otherwise as
    /// `from_entries`.
    pub fn from_json(text: &str) -> Result<Self> {
        Self::from_entries(json_entries(text, "{\"lip\": {\"eps\": 1, \"delta\": 1e-6}}")?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::vec;

    fn every_key() -> impl Iterator<Item = &'static str> {
        LIMITS.iter().flat_map(|&(s, c, _)| [s, c]).chain([WORK_KEYS.0, WORK_KEYS.1])
    }

    #[test]
    fn a_limit_that_is_not_a_number_at_least_0_is_refused_never_dropped() {
        let bad = [
            PolicyValue::Other("null"),
            PolicyValue::Other("undefined"),
            PolicyValue::Other("a string"),
            PolicyValue::Other("a boolean"),
            PolicyValue::Object(vec![]),
            PolicyValue::Number(f64::NAN),
            PolicyValue::Number(-1.0),
            PolicyValue::Number(-0.5e-300),
            PolicyValue::Number(f64::NEG_INFINITY),
        ];
        for key in every_key() {
            for v in &bad {
                let e = Policy::from_entries([(key.to_string(), v.clone())]).unwrap_err();
                assert_eq!(e.code(), "invalid_argument", "{key}: {v:?}");
            }
            let p = Policy::from_entries([(key.to_string(), PolicyValue::Number(f64::INFINITY))]).unwrap();
            assert_ne!(p, Policy::default(), "{key}: +inf is a limit (no limit), and it is set");
        }
        for text in [
            r#"{"maxLip": null}"#,
            r#"{"max_lip": null}"#,
            r#"{"maxVerifyWork": null}"#,
            r#"{"maxLdpX": "1"}"#,
            r#"{"maxEpsU": true}"#,
            r#"{"maxLdp": {}}"#,
            r#"{"maxLipS": [1]}"#,
            r#"{"maxEpsL": -1}"#,
        ] {
            assert_eq!(Policy::from_json(text).unwrap_err().code(), "invalid_argument", "{text}");
        }
        assert_eq!(Policy::from_json("{}").unwrap(), Policy::default());
    }

    #[test]
    fn a_continuous_limit_that_is_not_numbers_is_refused_never_dropped() {
        for text in [
            r#"{"lip": null}"#,
            r#"{"ldp": 1}"#,
            r#"{"lip": "x"}"#,
            r#"{"lip": {"eps": null}}"#,
            r#"{"lip": {"eps": 1, "delta": null}}"#,
            r#"{"lip": {"delta": 1e-6}}"#,
            r#"{"lip": {"eps": 1, "delt": 0}}"#,
            r#"{"maxVerifyWork": null}"#,
            r#"{"maxVerifyWork": 1e9, "max_verify_work": 1e9}"#,
            r#"{"maxLip": {"eps": 1}}"#,
        ] {
            assert_eq!(ContinuousPolicy::from_json(text).unwrap_err().code(), "invalid_argument", "{text}");
        }
        let p = ContinuousPolicy::from_json(r#"{"lip": {"eps": 1}, "ldp": {"eps": 2, "delta": 1e-6}}"#).unwrap();
        let pair = |c: Option<EpsDelta>| c.map(|c| (c.eps.get(), c.delta.get()));
        assert_eq!(pair(p.lip), Some((1.0, 0.0)));
        assert_eq!(pair(p.ldp), Some((2.0, 1e-6)));
        assert_eq!(ContinuousPolicy::from_json("{}").unwrap(), ContinuousPolicy::default());
    }

    #[test]
    fn a_continuous_limit_is_checked_as_it_is_read() {
        for (text, name) in [
            (r#"{"lip": {"eps": -1}}"#, "policy.lip"),
            (r#"{"ldp": {"eps": 1, "delta": 2}}"#, "policy.ldp"),
            (r#"{"lip": {"eps": 1, "delta": -0.5}}"#, "policy.lip"),
        ] {
            let e = ContinuousPolicy::from_json(text).unwrap_err();
            assert_eq!(e.code(), "invalid_argument", "{text}");
            assert!(e.to_string().contains(&alloc::format!("`{name}`")), "{text}: {e}");
        }
        let p = ContinuousPolicy::from_entries([(
            "lip".to_string(),
            PolicyValue::Object(alloc::vec![("eps".to_string(), PolicyValue::Number(f64::INFINITY))]),
        )])
        .unwrap();
        assert_eq!(p.lip.map(|c| c.eps), Some(Budget::INFINITE));
    }

    #[test]
    fn an_unknown_key_is_quoted() {
        let key = "x\n\u{202e}privlift: verified OK";
        for e in [
            Policy::from_entries([(key.to_string(), PolicyValue::Number(1.0))]).unwrap_err(),
            ContinuousPolicy::from_entries([(key.to_string(), PolicyValue::Number(1.0))]).unwrap_err(),
        ] {
            let m = e.to_string();
            assert!(m.contains(r#""x\n\u{202e}privlift: verified OK""#), "{m}");
            assert!(!m.chars().any(crate::error::hidden), "{m:?}");
        }
        let long = "k".repeat(3 << 20);
        let m = Policy::from_entries([(long, PolicyValue::Number(1.0))]).unwrap_err().to_string();
        assert!(m.len() < 400 && m.contains("(3145728 characters)"), "{}", &m[..400.min(m.len())]);
    }
}
