//! The discrete client's results as plain JS objects, built field by field.
//!
//! Each result type's fields are set in declaration order, under the camelCase form of
//! the names its derived `Serialize` gives them in JSON (JS objects are camelCase; the
//! JSON the CLI writes keeps snake_case), with the values it gives them: numbers (NaN and ±∞ stay JS numbers), strings,
//! booleans, arrays, nested objects; an `Option` field that serde writes as `None` is a
//! property holding `undefined`, and one that serde skips when `None` is left out. The
//! objects are those serde-wasm-bindgen built before (`wasm/tests/web.rs` and the npm
//! package's tests read them), without its generic serializer, the derived `Serialize`
//! impls and its key cache in the client module. Each impl destructures its type in
//! full (a [`Leakage`] by its own [`Leakage::members`]), so a field added to a result type
//! does not compile until it is written here.

use js_sys::{Array, JsString, Object};
use wasm_bindgen::prelude::*;

use privlift::document::{AlphaLift, BpLip, Claims, Srlip, TwoSided};
use privlift::leakage::{Alip, Leakage, Member};
use privlift::mechanism::{Receipt, ReceiptEntry, ReceiptSection};
use privlift::param::Budget;
use privlift::verify::{Check, Verification};

use crate::camel::camel;

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
        let Alip { eps_l, eps_u } = *self;
        Fields::new().number("epsL", eps_l).number("epsU", eps_u).done()
    }
}

impl ToJs for Leakage {
    fn to_js(&self) -> JsValue {
        let fields = Fields::new();
        for (name, member) in self.members() {
            let value = match member {
                Member::Number(v) => JsValue::from_f64(v),
                Member::Alip(a) => a.to_js(),
            };
            fields.value(&camel(name), value);
        }
        fields.done()
    }
}

impl ToJs for Check {
    fn to_js(&self) -> JsValue {
        let Check { notion, bound, actual, holds } = self;
        Fields::new()
            .value("notion", JsValue::from_str(&camel(notion)))
            .number("bound", *bound)
            .number("actual", *actual)
            .value("holds", JsValue::from_bool(*holds))
            .done()
    }
}

impl ToJs for Verification {
    fn to_js(&self) -> JsValue {
        let Verification { leakage, leakage_x, claims, policy, claims_hold, policy_holds } = self;
        Fields::new()
            .value("leakage", leakage.to_js())
            .value("leakageX", leakage_x.to_js())
            .value("claims", array(claims, Check::to_js))
            .value("policy", array(policy, Check::to_js))
            .value("claimsHold", JsValue::from_bool(*claims_hold))
            .value("policyHolds", JsValue::from_bool(*policy_holds))
            .done()
    }
}

impl ToJs for TwoSided {
    fn to_js(&self) -> JsValue {
        let TwoSided { eps_l, eps_u } = *self;
        Fields::new().number("epsL", eps_l.get()).number("epsU", eps_u.get()).done()
    }
}

impl ToJs for AlphaLift {
    fn to_js(&self) -> JsValue {
        let AlphaLift { order, eps_l, eps_u } = *self;
        Fields::new().number("order", order).number("epsL", eps_l.get()).number("epsU", eps_u.get()).done()
    }
}

impl ToJs for BpLip {
    fn to_js(&self) -> JsValue {
        let BpLip { eps, priors } = self;
        Fields::new().number("eps", eps.get()).value("priors", array(priors, |p| numbers(p))).done()
    }
}

impl ToJs for Srlip {
    fn to_js(&self) -> JsValue {
        let Srlip { eps, attributes } = self;
        let attributes = array(attributes, |&a| JsValue::from_f64(a as f64));
        Fields::new().number("eps", eps.get()).value("attributes", attributes).done()
    }
}

impl ToJs for Claims {
    fn to_js(&self) -> JsValue {
        let Claims { ldp, ldp_x, lip, alip, bp_lip, l1, chi2, alpha, srlip } = self;
        let number = |v: &Option<Budget>| v.map(|b| JsValue::from_f64(b.get()));
        Fields::new()
            .skip_none("ldp", number(ldp))
            .skip_none("ldpX", number(ldp_x))
            .skip_none("lip", number(lip))
            .skip_none("alip", alip.as_ref().map(ToJs::to_js))
            .skip_none("bpLip", bp_lip.as_ref().map(ToJs::to_js))
            .skip_none("l1", l1.as_ref().map(ToJs::to_js))
            .skip_none("chi2", chi2.as_ref().map(ToJs::to_js))
            .skip_none("alpha", alpha.as_ref().map(ToJs::to_js))
            .skip_none("srlip", srlip.as_ref().map(ToJs::to_js))
            .done()
    }
}

/// The rows of a receipt section: one object per value, its five keys made once for all
/// rows (a receipt over 4096 labels has 4096 of them).
fn entries(entries: &[ReceiptEntry]) -> JsValue {
    let keys: [JsString; 5] = ["index", "label", "prior", "posterior", "lift"].map(JsString::from);
    array(entries, |e| {
        let row = Fields::new();
        let ReceiptEntry { index, label, prior, posterior, lift } = e;
        let values = [
            JsValue::from_f64(*index as f64),
            JsValue::from_str(label),
            JsValue::from_f64(*prior),
            JsValue::from_f64(*posterior),
            JsValue::from_f64(*lift),
        ];
        for (key, value) in keys.iter().zip(values) {
            row.0.set(key, value);
        }
        row.done()
    })
}

/// A section's fields, `entries` then its bounds, into `fields`.
fn section(fields: &Fields, s: &ReceiptSection) {
    let ReceiptSection { entries: rows, min_lift_bound, max_lift_bound, eps_l, eps_u } = s;
    fields
        .value("entries", entries(rows))
        .number("minLiftBound", *min_lift_bound)
        .number("maxLiftBound", *max_lift_bound)
        .number("epsL", *eps_l)
        .number("epsU", *eps_u);
}

impl ToJs for ReceiptSection {
    fn to_js(&self) -> JsValue {
        let fields = Fields::new();
        section(&fields, self);
        fields.done()
    }
}

/// The receipt with the X section's fields at the top level and `secret` nested (as its
/// `Serialize` writes it); `outputIndex` and `secret` are `undefined` when `None`.
impl ToJs for Receipt {
    fn to_js(&self) -> JsValue {
        let Receipt { mechanism_id, output_index, output, input, secret } = self;
        let optional = |v: Option<JsValue>| v.unwrap_or(JsValue::UNDEFINED);
        let fields = Fields::new();
        fields
            .value("mechanismId", JsValue::from_str(mechanism_id))
            .value("outputIndex", optional(output_index.map(|i| JsValue::from_f64(i as f64))))
            .value("output", JsValue::from_str(output));
        section(&fields, input);
        fields.value("secret", optional(secret.as_ref().map(ToJs::to_js)));
        fields.done()
    }
}
