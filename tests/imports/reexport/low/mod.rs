mod x;

pub use x::X;
