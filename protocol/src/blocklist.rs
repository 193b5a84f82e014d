//! The user's domain blocklist (PROTOCOL.md §10): `example.com` blocks
//! `example.com` and every subdomain. Pure: the extension keeps the list in
//! `chrome.storage.local` (key `blocklist`, an array of strings) and asks here.

/// The lower-cased host of an absolute URL (no userinfo, no port), or `None` for
/// URLs without a host (`about:blank`, `data:`).
pub fn host_of(url: &str) -> Option<String> {
    let (_, rest) = url.trim().split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if let Some(v6) = host_port.strip_prefix('[') {
        v6.split(']').next().unwrap_or_default()
    } else {
        host_port.split(':').next().unwrap_or_default()
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    (!host.is_empty()).then_some(host)
}

/// Normalises one blocklist entry as a user may type it (`https://Example.com/x`,
/// `*.example.com`, ` .example.com `) to a bare domain (`example.com`); `None` for an
/// empty entry.
pub fn normalize_entry(entry: &str) -> Option<String> {
    let entry = entry.trim();
    let host = if entry.contains("://") {
        host_of(entry)?
    } else {
        let bare = entry.split(['/', '?', '#']).next().unwrap_or_default();
        bare.split(':')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase()
    };
    let host = host.trim_start_matches("*.").trim_matches('.').to_owned();
    (!host.is_empty()).then_some(host)
}

/// The blocklist entry (normalised) that blocks `url`, if any: the URL's host equals
/// the entry or ends with `.` + entry.
pub fn blocked_domain<S: AsRef<str>>(url: &str, blocklist: &[S]) -> Option<String> {
    let host = host_of(url)?;
    blocklist
        .iter()
        .filter_map(|e| normalize_entry(e.as_ref()))
        .find(|domain| host == *domain || host.ends_with(&format!(".{domain}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts() {
        assert_eq!(
            host_of("https://User:pw@Sub.Example.com:8443/a?b#c").as_deref(),
            Some("sub.example.com")
        );
        assert_eq!(host_of("http://[::1]:80/").as_deref(), Some("::1"));
        assert_eq!(
            host_of("http://127.0.0.1:9/x").as_deref(),
            Some("127.0.0.1")
        );
        assert_eq!(host_of("about:blank"), None);
    }

    #[test]
    fn subdomains_are_blocked_lookalikes_are_not() {
        let list = ["example.com", "  ", "https://Bank.test/login"];
        assert_eq!(
            blocked_domain("https://example.com/", &list).as_deref(),
            Some("example.com")
        );
        assert_eq!(
            blocked_domain("https://a.b.example.com/x", &list).as_deref(),
            Some("example.com")
        );
        assert_eq!(
            blocked_domain("https://www.bank.test", &list).as_deref(),
            Some("bank.test")
        );
        assert_eq!(blocked_domain("https://notexample.com/", &list), None);
        assert_eq!(
            blocked_domain("https://example.com.evil.test/", &list),
            None
        );
        assert_eq!(blocked_domain("about:blank", &list), None);
    }

    #[test]
    fn entries_normalise() {
        assert_eq!(
            normalize_entry("*.Example.com").as_deref(),
            Some("example.com")
        );
        assert_eq!(
            normalize_entry(".example.com.").as_deref(),
            Some("example.com")
        );
        assert_eq!(
            normalize_entry("localhost:8080/x").as_deref(),
            Some("localhost")
        );
        assert_eq!(normalize_entry(""), None);
    }
}
