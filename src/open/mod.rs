//! Open domains: values that are UTF-8 strings of at most a stated number of bytes, not
//! members of a listed alphabet. The kinds here (local hashing, Hadamard response, the
//! Hadamard count-mean sketch, prefix-extension heavy hitters) map a value through a
//! specified hash ([`hash`]) onto a small alphabet and randomise that.

pub mod hash;
