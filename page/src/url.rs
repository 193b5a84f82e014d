//! Resolving link targets against a document's base URL (RFC 3986 §5.2), enough for
//! Markdown links: no percent-encoding or IDNA, which the browser already applied to
//! the base and which relative references rarely need.

/// `reference` resolved against the absolute `base`. Absolute references come back
/// unchanged; an empty base returns the reference as is.
pub fn resolve(base: &str, reference: &str) -> String {
    let reference = reference.trim();
    if has_scheme(reference) || base.is_empty() {
        return reference.to_owned();
    }
    let Some(colon) = base.find(':') else {
        return reference.to_owned();
    };
    let scheme = &base[..colon];
    let rest = &base[colon + 1..];
    if let Some(r) = reference.strip_prefix("//") {
        return format!("{scheme}://{r}");
    }
    // Split the base into authority, path, query (fragment dropped).
    let rest = rest.split('#').next().unwrap_or("");
    let (authority, path_query) = match rest.strip_prefix("//") {
        Some(r) => {
            let end = r.find(['/', '?']).unwrap_or(r.len());
            (Some(&r[..end]), &r[end..])
        }
        None => (None, rest),
    };
    let (base_path, base_query) = match path_query.find('?') {
        Some(q) => (&path_query[..q], &path_query[q..]),
        None => (path_query, ""),
    };
    let prefix = match authority {
        Some(a) => format!("{scheme}://{a}"),
        None => format!("{scheme}:"),
    };
    if reference.is_empty() {
        return format!("{prefix}{base_path}{base_query}");
    }
    if reference.starts_with('#') {
        return format!("{prefix}{base_path}{base_query}{reference}");
    }
    if reference.starts_with('?') {
        return format!("{prefix}{base_path}{reference}");
    }
    let (ref_path, tail) = match reference.find(['?', '#']) {
        Some(i) => (&reference[..i], &reference[i..]),
        None => (reference, ""),
    };
    let merged = if ref_path.starts_with('/') {
        ref_path.to_owned()
    } else {
        let dir = match base_path.rfind('/') {
            Some(i) => &base_path[..=i],
            None if authority.is_some() => "/",
            None => "",
        };
        format!("{dir}{ref_path}")
    };
    format!("{prefix}{}{tail}", remove_dot_segments(&merged))
}

fn has_scheme(s: &str) -> bool {
    let Some(colon) = s.find(':') else {
        return false;
    };
    let scheme = &s[..colon];
    !scheme.is_empty()
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

fn remove_dot_segments(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').collect();
    let last = segments.len().saturating_sub(1);
    for (i, seg) in segments.iter().enumerate() {
        match *seg {
            "." => {
                if i == last {
                    out.push("");
                }
            }
            ".." => {
                if out.len() > 1 {
                    out.pop();
                }
                if i == last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    let joined = out.join("/");
    if path.starts_with('/') && !joined.starts_with('/') {
        format!("/{joined}")
    } else {
        joined
    }
}

/// The origin (`scheme://host[:port]`) of an `http(s)` document URL, for
/// `Element::frame_origin` (PROTOCOL.md §6); `None` for URLs without one of their
/// own (`about:blank`, `about:srcdoc`, `data:`: such frames take their
/// parent's origin).
pub fn origin(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    if !matches!(scheme, "http" | "https") {
        return None;
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    (!host.is_empty()).then(|| format!("{scheme}://{}", host.to_ascii_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::{origin, resolve};

    #[test]
    fn rfc3986_examples() {
        let base = "http://a/b/c/d;p?q";
        for (r, want) in [
            ("g:h", "g:h"),
            ("g", "http://a/b/c/g"),
            ("./g", "http://a/b/c/g"),
            ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"),
            ("//g", "http://g"),
            ("?y", "http://a/b/c/d;p?y"),
            ("g?y", "http://a/b/c/g?y"),
            ("#s", "http://a/b/c/d;p?q#s"),
            ("g#s", "http://a/b/c/g#s"),
            ("..", "http://a/b/"),
            ("../g", "http://a/b/g"),
            ("../..", "http://a/"),
            ("../../g", "http://a/g"),
            ("../../../g", "http://a/g"),
            ("", "http://a/b/c/d;p?q"),
        ] {
            assert_eq!(resolve(base, r), want, "{r}");
        }
        assert_eq!(resolve("https://x.org", "a/b"), "https://x.org/a/b");
    }

    #[test]
    fn origins() {
        assert_eq!(
            origin("https://Pay.test:8443/card?x=1#y").as_deref(),
            Some("https://pay.test:8443")
        );
        assert_eq!(
            origin("http://u:p@localhost:9/").as_deref(),
            Some("http://localhost:9")
        );
        assert_eq!(origin("about:blank"), None);
        assert_eq!(origin("data:text/html,x"), None);
    }
}
