//! JS bindings of open-domain documents (`olh`, `hadamard`, `hcms`, `heavy_hitters`): the
//! same one-to-one mirror of the core as the discrete classes, over
//! [`privlift::open`]. Results are plain JS objects with camelCase keys, built field by
//! field (no serde in the client module); a report is `{seed, y}`, `{j, bit}`,
//! `{j, l, bit}` or `{round, seed, y}`.

use alloc::string::String;
use alloc::vec::Vec;
use js_sys::{Array, Object, Reflect, Uint32Array, Uint8Array};
use wasm_bindgen::prelude::*;

use crate::{coded_error, js_error, policy_from_js};
use privlift::any::Family;
use privlift::open::{
    report_fields, OpenAudit, OpenDocument, OpenMechanism, OpenReceipt, OpenReport, OpenVerification, VerifiedOpen,
};
use privlift::rng::{os_rng, DeterministicRngForTesting, OsPoolRng, Randomness};
use privlift::verify::{work_budget, Check};

/// A plain object from its members, in order.
fn object(members: &[(&str, JsValue)]) -> JsValue {
    let o = Object::new();
    for (k, v) in members {
        let _ = Reflect::set(&o, &JsValue::from_str(k), v);
    }
    o.into()
}

fn num(v: f64) -> JsValue {
    JsValue::from_f64(v)
}

fn array<T>(items: &[T], item: impl Fn(&T) -> JsValue) -> JsValue {
    let out = Array::new();
    for v in items {
        out.push(&item(v));
    }
    out.into()
}

fn audit_js(a: &OpenAudit) -> JsValue {
    object(&[("ldpX", num(a.ldp_x)), ("lip", num(a.lip)), ("epsL", num(a.eps_l)), ("epsU", num(a.eps_u))])
}

fn check_js(c: &Check) -> JsValue {
    object(&[
        ("notion", JsValue::from_str(&crate::camel(&c.notion))),
        ("bound", num(c.bound)),
        ("actual", num(c.actual)),
        ("holds", JsValue::from_bool(c.holds)),
    ])
}

fn verification_js(v: &OpenVerification) -> JsValue {
    object(&[
        ("audit", audit_js(&v.audit)),
        ("claims", array(&v.claims, check_js)),
        ("policy", array(&v.policy, check_js)),
        ("claimsHold", JsValue::from_bool(v.claims_hold)),
        ("policyHolds", JsValue::from_bool(v.policy_holds)),
    ])
}

/// The report as its JSON object (the kind's fields in canonical order).
fn report_js(m: &OpenMechanism, r: &OpenReport) -> JsValue {
    let members: Vec<(&str, JsValue)> =
        report_fields(m).iter().zip(r.parts()).map(|(k, v)| (*k, JsValue::from_f64(f64::from(v)))).collect();
    object(&members)
}

/// A report from its object (`{seed, y}`, …) or its canonical text (`"s:y"`), validated
/// by the core (`unknown_output` naming the field; never echoing a value).
fn report_from_js(m: &OpenMechanism, v: &JsValue) -> Result<OpenReport, JsValue> {
    if let Some(text) = v.as_string() {
        return OpenReport::parse(m, &text).map_err(js_error);
    }
    if !v.is_object() {
        return Err(coded_error("invalid_argument", "report: expected a report object or its canonical text"));
    }
    let mut parts = Vec::new();
    for key in report_fields(m) {
        let x = Reflect::get(v, &JsValue::from_str(key)).ok().and_then(|x| x.as_f64());
        match x {
            Some(x) if x >= 0.0 && x.fract() == 0.0 && x <= 9.0e15 => parts.push(x as u64),
            _ => {
                let message = alloc::format!("report.{key}: expected a non-negative integer");
                return Err(coded_error("unknown_output", &message));
            }
        }
    }
    OpenReport::from_parts(m, &parts).map_err(js_error)
}

fn receipt_js(m: &OpenMechanism, r: &OpenReceipt) -> JsValue {
    let listed = array(&r.listed, |e| {
        object(&[
            ("value", JsValue::from_str(&e.value)),
            ("prior", num(e.prior)),
            ("inBucket", JsValue::from_bool(e.in_bucket)),
            ("minLift", num(e.min_lift)),
            ("maxLift", num(e.max_lift)),
        ])
    });
    object(&[
        ("mechanismId", JsValue::from_str(&r.mechanism_id)),
        ("report", report_js(m, &r.report)),
        ("listed", listed),
        ("otherMass", num(r.other_mass)),
        ("unlistedMinLift", num(r.unlisted_min_lift)),
        ("unlistedMaxLift", num(r.unlisted_max_lift)),
        ("epsL", num(r.eps_l)),
        ("epsU", num(r.eps_u)),
    ])
}

