//! The document reader's number conversion against serde_json's exact reader: a JSON
//! number text built from the input (sign, up to a few hundred digits, a decimal point,
//! an exponent anywhere in and beyond the f64 range) must get the same kind, the same
//! bits and the same refusal from both (tests/decimal.rs holds the seeded version).
#![no_main]

use libfuzzer_sys::fuzz_target;
use privlift::document::codec::decimal::{parse, Num};

fuzz_target!(|data: &[u8]| {
    let Some((&head, rest)) = data.split_first() else { return };
    let Some((exp_bytes, digits)) = rest.split_at_checked(2) else { return };
    let digits: Vec<u8> = digits.iter().take(400).map(|b| b'0' + b % 10).collect();
    if digits.is_empty() {
        return;
    }
    let mut text = String::new();
    if head & 1 == 1 {
        text.push('-');
    }
    // No leading zero before more digits (JSON), then an optional point and exponent.
    let int_len = 1 + usize::from(head >> 3) % digits.len();
    let int = &digits[..int_len];
    let int = if int.len() > 1 && int[0] == b'0' { &int[1..2] } else { int };
    text.push_str(std::str::from_utf8(int).unwrap());
    if head & 2 == 2 && int_len < digits.len() {
        text.push('.');
        text.push_str(std::str::from_utf8(&digits[int_len..]).unwrap());
    }
    if head & 4 == 4 {
        let e = i16::from_le_bytes([exp_bytes[0], exp_bytes[1]]) % 1200;
        text.push_str(&format!("e{e}"));
    }
    let ours = parse(&text);
    let theirs = serde_json::from_str::<serde_json::Number>(&text).ok().map(|n| match (n.as_u64(), n.as_i64()) {
        (Some(v), _) => Num::U64(v),
        (None, Some(v)) => Num::I64(v),
        _ => Num::F64(n.as_f64().unwrap()),
    });
    let same = match (ours, theirs) {
        (Some(Num::F64(a)), Some(Num::F64(b))) => a.to_bits() == b.to_bits(),
        (a, b) => a == b,
    };
    assert!(same, "{text}: ours {ours:?}, serde_json {theirs:?}");
});
