//! JS bindings of continuous documents (`kind` `gaussian`, `laplace`, `sampling`): the
//! same one-to-one mirror of the core as the discrete classes in `mod.rs`, over
//! [`privlift::document::ContinuousDocument`] and [`privlift::mechanism::continuous`].

use alloc::string::String;
use alloc::vec::Vec;
use wasm_bindgen::prelude::*;

use crate::{js_error, plain_members, to_js};
use privlift::document::{ContinuousDocument, ContinuousDocumentJson, EpsDelta, CONTINUOUS_KINDS};
use privlift::error::Error;
use privlift::mechanism::continuous::{ContinuousPolicy, VerifiedContinuous};
use privlift::rng::{os_rng, DeterministicRngForTesting, OsPoolRng};

/// Reads `{lip: {eps, delta}, ldp: {eps, delta}, maxVerifyWork}` (absent or null: no
/// limits). Every key is checked, so a misspelt limit (`{maxLip: 1}`) is an
/// `invalid_argument` instead of a policy that checks nothing; read by hand (not by serde),
/// as the discrete policy is. The ranges are checked by verification.
fn policy_from_js(policy: JsValue) -> Result<ContinuousPolicy, JsValue> {
    if policy.is_undefined() || policy.is_null() {
        return Ok(ContinuousPolicy::default());
    }
    let bad = |name: String, reason: &str| {
        js_error(Error::InvalidArgument {
            name,
            reason: alloc::format!(
                "{reason}; a continuous policy looks like {{lip: {{eps: 1, delta: 1e-6}}, ldp: {{eps: 4}}}}"
            ),
        })
    };
    let number = |name: String, v: &JsValue| v.as_f64().ok_or_else(|| bad(name, "must be a number"));
    // The members of a plain object, a value of undefined or null left out.
    let members = |v: &JsValue| -> Result<Option<Vec<(String, JsValue)>>, JsValue> {
        let present = |(_, v): &(String, JsValue)| !v.is_undefined() && !v.is_null();
        Ok(plain_members(v)?.map(|m| m.into_iter().filter(present).collect()))
    };
    let Some(limits) = members(&policy)? else {
        return Err(bad(
            "policy".into(),
            "must be a plain object (a Map, a class instance or inherited limits are not read)",
        ));
    };
    let mut out = ContinuousPolicy::default();
    for (key, value) in limits {
        let limit = match key.as_str() {
            "maxVerifyWork" => {
                out.max_verify_work = Some(number("policy.maxVerifyWork".into(), &value)?);
                continue;
            }
            "lip" => &mut out.lip,
            "ldp" => &mut out.ldp,
            _ => return Err(bad(alloc::format!("policy.{key}"), "unknown limit (expected lip, ldp, maxVerifyWork)")),
        };
        let Some(fields) = members(&value)? else {
            return Err(bad(alloc::format!("policy.{key}"), "must be a plain object {eps, delta}"));
        };
        let (mut eps, mut delta) = (None, 0.0);
        for (k, v) in fields {
            let name = alloc::format!("policy.{key}.{k}");
            match k.as_str() {
                "eps" => eps = Some(number(name, &v)?),
                "delta" => delta = number(name, &v)?,
                _ => return Err(bad(name, "unknown field (expected eps, delta)")),
            }
        }
        let eps = eps.ok_or_else(|| bad(alloc::format!("policy.{key}.eps"), "is required"))?;
        *limit = Some(EpsDelta { eps, delta });
    }
    Ok(out)
}

/// `{lo, hi, step, points}` for JS: a struct rather than a `serde_json` map, whose B-tree
/// would be the module's only one (members in key order, as the map gave them).
#[derive(serde::Serialize)]
struct DomainJs {
    hi: f64,
    lo: f64,
    points: usize,
    step: f64,
}

fn domain_js(doc: &ContinuousDocument) -> Result<JsValue, JsValue> {
    let l = doc.lattice();
    to_js(&DomainJs { hi: l.hi(), lo: l.lo(), points: l.len(), step: l.step() })
}

/// A parsed and validated (not yet verified) continuous document.
#[wasm_bindgen(js_name = ContinuousDocument)]
#[derive(Debug)]
pub struct WasmContinuousDocument {
    pub(crate) doc: ContinuousDocument,
}

#[wasm_bindgen(js_class = ContinuousDocument)]
impl WasmContinuousDocument {
    /// Parses and validates a JSON document (throws `PrivliftError`). A discrete document
    /// is `unsupported_mechanism`, naming `parseMechanism`.
    pub fn parse(json: &str) -> Result<WasmContinuousDocument, JsValue> {
        Self::read(json.as_bytes())
    }

    /// [`WasmContinuousDocument::parse`] of the document's UTF-8 bytes, read as they are (the
    /// text is never made a JS string); bytes that are not UTF-8 are `json`.
    #[wasm_bindgen(js_name = parseBytes)]
    pub fn parse_bytes(json: &[u8]) -> Result<WasmContinuousDocument, JsValue> {
        Self::read(json)
    }

