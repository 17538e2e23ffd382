//! `privlift-wasm`: the JS bindings of the privlift core (wasm-bindgen), the one
//! `cdylib` of the workspace, so that the core stays an `rlib` a Rust user can depend on
//! with `default-features = false`. The bindings mirror the core one to one and contain
//! no maths: validation, verification, sampling and receipts all happen in the core; this
//! crate only converts values and errors at the boundary (documents: UTF-8 bytes or text
//! read by the core's own reader into its wire types, within the policy's verification
//! budget, see `parse.rs`).
//!
//! Errors cross as real JS `Error` objects with `name = "PrivliftError"` and a stable
//! `code` property (see [`privlift::Error::code`]).
//!
//! Four modules are built from it (scripts/build-wasm.sh), with additive features:
//! `pkg/` (feature `client`, the default: discrete documents, the ledger's accounting),
//! `pkg-continuous/` (`--no-default-features --features continuous`: continuous documents
//! only), `pkg-open/` (`--no-default-features --features open`: open-domain documents only,
//! which the discrete client's JS loads when it meets one), and the curator module
//! `pkg-design/` (`design`: the discrete and continuous clients, plus design and
//! estimation), so that no client downloads another's code.
#![forbid(unsafe_code)]

extern crate alloc;

/// The allocator of every module: talc instead of the standard library's dlmalloc
/// (smaller in wasm, and as fast).
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

use alloc::string::String;
use alloc::vec::Vec;
use wasm_bindgen::prelude::*;

use privlift::error::{Error, Quoted};
#[cfg(any(feature = "client", feature = "open"))]
use privlift::verify::Policy;
use privlift::verify::PolicyValue;
#[cfg(feature = "client")]
use privlift::{
    any::Family,
    document::{Document, DocumentJson},
    mechanism::VerifiedMechanism,
    rng::{os_rng, DeterministicRngForTesting, OsPoolRng},
    verify::work_budget,
};

/// The getters every document and mechanism class has, whatever its family: `id` (the
/// document's) and `kind` (its mechanism's tag: `matrix`, `per_secret`, `unary`, `krr`,
/// `rr_lip`, `merge`, `sparse`, `srr`; `gaussian`, `laplace`, `sampling`), for the class
/// `$class` (JS name `$js`) whose document is `$doc` of `$this`.
#[cfg(any(feature = "client", feature = "continuous"))]
macro_rules! family_getters {
    ($class:ident as $js:ident, |$this:ident| $doc:expr) => {
        #[wasm_bindgen(js_class = $js)]
        impl $class {
            /// The document's `id`.
            #[wasm_bindgen(getter)]
            pub fn id(&self) -> String {
                let $this = self;
                $doc.id().into()
            }
            /// The mechanism's `kind` tag.
            #[wasm_bindgen(getter)]
            pub fn kind(&self) -> String {
                let $this = self;
                $doc.mechanism().tag().into()
            }
        }
    };
}

/// Composition and LIP↔LDP bounds for the client-side ledger.
#[cfg(feature = "client")]
pub mod accounting;

/// Continuous documents (`gaussian`, `laplace`, `sampling` kinds).
#[cfg(feature = "continuous")]
pub mod continuous;

/// Open-domain documents (`olh`, `hadamard`, `hcms`, `heavy_hitters`): the module `pkg-open/`.
#[cfg(feature = "open")]
pub mod open;

/// Curator-side bindings (design, estimation), in the `design` build only.
#[cfg(feature = "design")]
pub mod design;

/// Core errors as JS `PrivliftError`s with their `code`.
mod error;
#[cfg(feature = "open")]
pub(crate) use error::coded_error;
pub(crate) use error::js_error;

/// The JS (camelCase) spelling of a snake_case name.
mod camel;
pub(crate) use camel::camel;

/// Reading documents from text or UTF-8 bytes, and naming the right entry point for a
/// document of the other family.
mod parse;

/// The discrete client's results as plain JS objects.
#[cfg(feature = "client")]
mod plain;