/// The columns of the `n` values joined by U+0000 in `text` (see
/// `OpenMechanism.perturbStaged`): drawn into the module's memory at once, then copied
/// out in one array. `text` is zeroed whatever happens; so is every report left in the
/// module's memory.
fn joined_columns<R: Randomness>(
    mech: &VerifiedOpen,
    text: &mut [u8],
    n: usize,
    rng: &mut R,
) -> Result<Uint32Array, JsValue> {
    let drawn = mech.perturb_joined(text, n, rng).map(|mut columns| {
        let out = Uint32Array::from(&columns[..]);
        columns.fill(0);
        core::hint::black_box(&mut columns);
        out
    });
    text.fill(0);
    core::hint::black_box(&mut *text);
    drawn.map_err(js_error)
}

/// A view of `len` bytes at `ptr` of the module's memory, for JS to write into. Valid
/// until the module's memory next grows (any call into the module may grow it): the
/// caller writes at once, then calls the module.
fn memory_view(ptr: *const u8, len: usize) -> Uint8Array {
    let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
    Uint8Array::new_with_byte_offset_and_length(&memory.buffer(), ptr as usize as u32, len as u32)
}

/// A parsed and validated (not yet verified) open-domain document.
#[wasm_bindgen(js_name = OpenDocument)]
#[derive(Debug)]
pub struct WasmOpenDocument {
    doc: OpenDocument,
}

#[wasm_bindgen(js_class = OpenDocument)]
impl WasmOpenDocument {
    /// Parses the document's UTF-8 bytes within the verification budget of `policy`.
    #[wasm_bindgen(js_name = parseBytes)]
    pub fn parse_bytes(json: &[u8], policy: JsValue) -> Result<WasmOpenDocument, JsValue> {
        let budget = work_budget(policy_from_js(policy)?.max_verify_work).map_err(js_error)?;
        let doc = crate::parse::read_document(json, Family::Open, |j| OpenDocument::from_json_within(j, budget))?;
        Ok(WasmOpenDocument { doc })
    }
    #[wasm_bindgen(getter)]
    pub fn id(&self) -> String {
        self.doc.id().into()
    }
    #[wasm_bindgen(getter)]
    pub fn description(&self) -> Option<String> {
        self.doc.description().map(String::from)
    }
    /// `olh`, `hadamard`, `hcms` or `heavy_hitters`.
    #[wasm_bindgen(getter)]
    pub fn kind(&self) -> String {
        self.doc.mechanism().tag().into()
    }
    #[wasm_bindgen(getter, js_name = maxBytes)]
    pub fn max_bytes(&self) -> u32 {
        self.doc.max_bytes() as u32
    }
    /// `{values, p, otherMass}`, or `undefined` without a prior.
    #[wasm_bindgen(getter)]
    pub fn prior(&self) -> JsValue {
        match self.doc.prior() {
            None => JsValue::UNDEFINED,
            Some(p) => object(&[
                ("values", array(p.values(), |v| JsValue::from_str(v))),
                ("p", array(p.p(), |&x| num(x))),
                ("otherMass", num(p.other_mass())),
            ]),
        }
    }
    /// `{ldpX, lip}` (`lip` undefined when not claimed).
    #[wasm_bindgen(getter)]
    pub fn claims(&self) -> JsValue {
        let c = self.doc.claims();
        object(&[("ldpX", num(c.ldp_x.get())), ("lip", c.lip.map_or(JsValue::UNDEFINED, |l| num(l.get())))])
    }
    /// The audit of the randomiser that runs: `{ldpX, lip, epsL, epsU}`.
    pub fn audit(&self) -> Result<JsValue, JsValue> {
        Ok(audit_js(&self.doc.audit().map_err(js_error)?))
    }
    /// Every claim and policy check, without throwing on a failed check.
    pub fn check(&self, policy: JsValue) -> Result<JsValue, JsValue> {
        Ok(verification_js(&self.doc.check(&policy_from_js(policy)?).map_err(js_error)?))
    }
    /// Verifies claims and policy; returns a mechanism or throws.
    pub fn verify(&self, policy: JsValue) -> Result<WasmOpenMechanism, JsValue> {
        let mech = self.doc.verify(&policy_from_js(policy)?).map_err(js_error)?;
        Ok(WasmOpenMechanism { mech, rng: os_rng(), staged: Vec::new() })
    }
}

/// A verified open mechanism with its own pool on `crypto.getRandomValues`.
#[wasm_bindgen(js_name = OpenMechanism)]
#[derive(Debug)]
pub struct WasmOpenMechanism {
    mech: VerifiedOpen,
    rng: OsPoolRng,
    /// Where JS writes a batch's values (`stageValues`); zero between calls.
    staged: Vec<u8>,
}

