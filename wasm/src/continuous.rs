//! JS bindings of continuous documents (`kind` `gaussian`, `laplace`, `sampling`): the
//! same one-to-one mirror of the core as the discrete classes in `mod.rs`, over
//! [`privlift::document::ContinuousDocument`] and [`privlift::mechanism::continuous`].

use alloc::string::String;
use alloc::vec::Vec;
use wasm_bindgen::prelude::*;

use crate::{js_error, plain_members, policy_members, policy_value, to_js, to_js_camel};
use privlift::any::Family;
use privlift::document::{ContinuousDocument, ContinuousDocumentJson};
use privlift::mechanism::continuous::{ContinuousPolicy, VerifiedContinuous};
use privlift::rng::{os_rng, DeterministicRngForTesting, OsPoolRng};
use privlift::verify::PolicyValue;

/// The continuous policy of a JS value `{lip: {eps, delta}, ldp: {eps, delta},
/// maxVerifyWork}` (no policy: no limits), read by the core's one reader of continuous
/// policies (also behind `privlift verify`): an unknown key or a value that is not a
/// number (`null` included) is `invalid_argument`. The ranges are checked by verification.
fn policy_from_js(policy: JsValue) -> Result<ContinuousPolicy, JsValue> {
    match policy_members(&policy)? {
        None => Ok(ContinuousPolicy::default()),
        Some(members) => {
            ContinuousPolicy::from_entries(members.into_iter().map(|(k, v)| (k, limit_value(&v)))).map_err(js_error)
        }
    }
}

/// A continuous limit for the core's reader: a plain object's members `{eps, delta}`,
/// any other object named as one that is not plain (its limits are not read), or a
/// [`policy_value`].
fn limit_value(v: &JsValue) -> PolicyValue {
    match plain_members(v) {
        Ok(Some(fields)) => PolicyValue::Object(fields.into_iter().map(|(k, v)| (k, policy_value(&v))).collect()),
        _ if v.is_object() && !js_sys::Array::is_array(v) => {
            PolicyValue::Other("an object that is not a plain object (a Map, a class instance)")
        }
        _ => policy_value(v),
    }
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
        let read = |json: &[u8]| ContinuousDocumentJson::read(json).and_then(ContinuousDocument::from_wire);
        crate::parse::read_document(json, Family::Continuous, read).map(|doc| WasmContinuousDocument { doc })
    }
    #[wasm_bindgen(getter)]
    pub fn description(&self) -> Option<String> {
        self.doc.description().map(String::from)
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
        to_js_camel(self.doc.claims())
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
        to_js_camel(&self.doc.audit().map_err(js_error)?)
    }
    /// Every claim and policy check, without throwing on a failed check.
    pub fn check(&self, policy: JsValue) -> Result<JsValue, JsValue> {
        to_js_camel(&self.doc.check(&policy_from_js(policy)?).map_err(js_error)?)
    }
    /// What verifying this document under `policy` costs in work units (what its
    /// `maxVerifyWork` is compared with), with `verify`'s refusals before any work. The
    /// wrapper verifies a document above a small share of the budget off the calling
    /// thread only.
    #[wasm_bindgen(js_name = verifyWork)]
    pub fn verify_work(&self, policy: JsValue) -> Result<f64, JsValue> {
        let policy = policy_from_js(policy)?;
        let work = self.doc.verify_work(&policy).map_err(js_error)?;
        let budget = privlift::verify::work_budget(policy.max_verify_work).map_err(js_error)?;
        work.check("this continuous document", budget).map_err(js_error)?;
        Ok(work.0)
    }

    /// Verifies claims and policy on the exact sampler; returns a mechanism or throws.
    pub fn verify(&self, policy: JsValue) -> Result<WasmContinuousMechanism, JsValue> {
        let mech = self.doc.verify(&policy_from_js(policy)?).map_err(js_error)?;
        Ok(WasmContinuousMechanism { mech, rng: os_rng() })
    }
}

family_getters!(WasmContinuousDocument as ContinuousDocument, |this| this.doc);

/// A verified continuous mechanism with its own pool on `crypto.getRandomValues`.
#[wasm_bindgen(js_name = ContinuousMechanism)]
#[derive(Debug)]
pub struct WasmContinuousMechanism {
    mech: VerifiedContinuous,
    rng: OsPoolRng,
}

family_getters!(WasmContinuousMechanism as ContinuousMechanism, |this| this.mech.document());

#[wasm_bindgen(js_class = ContinuousMechanism)]
impl WasmContinuousMechanism {
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
        to_js_camel(&self.mech.receipt(y, x).map_err(js_error)?)
    }
    /// The audit of the sampler that runs.
    pub fn audit(&self) -> Result<JsValue, JsValue> {
        to_js_camel(self.mech.audit())
    }
    /// The full verification report (claims and policy checks).
    pub fn verification(&self) -> Result<JsValue, JsValue> {
        to_js_camel(self.mech.verification())
    }
}
