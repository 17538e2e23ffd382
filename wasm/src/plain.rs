//! The discrete client's results as plain JS objects, built field by field.
//!
//! Each result type's fields are set in declaration order with the values its derived
//! `Serialize` gives them in JSON: numbers (NaN and ±∞ stay JS numbers), strings,
//! booleans, arrays, nested objects; an `Option` field that serde writes as `None` is a
//! property holding `undefined`, and one that serde skips when `None` is left out. The
//! objects are those serde-wasm-bindgen built before (`wasm/tests/web.rs` and the npm
//! package's tests read them), without its generic serializer, the derived `Serialize`
//! impls and its key cache in the client module.

use js_sys::{Array, JsString, Object};
use wasm_bindgen::prelude::*;

use privlift::document::{AlipJson, AlphaLiftJson, BpLipJson, ClaimsJson, SrlipJson};
use privlift::leakage::{Alip, Leakage};
use privlift::mechanism::{Receipt, ReceiptEntry, ReceiptSection};
use privlift::verify::{Check, Verification};

#[wasm_bindgen]
extern "C" {
    /// A JS object whose properties are set by `object[key] = value`.
    #[wasm_bindgen(extends = Object)]
    type Plain;

    #[wasm_bindgen(method, indexing_setter)]
    fn set(this: &Plain, key: &JsString, value: JsValue);
}

/// A value as a plain JS value.
pub(crate) trait ToJs {
    /// The JS value of `self`.
    fn to_js(&self) -> JsValue;
}

/// A plain object being filled, one property at a time.
struct Fields(Plain);

impl Fields {
    fn new() -> Self {
        Fields(Object::new().unchecked_into())
    }
    /// Sets the property `key` (keys are set in the order of the type's fields).
    fn value(&self, key: &str, value: JsValue) -> &Self {
        self.0.set(&JsString::from(key), value);
        self
    }
    fn number(&self, key: &str, value: f64) -> &Self {
        self.value(key, JsValue::from_f64(value))
    }
    /// `value` as a property, or no property when `None` (serde's `skip_serializing_if`).
    fn skip_none(&self, key: &str, value: Option<JsValue>) -> &Self {
        if let Some(v) = value {
            self.value(key, v);
        }
        self
    }
    fn done(&self) -> JsValue {
        self.0.clone().into()
    }
}

/// An array of the JS values of `items`.
fn array<T>(items: &[T], item: impl Fn(&T) -> JsValue) -> JsValue {
    let out = Array::new();
    for v in items {
        out.push(&item(v));
    }
    out.into()
}

fn numbers(v: &[f64]) -> JsValue {
    array(v, |&x| JsValue::from_f64(x))
}

impl ToJs for Alip {
    fn to_js(&self) -> JsValue {
        Fields::new().number("eps_l", self.eps_l).number("eps_u", self.eps_u).done()
    }
}

impl ToJs for Leakage {
    fn to_js(&self) -> JsValue {
        Fields::new()
            .number("lip", self.lip)
            .value("alip", self.alip.to_js())
            .number("ldp", self.ldp)
            .number("ldp_x", self.ldp_x)
            .number("mi_sy", self.mi_sy)
            .number("mi_xy", self.mi_xy)
            .number("maximal_leakage", self.maximal_leakage)
            .number("min_lift", self.min_lift)
            .number("max_lift", self.max_lift)
            .number("l1_lift", self.l1_lift)
            .number("chi2_lift", self.chi2_lift)
            .number("alpha_lift", self.alpha_lift)
            .number("l1_lift_inverse", self.l1_lift_inverse)
            .number("chi2_lift_inverse", self.chi2_lift_inverse)
            .number("alpha_lift_inverse", self.alpha_lift_inverse)
            .number("alpha_order", self.alpha_order)
            .done()
    }
}

impl ToJs for Check {
    fn to_js(&self) -> JsValue {
        Fields::new()
            .value("notion", JsValue::from_str(&self.notion))
            .number("bound", self.bound)
            .number("actual", self.actual)
            .value("holds", JsValue::from_bool(self.holds))
            .done()
    }
}

