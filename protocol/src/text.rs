//! Byte-budget helpers shared by extract and evaluate truncation.

/// The largest index `<= max` that is a char boundary of `text`.
pub fn floor_char_boundary(text: &str, max: usize) -> usize {
    if max >= text.len() {
        return text.len();
    }
    let mut i = max;
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// `text` cut to at most `max` bytes on a char boundary; `true` when it was cut.
pub fn truncate_bytes(text: &str, max: usize) -> (&str, bool) {
    let end = floor_char_boundary(text, max);
    (&text[..end], end < text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_on_char_boundary() {
        assert_eq!(truncate_bytes("héllo", 2), ("h", true));
        assert_eq!(truncate_bytes("héllo", 3), ("hé", true));
        assert_eq!(truncate_bytes("abc", 10), ("abc", false));
    }
}
