use super::Shared;

pub(in crate::b) fn g(_: &Shared) {
    crate::b::h();
}
