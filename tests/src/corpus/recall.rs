//! Content recall as the corpus README defines it: the share of the words of
//! `expected.html`'s text (its first 20 000 bytes when the text exceeds 25 000 bytes)
//! that appear in the extracted markdown.

use std::collections::HashSet;

/// Expected text above this many bytes is measured on its first [`HEAD_BYTES`].
pub const LONG_BYTES: usize = 25_000;
/// The prefix measured for long expected texts.
pub const HEAD_BYTES: usize = 20_000;

/// Phrasing tags, which do not break words.
const INLINE_TAGS: &[&str] = &[
    "a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "dfn", "em", "font", "i", "kbd",
    "mark", "q", "s", "samp", "small", "span", "strong", "sub", "sup", "time", "u", "var",
];

/// Visible text of an HTML fragment: tags dropped, script/style bodies dropped,
/// common entities decoded.
pub fn html_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len() / 2);
    let mut rest = html;
    while let Some(lt) = rest.find('<') {
        out.push_str(&rest[..lt]);
        rest = &rest[lt..];
        let lower: String = rest
            .chars()
            .take(8)
            .collect::<String>()
            .to_ascii_lowercase();
        let skip_to = if lower.starts_with("<script") {
            "</script>"
        } else if lower.starts_with("<style") {
            "</style>"
        } else if lower.starts_with("<!--") {
            "-->"
        } else {
            ">"
        };
        // Block-level tags separate words; inline ones (a drop cap's <span>) do not.
        let name: String = rest[1..]
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        if !INLINE_TAGS.contains(&name.as_str()) {
            out.push(' ');
        }
        match find_ci(rest, skip_to) {
            Some(end) => rest = &rest[end + skip_to.len()..],
            None => rest = "",
        }
    }
    out.push_str(rest);
    decode_entities(&out)
}

fn find_ci(hay: &str, needle: &str) -> Option<usize> {
    hay.to_ascii_lowercase().find(needle)
}

fn decode_entities(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let end = rest.find(';').filter(|&e| e < 12);
        let decoded = end.and_then(|e| {
            let ent = &rest[1..e];
            let c = match ent {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some(' '),
                _ if ent.starts_with("#x") || ent.starts_with("#X") => {
                    u32::from_str_radix(&ent[2..], 16)
                        .ok()
                        .and_then(char::from_u32)
                }
                _ if ent.starts_with('#') => ent[1..].parse().ok().and_then(char::from_u32),
                _ => None,
            };
            c.map(|c| (c, e))
        });
        match decoded {
            Some((c, e)) => {
                out.push(c);
                rest = &rest[e + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Lower-cased alphanumeric words of `text`.
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The expected text measured for a page (whitespace-collapsed, long texts cut).
pub fn expected_text(expected_html: &str) -> String {
    let text = html_text(expected_html);
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.len() > LONG_BYTES {
        let end = browser_bridge_protocol::text::floor_char_boundary(&text, HEAD_BYTES);
        text[..end].to_owned()
    } else {
        text
    }
}

/// Share of `expected`'s words (with repetition) found among `got`'s words; 1.0 when
/// `expected` has no words.
pub fn recall(expected: &str, got: &str) -> f64 {
    let want = words(expected);
    if want.is_empty() {
        return 1.0;
    }
    let have: HashSet<String> = words(got).into_iter().collect();
    want.iter().filter(|w| have.contains(*w)).count() as f64 / want.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_recall() {
        let html = "<p>Hello &amp; <b>world</b><script>var x = 1;</script></p><!-- hidden -->";
        assert_eq!(
            html_text(html).split_whitespace().collect::<Vec<_>>(),
            ["Hello", "&", "world"]
        );
        assert!((recall("hello world again", "Hello, World!") - 2.0 / 3.0).abs() < 1e-9);
    }
}
