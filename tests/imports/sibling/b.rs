// A comment naming crate::a::Nothing adds no edge; the inline path below does.
pub struct B;

pub fn make() -> crate::a::A {
    crate::a::A(B)
}