#[wasm_bindgen(js_class = OpenMechanism)]
impl WasmOpenMechanism {
    #[wasm_bindgen(getter)]
    pub fn id(&self) -> String {
        self.mech.document().id().into()
    }
    #[wasm_bindgen(getter)]
    pub fn kind(&self) -> String {
        self.mech.document().mechanism().tag().into()
    }
    #[wasm_bindgen(getter, js_name = maxBytes)]
    pub fn max_bytes(&self) -> u32 {
        self.mech.document().max_bytes() as u32
    }
    /// One report of `value` with the browser CSPRNG.
    pub fn perturb(&mut self, value: &str) -> Result<JsValue, JsValue> {
        let r = self.mech.perturb(value, &mut self.rng).map_err(js_error)?;
        Ok(report_js(self.mech.document().mechanism(), &r))
    }
    /// The canonical text of many reports, one generator seeded `seed` — tests only.
    #[wasm_bindgen(js_name = perturbManySeededForTesting)]
    pub fn perturb_many_seeded_for_testing(&self, values: Vec<String>, seed: u64) -> Result<Vec<String>, JsValue> {
        let mut rng = DeterministicRngForTesting::seed_from_u64(seed);
        values
            .iter()
            .map(|v| self.mech.perturb(v, &mut rng).map(|r| r.canonical()))
            .collect::<Result<_, _>>()
            .map_err(js_error)
    }
    /// A view of at least `bytes` bytes of the module's memory, for the UTF-8 of a
    /// batch's values joined by U+0000 (written straight into it: no JS buffer, no copy
    /// into the module). A larger request keeps what was written and zeroes the old
    /// place. Write at once, then call `perturbStaged`: any other call into the module
    /// may move its memory and detach the view.
    ///
    /// # Errors
    /// `invalid_argument` naming `values` when the module's memory cannot grow to
    /// `bytes` (then the staged bytes are zeroed).
    #[wasm_bindgen(js_name = stageValues)]
    pub fn stage_values(&mut self, bytes: u32) -> Result<Uint8Array, JsValue> {
        let bytes = bytes as usize;
        if self.staged.len() < bytes {
            let mut grown = Vec::new();
            if grown.try_reserve_exact(bytes).is_err() {
                self.staged.fill(0);
                return Err(coded_error("invalid_argument", "values: more bytes than the module's memory can hold"));
            }
            grown.extend_from_slice(&self.staged);
            grown.resize(bytes, 0);
            self.staged.fill(0);
            core::hint::black_box(&mut self.staged);
            self.staged = grown;
        }
        Ok(memory_view(self.staged.as_ptr(), self.staged.len()))
    }
    /// Many reports with the browser CSPRNG: the first `len` staged bytes
    /// (`stageValues`) are the UTF-8 of `n` values joined by U+0000; the result is one
    /// `Uint32Array` of `n` reports as columns, one per report field in canonical order
    /// (`[seeds…, ys…]` for `olh`). Every value is checked before the first draw
    /// (`invalid_argument` naming `values[i]`, never its text); on any error no array is
    /// returned. The staged values are zeroed whatever happens: no value and no report
    /// stays in the module's memory after the call.
    #[wasm_bindgen(js_name = perturbStaged)]
    pub fn perturb_staged(&mut self, len: u32, n: u32) -> Result<Uint32Array, JsValue> {
        let text = staged_text(&mut self.staged, len)?;
        joined_columns(&self.mech, text, n as usize, &mut self.rng)
    }
    /// [`Self::perturb_staged`] with a generator seeded `seed` — tests only.
    #[wasm_bindgen(js_name = perturbStagedSeededForTesting)]
    pub fn perturb_staged_seeded_for_testing(&mut self, len: u32, n: u32, seed: u64) -> Result<Uint32Array, JsValue> {
        let text = staged_text(&mut self.staged, len)?;
        joined_columns(&self.mech, text, n as usize, &mut DeterministicRngForTesting::seed_from_u64(seed))
    }
    /// The canonical stored text of a report (`"s:y"`, …), validated.
    pub fn canonical(&self, report: JsValue) -> Result<String, JsValue> {
        Ok(report_from_js(self.mech.document().mechanism(), &report)?.canonical())
    }
    /// The report object of a report given as an object or its canonical text, validated.
    #[wasm_bindgen(js_name = reportObject)]
    pub fn report_object(&self, report: JsValue) -> Result<JsValue, JsValue> {
        let m = self.mech.document().mechanism();
        Ok(report_js(m, &report_from_js(m, &report)?))
    }
    /// The receipt of a report (object or canonical text).
    pub fn receipt(&self, report: JsValue) -> Result<JsValue, JsValue> {
        let m = self.mech.document().mechanism();
        let r = self.mech.receipt(&report_from_js(m, &report)?).map_err(js_error)?;
        Ok(receipt_js(m, &r))
    }
    pub fn audit(&self) -> JsValue {
        audit_js(&self.mech.audit())
    }
    pub fn verification(&self) -> JsValue {
        verification_js(self.mech.verification())
    }
}

/// The first `len` bytes of `staged`, or the refusal of a length past what was staged
/// (then the staged bytes are zeroed).
fn staged_text(staged: &mut [u8], len: u32) -> Result<&mut [u8], JsValue> {
    let len = len as usize;
    if len > staged.len() {
        staged.fill(0);
        return Err(coded_error("invalid_argument", "len: more bytes than were staged"));
    }
    Ok(&mut staged[..len])
}