/// Batches of input indices perturbed into a typed array of the outputs' width.
#[cfg(feature = "client")]
mod batch;
#[cfg(feature = "client")]
use plain::ToJs;

/// A result as a JS value through serde-wasm-bindgen (the continuous and curator
/// bindings; the discrete client's results are built by [`plain`]).
#[cfg(feature = "continuous")]
pub(crate) fn to_js<T: serde::Serialize>(v: &T) -> Result<JsValue, JsValue> {
    // Maps as plain objects; infinities stay JS numbers (Infinity).
    let ser = serde_wasm_bindgen::Serializer::new().serialize_maps_as_objects(true);
    v.serialize(&ser).map_err(|e| js_error(Error::Json { message: alloc::format!("{e}") }))
}

/// [`to_js`] of a result, with every key in camelCase at every depth (JS objects are
/// camelCase; the JSON the CLI writes from the same types keeps serde's snake_case), and
/// so the `notion` of a check, which names a claim or a policy key.
#[cfg(feature = "continuous")]
pub(crate) fn to_js_camel<T: serde::Serialize>(v: &T) -> Result<JsValue, JsValue> {
    to_js(v).map(camel_keys)
}

/// `v` with the keys of its objects (and the `notion` strings) in camelCase.
#[cfg(feature = "continuous")]
fn camel_keys(v: JsValue) -> JsValue {
    if js_sys::Array::is_array(&v) {
        let items: &js_sys::Array = v.unchecked_ref();
        return items.iter().map(camel_keys).collect::<js_sys::Array>().into();
    }
    if !v.is_object() {
        return v;
    }
    let out = js_sys::Object::new();
    for entry in js_sys::Object::entries(v.unchecked_ref()).iter() {
        let entry: js_sys::Array = entry.unchecked_into();
        let key = entry.get(0).as_string().unwrap_or_default();
        let value = match entry.get(1).as_string() {
            Some(notion) if key == "notion" => JsValue::from_str(&camel(&notion)),
            _ => camel_keys(entry.get(1)),
        };
        let _ = js_sys::Reflect::set(&out, &JsValue::from_str(&camel(&key)), &value);
    }
    out.into()
}

/// The own properties of `v`, enumerable or not, in their order, when `v` is a **plain
/// object** (made by `{…}` or
/// `Object.create(null)`); `None` for anything else: an array, a `Map`, a class instance,
/// an object with a prototype of its own. A policy's limits are read from these alone,
/// and a limit held anywhere else (a `Map` entry, a getter of a class, an inherited
/// property) would be silently dropped, so such a policy is refused instead. (An object
/// made in another realm, such as an iframe, has another `Object.prototype`: refused too.)
pub(crate) fn plain_members(v: &JsValue) -> Result<Option<Vec<(String, JsValue)>>, JsValue> {
    if !v.is_object() || js_sys::Array::is_array(v) {
        return Ok(None);
    }
    let proto = js_sys::Object::get_prototype_of(v);
    if !proto.is_null()
        && JsValue::from(proto) != JsValue::from(js_sys::Object::get_prototype_of(&js_sys::Object::new()))
    {
        return Ok(None);
    }
    let obj: &js_sys::Object = v.unchecked_ref();
    let mut out = Vec::new();
    for key in js_sys::Object::get_own_property_names(obj).iter() {
        out.push((key.as_string().unwrap_or_default(), js_sys::Reflect::get(obj, &key)?));
    }
    Ok(Some(out))
}

