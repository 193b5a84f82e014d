//! Text helpers: the byte budgets shared by extract and evaluate truncation,
//! and the not-blank rule of the schemas.

/// A string with a non-whitespace char (`url`, target `selector`, `handoff`
/// `reason`): what the decoder checks as `!text.trim().is_empty()`.
pub const NOT_BLANK_PATTERN: &str = r"\S";

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
