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
    canonical_host(host)
}

/// The host as the WHATWG URL parser serialises it, so that one address has one
/// spelling before matching: lower-cased, trailing dots dropped, IPv4 in any
/// decimal/octal/hex shorthand (`127.1`, `0x7f000001`, `2130706433`, `0177.0.0.1`)
/// as dotted decimal, and an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`,
/// `::ffff:7f00:1`) as its IPv4 form. `None` when empty.
pub fn canonical_host(host: &str) -> Option<String> {
    let host = host
        .trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.')
        .to_ascii_lowercase();
    if host.is_empty() {
        return None;
    }
    if let Some(v4) = parse_ipv4(&host) {
        return Some(v4.to_string());
    }
    if host.contains(':')
        && let Ok(v6) = host.parse::<core::net::Ipv6Addr>()
    {
        return Some(match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => v6.to_string(),
        });
    }
    Some(host)
}

/// WHATWG "IPv4 parser": 1–4 dot-separated parts, each decimal, octal (`0` prefix)
/// or hex (`0x`); the last part fills the remaining bytes. `None` when the host is
/// not an IPv4 address (a domain name).
fn parse_ipv4(host: &str) -> Option<core::net::Ipv4Addr> {
    let mut parts: Vec<&str> = host.split('.').collect();
    if parts.last() == Some(&"") {
        parts.pop();
    }
    if parts.is_empty() || parts.len() > 4 {
        return None;
    }
    let numbers = parts
        .iter()
        .map(|p| parse_ipv4_number(p))
        .collect::<Option<Vec<u64>>>()?;
    let (last, init) = numbers.split_last()?;
    if init.iter().any(|&n| n > 255) || *last >= 256u64.pow(5 - numbers.len() as u32) {
        return None;
    }
    let mut value = *last;
    for (i, &n) in init.iter().enumerate() {
        value += n << (8 * (3 - i));
    }
    u32::try_from(value).ok().map(core::net::Ipv4Addr::from)
}

fn parse_ipv4_number(part: &str) -> Option<u64> {
    if part.is_empty() {
        return None;
    }
    let (digits, radix) =
        if let Some(hex) = part.strip_prefix("0x").or_else(|| part.strip_prefix("0X")) {
            (hex, 16)
        } else if part.len() > 1 && part.starts_with('0') {
            (&part[1..], 8)
        } else {
            (part, 10)
        };
    if digits.is_empty() {
        return Some(0);
    }
    if !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
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
        let host = if let Some(v6) = bare.strip_prefix('[') {
            v6.split(']').next().unwrap_or_default()
        } else if bare.matches(':').count() > 1 {
            bare // a bare IPv6 address
        } else {
            bare.split(':').next().unwrap_or_default()
        };
        host.to_ascii_lowercase()
    };
    let host = host.trim_start_matches("*.").trim_matches('.');
    canonical_host(host)
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
        assert_eq!(normalize_entry("0x7F.1").as_deref(), Some("127.0.0.1"));
        assert_eq!(normalize_entry("[::1]:80").as_deref(), Some("::1"));
        assert_eq!(
            normalize_entry("::FFFF:7f00:1").as_deref(),
            Some("127.0.0.1")
        );
    }

    #[test]
    fn ip_spellings_are_canonical() {
        let list = ["127.0.0.1"];
        for url in [
            "http://127.0.0.1:8765/",
            "http://127.1:8765/",
            "http://0x7f000001:8765/",
            "http://0X7F.0.0.1/",
            "http://2130706433:8765/",
            "http://0177.0.0.1/",
            "http://127.0.0.1./",
            "http://[::ffff:127.0.0.1]:8765/",
            "http://[::FFFF:7f00:1]/",
        ] {
            assert_eq!(
                blocked_domain(url, &list).as_deref(),
                Some("127.0.0.1"),
                "{url}"
            );
        }
        assert_eq!(blocked_domain("http://127.0.0.2/", &list), None);
        assert_eq!(blocked_domain("http://[::1]/", &list), None);
        // Not IPv4: a part that is not a number, or out of range.
        assert_eq!(canonical_host("1.2.3.4.5").as_deref(), Some("1.2.3.4.5"));
        assert_eq!(canonical_host("0x.example").as_deref(), Some("0x.example"));
        assert_eq!(canonical_host("256.1.1.1").as_deref(), Some("256.1.1.1"));
        assert_eq!(canonical_host("1.2.65536").as_deref(), Some("1.2.65536"));
        assert_eq!(canonical_host("1.2.65535").as_deref(), Some("1.2.255.255"));
        // Entries spelled oddly block the canonical address too.
        assert!(blocked_domain("http://127.0.0.1/", &["2130706433"]).is_some());
        assert!(blocked_domain("http://localhost/", &["LOCALHOST."]).is_some());
    }
}
