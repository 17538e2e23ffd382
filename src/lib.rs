//! # privlift
//!
//! Client-side local information privacy. A curator publishes a *mechanism document*
//! (prior, channel, claims); the client parses it, **verifies** the claimed privacy
//! itself, perturbs the user's value with a CSPRNG on the device, and shows a
//! **receipt**: the posterior/prior ratio (lift) of every secret value for the output
//! actually released.
//!
//! ```
//! use privlift::{Document, Policy};
//!
//! let doc = Document::from_json(r#"{
//!   "format": "privlift-mechanism", "version": 1, "id": "coin",
//!   "labels": ["no", "yes"], "prior": [0.7, 0.3],
//!   "mechanism": {"kind": "matrix", "p_y_given_x": [[0.75, 0.25], [0.25, 0.75]]},
//!   "claims": {"ldp_x": 1.0986122886681098}
//! }"#)?;
//! let mech = doc.verify(&Policy::default())?;          // refuses a lying document
//! let mut rng = privlift::rng::DeterministicRngForTesting::seed_from_u64(7);
//! let y = mech.perturb(1, &mut rng)?;                    // in production: privlift::rng::os_rng()
//! let receipt = mech.receipt(y)?;
//! assert!(receipt.input.entries.iter().all(|e| e.lift <= receipt.input.max_lift_bound));
//! # Ok::<(), privlift::Error>(())
//! ```
//!
//! Layers: [`document`] (document), [`leakage`] (audit), [`verify`] (claims and policy),
//! [`sample`] (exact integer alias sampler), [`mechanism`] (verified runtime + receipt),
//! [`rng`] (randomness). The pure core does no I/O and owns no randomness: callers pass
//! an `RngCore + CryptoRng`.
#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(unsafe_code)]
#![warn(missing_debug_implementations)]
#![warn(missing_docs)]

extern crate alloc;

pub mod accounting;
pub mod any;
pub mod document;
pub mod error;
pub mod leakage;
pub mod mechanism;
pub mod numeric;
pub mod open;
pub mod param;
pub mod rng;
pub mod sample;
pub mod verify;

pub use error::{Error, Result};

/// The README's Rust example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
pub use any::{parse_any, parse_any_within, AnyDocument};
pub use document::{ContinuousDocument, Document};
pub use leakage::{audit, Leakage};
pub use mechanism::{
    ContinuousPolicy, ContinuousReceipt, Receipt, ReceiptEntry, ReceiptSection, VerifiedContinuous, VerifiedMechanism,
};
pub use verify::{Policy, PolicyValue, Verification};
