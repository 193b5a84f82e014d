//! Helpers for the wording of error messages: what they echo of user or page text.

/// Longest user-supplied selector or text echoed in a message (chars).
pub const ECHO_MAX_CHARS: usize = 200;

/// `text` capped to [`ECHO_MAX_CHARS`] chars, with `…` when cut: what an error
/// message echoes of a selector, typed text or page text (a 50 kB selector must not
/// come back in full).
pub fn cap(text: &str) -> String {
    match text.char_indices().nth(ECHO_MAX_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// [`cap`], quoted as `{:?}` would.
pub fn quote(text: &str) -> String {
    format!("{:?}", cap(text))
}

/// `word` with its indefinite article: `an input`, `an alert`, `a confirm`
/// (by the first letter, ignoring a leading `<`).
pub fn with_article(word: &str) -> String {
    let vowel = word
        .trim_start_matches('<')
        .starts_with(['a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U']);
    format!("{} {word}", if vowel { "an" } else { "a" })
}

/// The first 200 bytes of a frame for a log line, cut on a char boundary.
pub fn short(text: &str) -> &str {
    &text[..browser_bridge_protocol::text::floor_char_boundary(text, 200)]
}

/// Whether a `chrome.debugger` error says the debugger left the tab while (or
/// before) a command ran: the tab closed, navigated where no extension may debug
/// (`chrome://`, another extension), or another debugger took it. Chrome's own
/// wordings (`Detached while handling command.`, `Debugger is not attached to the
/// tab with id: 7.`, `No tab with given id 7.`).
pub fn is_detached(message: &str) -> bool {
    [
        "Detached while handling command",
        "Debugger is not attached",
        "No tab with given id",
    ]
    .iter()
    .any(|m| message.contains(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detach_wordings_are_told_from_cdp_errors() {
        assert!(is_detached("Detached while handling command."));
        assert!(is_detached(
            "Debugger is not attached to the tab with id: 7."
        ));
        assert!(is_detached("No tab with given id 7."));
        assert!(!is_detached("Could not compute box model."));
        assert!(!is_detached("Cannot find context with specified id"));
    }

    #[test]
    fn cap_counts_chars_not_bytes() {
        assert_eq!(cap("#save"), "#save");
        let exact = "é".repeat(ECHO_MAX_CHARS);
        assert_eq!(cap(&exact), exact);
        let long = "é".repeat(ECHO_MAX_CHARS + 1);
        assert_eq!(cap(&long), format!("{}…", "é".repeat(ECHO_MAX_CHARS)));
        assert_eq!(cap(""), "");
    }

    #[test]
    fn quote_escapes_like_debug() {
        assert_eq!(quote("a \"b\"\n"), r#""a \"b\"\n""#);
        assert_eq!(quote(&"x".repeat(300)), format!("\"{}…\"", "x".repeat(200)));
    }

    #[test]
    fn articles() {
        assert_eq!(with_article("input"), "an input");
        assert_eq!(with_article("alert"), "an alert");
        assert_eq!(with_article("confirm"), "a confirm");
        assert_eq!(with_article("<a>"), "an <a>");
        assert_eq!(with_article("<div>"), "a <div>");
        assert_eq!(with_article("Element"), "an Element");
        assert_eq!(with_article(""), "a ");
    }

    #[test]
    fn short_cuts_on_a_char_boundary() {
        assert_eq!(short("ping"), "ping");
        let text = format!("{}é tail", "x".repeat(199));
        assert_eq!(short(&text), "x".repeat(199));
    }
}