/// The own properties of a policy object, for the core's readers ([`Policy::from_entries`],
/// `ContinuousPolicy::from_entries`): `None` for no policy (`undefined` or `null`), else
/// the members of a plain object; anything else is `invalid_argument`. The core refuses
/// every limit that is not a number (`null` and `undefined` included), an unknown key and
/// a key given twice; not via serde-wasm-bindgen, which would drop a misspelt key and turn
/// NaN or null into an absent limit.
pub(crate) fn policy_members(policy: &JsValue) -> Result<Option<Vec<(String, JsValue)>>, JsValue> {
    if policy.is_undefined() || policy.is_null() {
        return Ok(None);
    }
    let members = plain_members(policy)?.map(Some).ok_or_else(|| {
        js_error(Error::invalid(
            "policy",
            "must be a plain object such as {maxLdpX: 1.1} (limits in nats; a Map, a class \
                     instance or inherited limits are not read)",
        ))
    })?;
    if let Some((key, _)) = members.iter().flatten().find(|(key, _)| is_snake_case(key)) {
        return Err(js_error(Error::invalid(
            "policy",
            alloc::format!(
                "JS objects spell keys in camelCase: write {} instead of {}",
                Quoted(&camel(key)),
                Quoted(key)
            ),
        )));
    }
    Ok(members)
}