    fn read(json: &[u8]) -> Result<WasmContinuousDocument, JsValue> {
        let discrete = |kind: &str| {
            (!CONTINUOUS_KINDS.contains(&kind)).then(|| {
                alloc::format!("mechanism kind '{kind}' is a discrete document: use parseMechanism from 'privlift'")
            })
        };
        let read = |json: &[u8]| ContinuousDocumentJson::read(json).and_then(ContinuousDocument::from_wire);
        crate::parse::read_document(json, read, discrete).map(|doc| WasmContinuousDocument { doc })
    }
    #[wasm_bindgen(getter)]
    pub fn id(&self) -> String {
        self.doc.id().into()
    }
    #[wasm_bindgen(getter)]
    pub fn description(&self) -> Option<String> {
        self.doc.description().map(String::from)
    }
    /// `gaussian`, `laplace` or `sampling`.
    #[wasm_bindgen(getter)]
    pub fn kind(&self) -> String {
        self.doc.mechanism().tag().into()
    }
    /// `{lo, hi, step, points}`.
    #[wasm_bindgen(getter)]
    pub fn domain(&self) -> Result<JsValue, JsValue> {
        domain_js(&self.doc)
    }
    /// The prior as written in the document (`{gaussian: …}`, `{gmm: …}`, `{histogram: …}`).
    #[wasm_bindgen(getter)]
    pub fn prior(&self) -> Result<JsValue, JsValue> {
        to_js(self.doc.prior_json())
    }
    /// The prior's mass at each lattice point (conditioned on the domain).
    #[wasm_bindgen(getter, js_name = latticePrior)]
    pub fn lattice_prior(&self) -> Vec<f64> {
        self.doc.lattice_prior().to_vec()
    }
    #[wasm_bindgen(getter)]
    pub fn claims(&self) -> Result<JsValue, JsValue> {
        to_js(self.doc.claims())
    }
    /// The document's informational `utility` object (never trusted), or `undefined`.
    #[wasm_bindgen(getter)]
    pub fn utility(&self) -> Result<JsValue, JsValue> {
        match self.doc.utility() {
            Some(u) => to_js(u),
            None => Ok(JsValue::UNDEFINED),
        }
    }
    #[wasm_bindgen(js_name = toJson)]
    pub fn to_json(&self) -> String {
        self.doc.to_json()
    }
    /// The exact audit of the sampler (`{lip: {eps, delta}, ldp: {eps, delta}, …}`).
    pub fn audit(&self) -> Result<JsValue, JsValue> {
        to_js(&self.doc.audit().map_err(js_error)?)
    }
    /// Every claim and policy check, without throwing on a failed check.
    pub fn check(&self, policy: JsValue) -> Result<JsValue, JsValue> {
        to_js(&self.doc.check(&policy_from_js(policy)?).map_err(js_error)?)
    }
    /// Verifies claims and policy on the exact sampler; returns a mechanism or throws.
    pub fn verify(&self, policy: JsValue) -> Result<WasmContinuousMechanism, JsValue> {
        let mech = self.doc.verify(&policy_from_js(policy)?).map_err(js_error)?;
        Ok(WasmContinuousMechanism { mech, rng: os_rng() })
    }
}

/// A verified continuous mechanism with its own pool on `crypto.getRandomValues`.
#[wasm_bindgen(js_name = ContinuousMechanism)]
#[derive(Debug)]
pub struct WasmContinuousMechanism {
    mech: VerifiedContinuous,
    rng: OsPoolRng,
}

#[wasm_bindgen(js_class = ContinuousMechanism)]
impl WasmContinuousMechanism {
    #[wasm_bindgen(getter)]
    pub fn id(&self) -> String {
        self.mech.document().id().into()
    }
    #[wasm_bindgen(getter)]
    pub fn kind(&self) -> String {
        self.mech.document().mechanism().tag().into()
    }
    #[wasm_bindgen(getter)]
    pub fn domain(&self) -> Result<JsValue, JsValue> {
        domain_js(self.mech.document())
    }
    #[wasm_bindgen(getter, js_name = latticePrior)]
    pub fn lattice_prior(&self) -> Vec<f64> {
        self.mech.document().lattice_prior().to_vec()
    }
    /// Releases a perturbed value for `x ∈ [lo, hi]` with the browser CSPRNG.
    pub fn perturb(&mut self, x: f64) -> Result<f64, JsValue> {
        self.mech.perturb(x, &mut self.rng).map_err(js_error)
    }
    /// [`WasmContinuousMechanism::perturb`] for many values; stops at the first bad one.
    #[wasm_bindgen(js_name = perturbMany)]
    pub fn perturb_many(&mut self, xs: &[f64]) -> Result<Vec<f64>, JsValue> {
        xs.iter().map(|&x| self.mech.perturb(x, &mut self.rng)).collect::<Result<Vec<_>, _>>().map_err(js_error)
    }
    /// Deterministic perturbation from `seed` — for tests and simulations only.
    #[wasm_bindgen(js_name = perturbManySeededForTesting)]
    pub fn perturb_many_seeded_for_testing(&self, xs: &[f64], seed: u64) -> Result<Vec<f64>, JsValue> {
        let mut rng = DeterministicRngForTesting::seed_from_u64(seed);
        xs.iter().map(|&x| self.mech.perturb(x, &mut rng)).collect::<Result<Vec<_>, _>>().map_err(js_error)
    }
    /// The receipt of a released `y`: the ratio `P(y|x)/P(y)` over the domain, and at
    /// the user's own `x` when given.
    pub fn receipt(&self, y: f64, x: Option<f64>) -> Result<JsValue, JsValue> {
        to_js(&self.mech.receipt(y, x).map_err(js_error)?)
    }
    /// The audit of the sampler that runs.
    pub fn audit(&self) -> Result<JsValue, JsValue> {
        to_js(self.mech.audit())
    }
    /// The full verification report (claims and policy checks).
    pub fn verification(&self) -> Result<JsValue, JsValue> {
        to_js(self.mech.verification())
    }
}
