//! Numbers, strings and lists.

/// Reads a JSON number.
pub fn number(text: &str) -> Option<f64> {
    text.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn numbers() {
        assert_eq!(super::number(" 1.5 "), Some(1.5));
        assert_eq!(super::number("-0"), Some(-0.0));
    }
}
