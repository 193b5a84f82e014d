//! Reading text the way the detector needs it: what the page says itself (not
//! code, quotes or data), whole words in any script, titles, URL parts.

use super::words::{MENTION_AFTER, MENTION_BEFORE, QUOTE_MARKS, TITLE_SEPARATORS};

/// The markdown the page says itself: fenced code blocks, blockquote lines,
/// inline code spans, table rows and list items are blanked (a thread quoting a block page's HTML or a
/// ticket pasting an error mentions the phrase; it does not say it). Lines stay
/// where they were.
pub(super) fn said(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len());
    let mut fenced = false;
    let mut in_item = false;
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fenced = !fenced;
            out.push('\n');
            continue;
        }
        // Table rows and list items are entries of data (a log, an inbox, search
        // results), not the page's own message.
        let item = trimmed.starts_with("- ")
            || trimmed.starts_with('|')
            || trimmed
                .split_once(". ")
                .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        let continued = in_item && line.starts_with(' ');
        in_item = item || continued || (in_item && trimmed.is_empty());
        if !fenced && !trimmed.starts_with('>') && !item && !continued {
            let mut in_code = false;
            out.extend(line.chars().filter(|&c| {
                if c == '`' {
                    in_code = !in_code;
                }
                !in_code && c != '`'
            }));
        }
        out.push('\n');
    }
    out
}

/// Lower-cased, typographic apostrophes as `'`.
pub(super) fn normalise(text: &str) -> String {
    text.chars()
        .map(|c| if c == '\u{2019}' { '\'' } else { c })
        .collect::<String>()
        .to_lowercase()
}

/// `title` (lower-cased) is `phrase`, or `phrase` and a site name set off by a
/// separator (`Access denied | example.com`, `Attention Required! | Cloudflare`,
/// `Sorry, you have been blocked`); not `Access Denied (band) – Tour dates` nor
/// `Login history`.
pub(super) fn title_is(title: &str, phrase: &str, max_extra: usize) -> bool {
    let title = title.trim_end_matches(['.', '!', '…', ' ', ':']).trim();
    if let Some(rest) = title.strip_prefix(phrase) {
        let rest = rest.trim_start_matches(['!', '.', '…', ' ']);
        rest.is_empty() || (rest.starts_with(TITLE_SEPARATORS) && rest.chars().count() <= max_extra)
    } else if let Some(rest) = title.strip_suffix(phrase) {
        let rest = rest.trim_end();
        rest.is_empty()
            || ((rest.ends_with(TITLE_SEPARATORS) || rest.ends_with(','))
                && rest.chars().count() <= max_extra)
    } else {
        false
    }
}

/// `phrase` occurs in `text` as whole words and says it rather than mentions it:
/// not quoted (a quotation mark just before it, a Markdown blockquote or code on its
/// line), not named as a thing ([`MENTION_BEFORE`] just before it: "an access
/// denied message"; [`MENTION_AFTER`] just after it: "access denied errors"), and
/// not inside a question it does not open ("why was my access denied?" mentions,
/// "are you a robot?" asks).
pub(super) fn stands_in(text: &str, phrase: &str) -> bool {
    let is_word = is_word_char;
    text.match_indices(phrase).any(|(i, _)| {
        let end = i + phrase.len();
        let before = text[..i].chars().next_back();
        let after = text[end..].chars().next();
        if before.is_some_and(is_word) || after.is_some_and(is_word) {
            return false;
        }
        let quoted = before.is_some_and(|c| QUOTE_MARKS.contains(&c));
        let line_start = text[..i].rfind('\n').map_or(0, |n| n + 1);
        let line = text[line_start..i].trim_start();
        if quoted || line.starts_with('>') || line.contains('`') || inside_quotes(line) {
            return false;
        }
        let lead = text[..i].trim_end();
        if MENTION_BEFORE
            .iter()
            .any(|w| lead.ends_with(w) && !lead[..lead.len() - w.len()].ends_with(is_word))
        {
            return false;
        }
        let rest = text[end..].trim_start();
        if MENTION_AFTER
            .iter()
            .any(|w| rest.starts_with(w) && !rest[w.len()..].starts_with(is_word))
        {
            return false;
        }
        let sentence_start = text[..i].rfind(['.', '!', '?', '\n']).map_or(0, |n| n + 1);
        let opens = text[sentence_start..i]
            .trim_matches(|c: char| !c.is_alphanumeric())
            .is_empty();
        let closing = text[end..]
            .find(['.', '!', '?', '\n'])
            .map(|n| &text[end + n..]);
        opens || !closing.is_some_and(|c| c.starts_with('?'))
    })
}

