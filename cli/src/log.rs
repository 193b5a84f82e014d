//! Log lines that untrusted text cannot forge: every field value a log line
//! carries (message types, client ids, error messages quoting the peer's input) is
//! written with control characters escaped (`\n`, `\r`, `\u{1b}`…) and cut to
//! [`MAX_FIELD_BYTES`], so one event is one stderr line of bounded length however
//! the text got there.

use std::fmt::Write as _;

use tracing_subscriber::field::MakeExt;
use tracing_subscriber::fmt::FormatFields;
use tracing_subscriber::fmt::format::Writer;

/// Longest field value written to a log line (bytes, before escaping).
pub(crate) const MAX_FIELD_BYTES: usize = 2048;

/// `text` with control characters escaped as Rust escapes (`\n`, `\u{1b}`);
/// printable text, including non-ASCII, is kept as is.
pub(crate) fn escape_controls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            let _ = write!(out, "{}", c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// The field formatter for `tracing_subscriber::fmt().fmt_fields(…)`: the default
/// `name=value` layout, space-separated, the message bare, each value escaped
/// and cut as the module says.
pub(crate) fn escaped_fields() -> impl for<'w> FormatFields<'w> + Send + Sync + 'static {
    tracing_subscriber::fmt::format::debug_fn(|writer: &mut Writer<'_>, field, value| {
        let text = format!("{value:?}");
        let text = escape_controls(&browser_bridge_backend::events::cut(&text, MAX_FIELD_BYTES));
        if field.name() == "message" {
            write!(writer, "{text}")
        } else {
            write!(writer, "{field}={text}")
        }
    })
    .delimited(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(
            escape_controls("a\nb\r\u{1b}[31mc\té"),
            "a\\nb\\r\\u{1b}[31mc\\té"
        );
    }
}
