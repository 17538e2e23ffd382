//! How large a document may be: its alphabets, the priors of a claim, a per-secret
//! mechanism, the attributes of an SRLIP audit. Every reader checks against these before
//! it allocates.

use crate::error::{Error, Result};

/// Largest alphabet (|X|, |Y| or |S|) a document may use.
pub const MAX_SYMBOLS: usize = 4096;
/// Largest number of priors in a `bp_lip` claim.
pub const MAX_PRIORS: usize = 1024;
/// Largest |S|·|X|·|Y| of a per-secret mechanism (entries of P(Y|S,X)).
pub const MAX_PER_SECRET_ENTRIES: usize = 1 << 24;

/// Largest number of attributes an SRLIP audit takes (it visits all 2ᵐ subsets).
pub const MAX_SRLIP_ATTRIBUTES: usize = 16;

/// Checks an attribute list against |X|: 1..=[`MAX_SRLIP_ATTRIBUTES`] attributes, each
/// of size ≥ 1, whose sizes multiply to `nx`.
///
/// # Errors
/// `invalid_argument` naming `field` for a bad list, `dimension_mismatch` when the
/// product is not `nx`.
pub fn check_attributes(field: &str, attributes: &[usize], nx: usize) -> Result<()> {
    if attributes.is_empty() || attributes.len() > MAX_SRLIP_ATTRIBUTES {
        return Err(Error::invalid(
            field,
            alloc::format!("needs 1..={MAX_SRLIP_ATTRIBUTES} attributes, got {}", attributes.len()),
        ));
    }
    if let Some(j) = attributes.iter().position(|&a| a == 0) {
        return Err(Error::EmptyAlphabet { field: alloc::format!("{field}[{j}]") });
    }
    let product = attributes.iter().try_fold(1usize, |p, &a| p.checked_mul(a));
    match product {
        Some(p) if p == nx => Ok(()),
        Some(p) => Err(Error::field(field).dims(nx, p)),
        None => Err(Error::field(field).dims(nx, usize::MAX)),
    }
}