/// A quotation opened in `prefix` (the line up to the phrase) and not closed:
/// `I got “Sorry, you have been blocked …”` quotes the phrase.
fn inside_quotes(prefix: &str) -> bool {
    let count = |c: char| prefix.chars().filter(|&x| x == c).count();
    count('\u{201c}') > count('\u{201d}')
        || count('\u{ab}') > count('\u{bb}')
        || count('"') % 2 == 1
}

/// A char that continues a word. Scripts written without spaces (Han, kana,
/// Hangul) have no word boundaries to respect, so their chars never do.
fn is_word_char(c: char) -> bool {
    (c.is_alphanumeric() || c == '_') && (c as u32) < 0x2E80
}

/// `(host, path)` of a lower-cased URL: no scheme, userinfo, port, query or fragment.
pub(super) fn split_url(url: &str) -> (&str, &str) {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = host.split_once(':').map_or(host, |(h, _)| h);
    let after = &rest[end..];
    let path_end = after.find(['?', '#']).unwrap_or(after.len());
    (host, &after[..path_end])
}

/// `host` is `domain` or one of its subdomains.
pub(super) fn host_is(host: &str, domain: &str) -> bool {
    host == domain
        || host
            .strip_suffix(domain)
            .is_some_and(|prefix| prefix.ends_with('.'))
}

/// `path` holds `fragment` as whole segments (`/captcha` matches `/captcha` and
/// `/x/captcha/y`, not `/captchas`).
pub(super) fn path_has(path: &str, fragment: &str) -> bool {
    path.match_indices(fragment)
        .any(|(i, _)| matches!(path[i + fragment.len()..].chars().next(), None | Some('/')))
}

/// A path segment is a login segment: `login`, `login.php`, …
pub(super) fn segment_is(segment: &str, login: &str) -> bool {
    segment
        .strip_prefix(login)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
}

/// `\b{word}\b` on lower-cased text, with regex's Unicode notion of a word char
/// (alphanumeric or `_`).
pub(super) fn contains_word(text: &str, word: &str) -> bool {
    let is_word = is_word_char;
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        let starts = word.chars().next().is_some_and(is_word);
        let ends = word.chars().next_back().is_some_and(is_word);
        (!starts || !before.is_some_and(is_word)) && (!ends || !after.is_some_and(is_word))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_boundaries() {
        assert!(contains_word("new password", "password"));
        assert!(contains_word("password-change", "password"));
        assert!(!contains_word("passwords", "password"));
        assert!(!contains_word("mypassword", "password"));
        assert!(!contains_word("pwd_hint", "pwd"));
        assert!(contains_word("just a moment...", "just a moment"));
        // No spaces between words in Han, kana or Hangul: no boundaries either.
        assert!(contains_word("请完成安全验证", "安全验证"));
        assert!(stands_in("请完成安全验证后继续访问", "安全验证"));
        assert!(!stands_in(
            "the site says: access deniedness",
            "access denied"
        ));
    }

    #[test]
    fn url_parts() {
        assert_eq!(
            split_url("https://u@accounts.example.com:8443/a/b?q=1#f"),
            ("accounts.example.com", "/a/b")
        );
        assert_eq!(split_url("https://example.com"), ("example.com", ""));
        assert!(host_is("www.google.com", "google.com"));
        assert!(!host_is("notgoogle.com", "google.com"));
        assert!(path_has("/x/captcha/y", "/captcha"));
        assert!(!path_has("/captchas", "/captcha"));
    }
}
