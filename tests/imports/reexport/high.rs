use crate::low::X;

pub struct H(pub X);
