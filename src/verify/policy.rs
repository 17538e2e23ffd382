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
/// not checked. Each limit is a [`Budget`] (≥ 0, +∞: no limit), so verification compares
/// it as it is. Build one in code, or from the JS/JSON names with
/// [`Policy::from_entries`] / [`Policy::from_json`]:
///
/// ```
/// use privlift::{param::Budget, Policy};
/// let p = Policy { max_ldp_x: Some(Budget::new("max_ldp_x", 1.0)?), ..Policy::default() };
/// assert_eq!(p, Policy::from_json(r#"{"maxLdpX": 1}"#)?);
/// # Ok::<(), privlift::Error>(())
/// ```
///
/// A raw number is no limit, so no policy holds a negative or NaN one:
///
/// ```compile_fail
/// let p = privlift::Policy { max_lip: Some(-1.0), ..privlift::Policy::default() };
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Policy {
    /// LDP w.r.t. X (prior-free).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_ldp_x: Option<Budget>,
    /// LDP w.r.t. X (prior-free); the same cap as `max_ldp_x` under its short name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_ldp: Option<Budget>,
    /// LIP w.r.t. X under the declared prior.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_lip: Option<Budget>,
    /// ALIP εl w.r.t. X under the declared prior.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_eps_l: Option<Budget>,
    /// ALIP εu w.r.t. X under the declared prior.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_eps_u: Option<Budget>,
    /// LDP w.r.t. the curator's secret S.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_ldp_s: Option<Budget>,
    /// LIP w.r.t. S under the declared joint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_lip_s: Option<Budget>,
    /// ALIP εl w.r.t. S.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_eps_l_s: Option<Budget>,
    /// ALIP εu w.r.t. S.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_eps_u_s: Option<Budget>,
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
    /// bindings and `privlift verify` both call it. Each limit becomes a [`Budget`] here.
    ///
    /// # Errors
    /// `invalid_argument`: an unknown key (so a misspelt limit is never silently
    /// dropped; the key quoted), a key given twice or in both spellings, a value that is
    /// not a number (`null` included: a limit is never removed by its value), then a limit
    /// that is NaN or negative (the first in the order of the fields, naming its
    /// snake_case field), then a work budget that is NaN or not > 0.
    pub fn from_entries(entries: impl IntoIterator<Item = (String, PolicyValue)>) -> Result<Self> {
        // The numbers as given, in `LIMITS` order and then the work budget: each becomes
        // its type once every value is known to be a number.
        let mut raw = [None; LIMITS.len() + 1];
        let mut seen: Vec<&'static str> = Vec::new();
        for (key, value) in entries {
            let (i, camel) = LIMITS
                .iter()
                .map(|&(s, c, _)| (s, c))
                .chain([WORK_KEYS])
                .enumerate()
                .find(|(_, (s, c))| *s == key || *c == key)
                .map(|(i, (_, c))| (i, c))
                .ok_or_else(|| {
                    unknown(
                        &key,
                        "maxLdpX, maxLdp, maxLip, maxEpsL, maxEpsU, maxLdpS, maxLipS, maxEpsLS, maxEpsUS or \
                         maxVerifyWork (or their snake_case names)",
                    )
                })?;
            first(&mut seen, camel)?;
            raw[i] = Some(number(camel, value)?);
        }
        let mut p = Policy { max_verify_work: raw[LIMITS.len()], ..Policy::default() };
        for ((slot, (snake, _, _)), v) in p.slots().into_iter().zip(LIMITS).zip(raw) {
            *slot = v.map(|v| Budget::new(snake, v)).transpose()?;
        }
        super::work_budget(p.max_verify_work)?;
        Ok(p)
    }

    /// [`Policy::from_entries`] on a JSON object (what `privlift verify --policy` reads).
    ///
    /// # Errors
    /// `json` for text that is not one JSON object; otherwise as `from_entries`.
    pub fn from_json(text: &str) -> Result<Self> {
        Self::from_entries(json_entries(text, "{\"maxLdpX\": 1.1}")?)
    }

    /// Every leakage limit's field, in [`LIMITS`] order.
    fn slots(&mut self) -> [&mut Option<Budget>; 9] {
        [
            &mut self.max_ldp_x,
            &mut self.max_ldp,
            &mut self.max_lip,
            &mut self.max_eps_l,
            &mut self.max_eps_u,
            &mut self.max_ldp_s,
            &mut self.max_lip_s,
            &mut self.max_eps_l_s,
            &mut self.max_eps_u_s,
        ]
    }

    /// `(snake_case name, limit)` of every leakage limit, set or not, in [`LIMITS`] order.
    pub(crate) fn limits(&self) -> [(&'static str, Option<Budget>); 9] {
        let mut read = self.clone();
        let values = read.slots().map(|v| *v);
        core::array::from_fn(|i| (LIMITS[i].0, values[i]))
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

    /// Every limit is a [`Budget`] that the reader built: its rule and its error are
    /// `Budget::new`'s, naming the snake_case field; a value that is no number is named by
    /// its type, never shown.
    #[test]
    fn every_limit_is_a_budget_built_by_the_reader() {
        for (snake, camel, _) in LIMITS {
            for key in [snake, camel] {
                let read = |v: PolicyValue| Policy::from_entries([(key.to_string(), v)]);
                let p = read(PolicyValue::Number(0.5)).unwrap();
                let set: Vec<(&str, Budget)> = p.limits().iter().filter_map(|&(n, v)| v.map(|b| (n, b))).collect();
                assert_eq!(set, [(snake, Budget::new(snake, 0.5).unwrap())], "{key}");
                for v in [-1.0, -0.5e-300, f64::NAN, f64::NEG_INFINITY] {
                    let e = read(PolicyValue::Number(v)).unwrap_err();
                    assert_eq!(e.code(), "invalid_argument", "{key}: {v}");
                    assert_eq!(e, Budget::new(snake, v).unwrap_err(), "{key}: {v}");
                }
                // `{"maxLip": "1"}`: the reader says "a string", not what it held.
                let e = Policy::from_json(&alloc::format!(r#"{{"{key}": "1"}}"#)).unwrap_err();
                let m = e.to_string();
                assert_eq!(e.code(), "invalid_argument", "{key}");
                assert!(m.contains(&alloc::format!("`policy.{camel}`")) && m.contains("got a string"), "{m}");
                assert!(!m.contains('1'), "{m}");
            }
        }
    }

    /// Of several bad limits, the first in [`LIMITS`] order is the one named, whatever
    /// the order of the entries, and a value that is no number before any range.
    #[test]
    fn the_first_bad_limit_is_named_in_limits_order() {
        let e = Policy::from_json(r#"{"maxEpsUS": -1, "maxLip": -2, "maxLdpX": -3}"#).unwrap_err();
        assert!(e.to_string().contains("`max_ldp_x`"), "{e}");
        let e = Policy::from_json(r#"{"maxLdpX": -3, "maxVerifyWork": 0}"#).unwrap_err();
        assert!(e.to_string().contains("`max_ldp_x`"), "{e}");
        let e = Policy::from_json(r#"{"maxLdpX": -3, "maxLip": "1"}"#).unwrap_err();
        assert!(e.to_string().contains("`policy.maxLip`"), "{e}");
        let e = Policy::from_json(r#"{"maxVerifyWork": 0, "maxLip": 1}"#).unwrap_err();
        assert!(e.to_string().contains("`policy.max_verify_work`"), "{e}");
    }

    /// `Serialize` writes the snake_case names and the numbers as given (+∞ as `null`,
    /// as serde_json writes a non-finite f64), leaving out what is not set.
    #[test]
    fn a_policy_serialises_as_its_numbers() {
        let text = r#"{"maxLdpX": 1, "maxLdp": 0, "maxLip": 0.25, "maxEpsL": 2e-300, "maxEpsU": 3,
            "maxLdpS": 4.5, "maxLipS": 1e300, "maxEpsLS": 6, "maxEpsUS": 7, "maxVerifyWork": 1e9}"#;
        let p = Policy::from_json(text).unwrap();
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            r#"{"max_ldp_x":1.0,"max_ldp":0.0,"max_lip":0.25,"max_eps_l":2e-300,"max_eps_u":3.0,"max_ldp_s":4.5,"max_lip_s":1e+300,"max_eps_l_s":6.0,"max_eps_u_s":7.0,"max_verify_work":1000000000.0}"#
        );
        let p = Policy::from_entries([("maxLip".to_string(), PolicyValue::Number(f64::INFINITY))]).unwrap();
        assert_eq!(serde_json::to_string(&p).unwrap(), r#"{"max_lip":null}"#);
        assert_eq!(serde_json::to_string(&Policy::default()).unwrap(), "{}");
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
