pub fn h() {}

#[cfg(test)]
mod tests {
    use crate::a::g;
}