/// Whether `key` is a snake_case name (`max_ldp_x`): lower-case letters, digits and at
/// least one underscore. A policy in JS spells its keys in camelCase only, so such a key
/// is refused naming its camelCase form rather than read (the CLI's JSON policies read both).
fn is_snake_case(key: &str) -> bool {
    key.contains('_') && key.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// A policy value for the core's readers: a number, or what it is instead (`null`,
/// `undefined`, anything else).
pub(crate) fn policy_value(v: &JsValue) -> PolicyValue {
    match v.as_f64() {
        Some(n) => PolicyValue::Number(n),
        None if v.is_null() => PolicyValue::Other("null"),
        None if v.is_undefined() => PolicyValue::Other("undefined"),
        None => PolicyValue::Other("a value that is not a number"),
    }
}

#[cfg(any(feature = "client", feature = "open"))]
/// The discrete policy of a JS value (no policy: no limits), read by the core's one
/// reader of policies (also behind `privlift verify`).
fn policy_from_js(policy: JsValue) -> Result<Policy, JsValue> {
    match policy_members(&policy)? {
        None => Ok(Policy::default()),
        Some(members) => {
            Policy::from_entries(members.into_iter().map(|(k, v)| (k, policy_value(&v)))).map_err(js_error)
        }
    }
}

/// Whether the JSON document `bytes` is an open-domain one (its kind peeked, nothing
/// built): the JS wrapper then parses it with the open-domain module `pkg-open/`.
#[cfg(feature = "client")]
#[wasm_bindgen(js_name = isOpenDocument)]
pub fn is_open_document(bytes: &[u8]) -> bool {
    privlift::open::is_open(bytes)
}

#[cfg(feature = "client")]
/// A parsed and validated (but not yet verified) mechanism document.
#[wasm_bindgen(js_name = Document)]
#[derive(Debug)]
pub struct WasmDocument {
    pub(crate) doc: Document,
}

#[cfg(feature = "client")]
#[wasm_bindgen(js_class = Document)]
impl WasmDocument {
    /// Parses and validates a JSON document (throws `PrivliftError`), whatever verifying it
    /// would cost (the curator's entry: `estimate`). A continuous document is
    /// `unsupported_mechanism`, naming `parseContinuousMechanism`.
    pub fn parse(json: &str) -> Result<WasmDocument, JsValue> {
        Self::read(json.as_bytes(), |json| DocumentJson::read(json).and_then(Document::from_wire))
    }

    /// [`WasmDocument::parse`] of the document's UTF-8 bytes, read as they are (the text is
    /// never made a JS string; bytes that are not UTF-8 are `json`), within the
    /// verification budget of `policy` (its `maxVerifyWork`; no policy: the default): a
    /// document that verifying would refuse as `too_costly` is refused as it is read, from
    /// the sizes it declares, before the rest of its numbers are held.
    ///
    /// With `thread_limit` (the calling thread's limit on a synchronous verification, when
    /// below the budget), a document dearer than that limit but within the budget is
    /// refused as it is read too, as `needs_async` with its `work` (what it costs at least):
    /// its parse would hold the thread as long as its verification.
    #[wasm_bindgen(js_name = parseBytes)]
    pub fn parse_bytes(json: &[u8], policy: JsValue, thread_limit: Option<f64>) -> Result<WasmDocument, JsValue> {
        let budget = work_budget(policy_from_js(policy)?.max_verify_work).map_err(js_error)?;
        let Some(limit) = thread_limit.filter(|&l| l < budget) else {
            return Self::read(json, |json| Document::from_json_within(json, budget));
        };
        let mut needs_async = None;
        let doc = Self::read(json, |json| {
            Document::from_json_within(json, limit).map_err(|e| match e {
                Error::TooCostly { what, work, .. } if work.is_nan() || work > budget => {
                    Error::too_costly(what, work, budget)
                }
                Error::TooCostly { work, .. } => {
                    needs_async = Some(work);
                    e
                }
                e => e,
            })
        });
        match (doc, needs_async) {
            // Unless `read` made it another error (bytes that are not UTF-8, another family's kind).
            (Err(e), Some(work)) if error::code_of(&e).as_deref() == Some("too_costly") => {
                Err(error::needs_async(work))
            }
            (doc, _) => doc,
        }
    }

    fn read(json: &[u8], read: impl FnOnce(&[u8]) -> privlift::Result<Document>) -> Result<WasmDocument, JsValue> {
        parse::read_document(json, Family::Discrete, read).map(|doc| WasmDocument { doc })
    }

    #[wasm_bindgen(getter)]
    pub fn description(&self) -> Option<String> {
        self.doc.description().map(String::from)
    }
    #[wasm_bindgen(getter)]
    pub fn labels(&self) -> Vec<String> {
        self.doc.input().labels().to_vec()
    }
    #[wasm_bindgen(getter, js_name = outputLabels)]
    pub fn output_labels(&self) -> Vec<String> {
        self.doc.output().labels().to_vec()
    }
    #[wasm_bindgen(getter, js_name = secretLabels)]
    pub fn secret_labels(&self) -> Vec<String> {
        self.doc.secret().labels().to_vec()
    }
    /// The document as pretty JSON (to publish it): curator side, so only in the design
    /// module (no client calls the serialiser, so the client module does not carry it).
    #[cfg(feature = "design")]
    #[wasm_bindgen(js_name = toJson)]
    pub fn to_json(&self) -> String {
        self.doc.to_json()
    }

    #[wasm_bindgen(getter)]
    pub fn prior(&self) -> Vec<f64> {
        self.doc.prior().to_vec()
    }
    /// The claims as a plain object.
    #[wasm_bindgen(getter)]
    pub fn claims(&self) -> Result<JsValue, JsValue> {
        Ok(self.doc.claims().to_js())
    }

    /// The audit of the declared channel (all measures).
    pub fn audit(&self, alpha_order: Option<f64>) -> Result<JsValue, JsValue> {
        let leak = self.doc.audit(alpha_order.unwrap_or(privlift::leakage::DEFAULT_ALPHA_ORDER)).map_err(js_error)?;
        Ok(leak.to_js())
    }

    /// Every claim and policy check, without throwing on a failed check.
    pub fn check(&self, policy: JsValue) -> Result<JsValue, JsValue> {
        let v = self.doc.check(&policy_from_js(policy)?).map_err(js_error)?;
        Ok(v.to_js())
    }

    /// What verifying this document under `policy` costs in work units
    /// ([`privlift::verify::Work::of`]), with `verify`'s refusals before any work: a
    /// malformed policy, `too_costly` above the policy's budget. The wrapper verifies a
    /// document above a small share of the budget off the calling thread only.
    #[wasm_bindgen(js_name = verifyWork)]
    pub fn verify_work(&self, policy: JsValue) -> Result<f64, JsValue> {
        let policy = policy_from_js(policy)?;
        let work = privlift::verify::Work::of(&self.doc);
        work.check("this document", work_budget(policy.max_verify_work).map_err(js_error)?).map_err(js_error)?;
        Ok(work.0)
    }

    /// Verifies claims and policy; returns a mechanism ready to perturb, or throws.
    pub fn verify(&self, policy: JsValue) -> Result<WasmMechanism, JsValue> {
        let mech = self.doc.verify(&policy_from_js(policy)?).map_err(js_error)?;
        Ok(WasmMechanism { mech, rng: os_rng() })
    }
}

#[cfg(feature = "client")]
family_getters!(WasmDocument as Document, |this| this.doc);

#[cfg(feature = "client")]
/// A verified mechanism with its own pool on `crypto.getRandomValues`.
#[wasm_bindgen(js_name = Mechanism)]
#[derive(Debug)]
pub struct WasmMechanism {
    mech: VerifiedMechanism,
    rng: OsPoolRng,
}

#[cfg(feature = "client")]
family_getters!(WasmMechanism as Mechanism, |this| this.mech.document());

#[cfg(feature = "client")]
#[wasm_bindgen(js_class = Mechanism)]
impl WasmMechanism {
    #[wasm_bindgen(getter)]
    pub fn labels(&self) -> Vec<String> {
        self.mech.document().input().labels().to_vec()
    }
    #[wasm_bindgen(getter, js_name = outputLabels)]
    pub fn output_labels(&self) -> Vec<String> {
        self.mech.document().output().labels().to_vec()
    }
    #[wasm_bindgen(getter, js_name = secretLabels)]
    pub fn secret_labels(&self) -> Vec<String> {
        self.mech.document().secret().labels().to_vec()
    }

    /// The prior P_X the document declares (the ledger uses its smallest mass).
    #[wasm_bindgen(getter)]
    pub fn prior(&self) -> Vec<f64> {
        self.mech.document().prior().to_vec()
    }

    /// Input index of a label or decimal index string (throws `unknown_value`).
    #[wasm_bindgen(js_name = inputIndex)]
    pub fn input_index(&self, value: &str) -> Result<u32, JsValue> {
        self.mech.document().input_index(value).map(|i| i as u32).map_err(js_error)
    }

    /// Perturbs input index `x` with the browser CSPRNG; returns the output index.
    pub fn perturb(&mut self, x: u32) -> Result<u32, JsValue> {
        self.mech.perturb(x as usize, &mut self.rng).map(|y| y as u32).map_err(js_error)
    }

    /// Perturbs many input indices with the browser CSPRNG. The inputs arrive as the
    /// module's own copy, and each is replaced by its output there: the batch is copied
    /// once into wasm memory and once out, never a third time.
    #[wasm_bindgen(js_name = perturbMany)]
    pub fn perturb_many(&mut self, mut xs: Vec<u32>) -> Result<Vec<u32>, JsValue> {
        self.mech.perturb_in_place(&mut xs, &mut self.rng).map_err(js_error)?;
        Ok(xs)
    }

    /// Perturbs the input indices of `xs` with the browser CSPRNG, writing each output to
    /// the same place in `out`: `xs` itself (in place), another `Uint32Array`, or a
    /// `Uint8Array`/`Uint16Array` when every output index fits (module `batch`). On an error `out`
    /// is zeroed.
    #[wasm_bindgen(js_name = perturbInto)]
    pub fn perturb_into(&mut self, xs: &js_sys::Uint32Array, out: &JsValue) -> Result<(), JsValue> {
        let out = batch::Outputs::of(out, self.mech.document().output().len()).map_err(js_error)?;
        batch::perturb_into(&self.mech, &mut self.rng, xs, &out).map_err(js_error)
    }

    /// The number of output indices (the output alphabet's size).
    #[wasm_bindgen(getter, js_name = outputCount)]
    pub fn output_count(&self) -> u32 {
        self.mech.document().output().len() as u32
    }

    /// Deterministic perturbation from `seed` — for tests and simulations only.
    #[wasm_bindgen(js_name = perturbManySeededForTesting)]
    pub fn perturb_many_seeded_for_testing(&self, mut xs: Vec<u32>, seed: u64) -> Result<Vec<u32>, JsValue> {
        let mut rng = DeterministicRngForTesting::seed_from_u64(seed);
        self.mech.perturb_in_place(&mut xs, &mut rng).map_err(js_error)?;
        Ok(xs)
    }

    /// The receipt for output index `y`.
    pub fn receipt(&self, y: u32) -> Result<JsValue, JsValue> {
        Ok(self.mech.receipt(y as usize).map_err(js_error)?.to_js())
    }

    /// The receipt for an output given by label.
    #[wasm_bindgen(js_name = receiptForLabel)]
    pub fn receipt_for_label(&self, label: &str) -> Result<JsValue, JsValue> {
        Ok(self.mech.receipt_label(label).map_err(js_error)?.to_js())
    }

    /// Unary encoding: the perturbed bit vector (one 0/1 byte per input label) for input
    /// index `x`, with the browser CSPRNG.
    #[wasm_bindgen(js_name = perturbBits)]
    pub fn perturb_bits(&mut self, x: u32) -> Result<Vec<u8>, JsValue> {
        // The fallible path: a failing browser source is an `rng` error, never a panic.
        let bits = self.mech.perturb_bits(x as usize, &mut self.rng).map_err(js_error)?;
        Ok(bits.into_iter().map(u8::from).collect())
    }

    /// Deterministic [`WasmMechanism::perturb_bits`] from `seed` — for tests and simulations only.
    #[wasm_bindgen(js_name = perturbBitsSeededForTesting)]
    pub fn perturb_bits_seeded_for_testing(&self, x: u32, seed: u64) -> Result<Vec<u8>, JsValue> {
        let mut rng = DeterministicRngForTesting::seed_from_u64(seed);
        let bits = self.mech.perturb_bits(x as usize, &mut rng).map_err(js_error)?;
        Ok(bits.into_iter().map(u8::from).collect())
    }

    /// Unary encoding: the receipt for a released bit vector (bytes 0 or 1).
    #[wasm_bindgen(js_name = receiptBits)]
    pub fn receipt_bits(&self, bits: &[u8]) -> Result<JsValue, JsValue> {
        if let Some(i) = bits.iter().position(|&b| b > 1) {
            return Err(js_error(Error::invalid(
                alloc::format!("bits[{i}]"),
                alloc::format!("a bit is 0 or 1, got {}", bits[i]),
            )));
        }
        let bits: Vec<bool> = bits.iter().map(|&b| b == 1).collect();
        Ok(self.mech.receipt_bits(&bits).map_err(js_error)?.to_js())
    }

    /// The audited leakage of the sampler that runs, w.r.t. the document's secret S.
    pub fn leakage(&self) -> Result<JsValue, JsValue> {
        Ok(self.mech.leakage().to_js())
    }

    /// The audited leakage of the sampler that runs, w.r.t. the user's value X under the
    /// declared prior (what the policy's limits and the ledger read).
    #[wasm_bindgen(js_name = leakageX)]
    pub fn leakage_x(&self) -> Result<JsValue, JsValue> {
        Ok(self.mech.leakage_x().to_js())
    }

    /// LIP w.r.t. X under every prior, not only the declared one
    /// ([`VerifiedMechanism::lip_x_under_any_prior`]).
    #[wasm_bindgen(js_name = lipUnderAnyPrior)]
    pub fn lip_under_any_prior(&self) -> f64 {
        self.mech.lip_x_under_any_prior()
    }

    /// `[min, max]`: the lift bounds every receipt of this mechanism states for X.
    #[wasm_bindgen(js_name = receiptBounds)]
    pub fn receipt_bounds(&self) -> Vec<f64> {
        let (lo, hi) = self.mech.receipt_bounds();
        alloc::vec![lo, hi]
    }

    /// The full verification report (claims and policy checks).
    pub fn verification(&self) -> Result<JsValue, JsValue> {
        Ok(self.mech.verification().to_js())
    }
}

/// Every error code the library can throw.
#[wasm_bindgen(js_name = errorCodes)]
pub fn error_codes() -> Vec<String> {
    Error::CODES.iter().map(|c| String::from(*c)).collect()
}