impl ToJs for Verification {
    fn to_js(&self) -> JsValue {
        Fields::new()
            .value("leakage", self.leakage.to_js())
            .value("leakage_x", self.leakage_x.to_js())
            .value("claims", array(&self.claims, Check::to_js))
            .value("policy", array(&self.policy, Check::to_js))
            .value("claims_hold", JsValue::from_bool(self.claims_hold))
            .value("policy_holds", JsValue::from_bool(self.policy_holds))
            .done()
    }
}

impl ToJs for AlipJson {
    fn to_js(&self) -> JsValue {
        Fields::new().number("eps_l", self.eps_l).number("eps_u", self.eps_u).done()
    }
}

impl ToJs for AlphaLiftJson {
    fn to_js(&self) -> JsValue {
        Fields::new().number("order", self.order).number("eps_l", self.eps_l).number("eps_u", self.eps_u).done()
    }
}

impl ToJs for BpLipJson {
    fn to_js(&self) -> JsValue {
        Fields::new().number("eps", self.eps).value("priors", array(&self.priors, |p| numbers(p))).done()
    }
}

impl ToJs for SrlipJson {
    fn to_js(&self) -> JsValue {
        let attributes = array(&self.attributes, |&a| JsValue::from_f64(a as f64));
        Fields::new().number("eps", self.eps).value("attributes", attributes).done()
    }
}

impl ToJs for ClaimsJson {
    fn to_js(&self) -> JsValue {
        let number = |v: Option<f64>| v.map(JsValue::from_f64);
        Fields::new()
            .skip_none("ldp", number(self.ldp))
            .skip_none("ldp_x", number(self.ldp_x))
            .skip_none("lip", number(self.lip))
            .skip_none("alip", self.alip.as_ref().map(ToJs::to_js))
            .skip_none("bp_lip", self.bp_lip.as_ref().map(ToJs::to_js))
            .skip_none("l1", self.l1.as_ref().map(ToJs::to_js))
            .skip_none("chi2", self.chi2.as_ref().map(ToJs::to_js))
            .skip_none("alpha", self.alpha.as_ref().map(ToJs::to_js))
            .skip_none("srlip", self.srlip.as_ref().map(ToJs::to_js))
            .done()
    }
}

/// The rows of a receipt section: one object per value, its five keys made once for all
/// rows (a receipt over 4096 labels has 4096 of them).
fn entries(entries: &[ReceiptEntry]) -> JsValue {
    let keys: [JsString; 5] = ["index", "label", "prior", "posterior", "lift"].map(JsString::from);
    array(entries, |e| {
        let row = Fields::new();
        let values = [
            JsValue::from_f64(e.index as f64),
            JsValue::from_str(&e.label),
            JsValue::from_f64(e.prior),
            JsValue::from_f64(e.posterior),
            JsValue::from_f64(e.lift),
        ];
        for (key, value) in keys.iter().zip(values) {
            row.0.set(key, value);
        }
        row.done()
    })
}

/// The bounds of a section after its `entries`.
fn bounds(fields: &Fields, s: &ReceiptSection) {
    fields
        .number("min_lift_bound", s.min_lift_bound)
        .number("max_lift_bound", s.max_lift_bound)
        .number("eps_l", s.eps_l)
        .number("eps_u", s.eps_u);
}

impl ToJs for ReceiptSection {
    fn to_js(&self) -> JsValue {
        let fields = Fields::new();
        fields.value("entries", entries(&self.entries));
        bounds(&fields, self);
        fields.done()
    }
}

/// The receipt with the X section's fields at the top level and `secret` nested (as its
/// `Serialize` writes it); `output_index` and `secret` are `undefined` when `None`.
impl ToJs for Receipt {
    fn to_js(&self) -> JsValue {
        let optional = |v: Option<JsValue>| v.unwrap_or(JsValue::UNDEFINED);
        let fields = Fields::new();
        fields
            .value("mechanism_id", JsValue::from_str(&self.mechanism_id))
            .value("output_index", optional(self.output_index.map(|i| JsValue::from_f64(i as f64))))
            .value("output", JsValue::from_str(&self.output))
            .value("entries", entries(&self.input.entries));
        bounds(&fields, &self.input);
        fields.value("secret", optional(self.secret.as_ref().map(ToJs::to_js)));
        fields.done()
    }
}
