//! The JS spelling of a name: JS objects are camelCase, the core's fields, policy keys and
//! check notions snake_case.

use alloc::string::String;

/// The camelCase form of a snake_case name (`max_eps_l_s` → `maxEpsLS`, `alip.eps_l` →
/// `alip.epsL`): the JS spelling of a field, a policy key or a check's notion.
pub(crate) fn camel(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    let mut upper = false;
    for c in snake.chars() {
        match c {
            '_' => upper = true,
            c if upper => {
                out.push(c.to_ascii_uppercase());
                upper = false;
            }
            c => out.push(c),
        }
    }
    out
}
