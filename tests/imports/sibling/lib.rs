//! Two siblings naming each other: by a `use` line, and back by an inline path.
mod a;
mod b;
