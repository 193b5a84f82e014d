//! The user's domain blocklist (PROTOCOL.md §10): `example.com` blocks
//! `example.com` and every subdomain.
//!
//! Hosts are compared in WHATWG canonical form, the form Chrome itself loads: the
//! URL and every entry go through a real WHATWG URL parser first (in the extension
//! the browser's own `URL`, natively the `url` crate), which undoes every spelling
//! trick — upper case, percent-encoded dots (`example%2Ecom`), the IDNA dots
//! (`。` U+3002, `．` U+FF0E, `｡` U+FF61), tabs and newlines inside the host,
//! backslashes read as slashes (`https://example.com\@evil.test/` is
//! `example.com`), IPv4 shorthand (`127.1`, `0x7f000001`) and Unicode hosts
//! (turned to punycode). This module holds only what is left once the parser has
//! spoken, so that it stays pure: the parser is passed in as a function
//! `url → URL.hostname`.

/// The user's blocklist, canonicalised once: each entry reduced to the host the
/// WHATWG parser gives for it, then to its [`host_key`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Blocklist {
    domains: Vec<String>,
}

impl Blocklist {
    /// Canonicalises `entries` as the user typed them (`Example.com`,
    /// `*.example.com`, `.example.com.`, `https://example.com/login`, `bücher.de`,
    /// `[::1]:80`, `2130706433`). `hostname` is a WHATWG URL parser: for an absolute
    /// URL it returns `URL.hostname` (`""` when the URL has no host), `None` when the
    /// URL does not parse. Entries that are empty or do not parse as a host are
    /// dropped: no URL a browser loads could match them.
    pub fn new<S: AsRef<str>>(entries: &[S], hostname: impl Fn(&str) -> Option<String>) -> Self {
        let mut domains: Vec<String> = Vec::new();
        for domain in entries
            .iter()
            .filter_map(|entry| entry_url(entry.as_ref()))
            .filter_map(|url| hostname(&url))
            .filter_map(|host| host_key(&host))
        {
            // No sort/dedup: lists are short, and the sort code would grow the wasm.
            if !domains.contains(&domain) {
                domains.push(domain);
            }
        }
        Blocklist { domains }
    }

    /// The canonical domains, in entry order, without duplicates.
    pub fn domains(&self) -> &[String] {
        &self.domains
    }

    /// The domain that blocks `hostname` (a `URL.hostname` from the same parser as
    /// [`Blocklist::new`]'s), if any: the host equals the domain or ends with `.` +
    /// domain.
    pub fn blocking(&self, hostname: &str) -> Option<&str> {
        let host = host_key(hostname)?;
        self.domains
            .iter()
            .find(|domain| {
                host == **domain
                    || (host.ends_with(domain.as_str())
                        && host[..host.len() - domain.len()].ends_with('.'))
            })
            .map(String::as_str)
    }

    /// Whether the list is empty (no check needed).
    pub fn is_empty(&self) -> bool {
        self.domains.is_empty()
    }

    /// The domains as `chrome.declarativeNetRequest` matches them
    /// (`RuleCondition.requestDomains`, which compares the request URL's canonical
    /// host and covers subdomains): names as they are, IPv6 addresses in brackets
    /// (`[::1]`, the form Chrome's URL host takes), and each IPv4 address also as
    /// the IPv4-mapped IPv6 literal Chrome canonicalises `[::ffff:127.0.0.1]` to
    /// (`[::ffff:7f00:1]`), which connects to the same address.
    pub fn request_domains(&self) -> Vec<String> {
        let mut out = Vec::with_capacity(self.domains.len());
        for domain in &self.domains {
            if let Ok(v4) = domain.parse::<core::net::Ipv4Addr>() {
                let [_, _, _, _, _, _, hi, lo] = v4.to_ipv6_mapped().segments();
                out.push(domain.clone());
                out.push(format!("[::ffff:{hi:x}:{lo:x}]"));
            } else if domain.contains(':') {
                out.push(format!("[{domain}]"));
            } else {
                out.push(domain.clone());
            }
        }
        out
    }
}

/// The entries of the `blocklist` setting (`chrome.storage.local`), read so that a
/// malformed setting never fails open: absent or `null` is no entry; an array of
/// strings is the list; a string is a list split on commas and whitespace (a
/// hand-edited `"a.test, b.test"`).
///
/// # Errors
/// Any other shape (a number, an object, an array holding a non-string): a message
/// naming the setting, which the extension answers to every navigation until the
/// setting is fixed.
pub fn setting_entries(value: &serde_json::Value) -> Result<Vec<String>, String> {
    use serde_json::Value;
    let invalid = || {
        Err(format!(
            "the blocklist setting (chrome.storage.local `blocklist`) is {value}, not a list of domains: \
             tell the user to fix it in the extension's options"
        ))
    };
    match value {
        Value::Null => Ok(Vec::new()),
        Value::String(text) => Ok(text
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|entry| !entry.is_empty())
            .map(str::to_owned)
            .collect()),
        Value::Array(items) => items
            .iter()
            .map(|item| item.as_str().map(str::to_owned).ok_or(()))
            .collect::<Result<_, _>>()
            .or_else(|()| invalid()),
        _ => invalid(),
    }
}

/// The absolute URL whose host is the entry: `*.` and leading/trailing dots are
/// dropped (an entry always covers its subdomains), `http://` is put in front of a
/// bare entry so that the parser reads it as a host. `None` for an empty entry.
pub fn entry_url(entry: &str) -> Option<String> {
    let entry = entry.trim();
    if entry.contains("://") {
        return Some(entry.to_owned());
    }
    let bare = entry.trim_start_matches("*.").trim_start_matches('.');
    if bare.is_empty() {
        return None;
    }
    // A bare IPv6 address (`::1`) needs its brackets to be read as a host.
    if bare.matches(':').count() > 1 && !bare.starts_with('[') {
        return Some(format!("http://[{bare}]/"));
    }
    Some(format!("http://{bare}"))
}

/// The form two hosts are compared in, from a WHATWG `URL.hostname`: brackets of
/// an IPv6 literal and trailing dots dropped (`example.com.` resolves as
/// `example.com`), an IPv4-mapped IPv6 address (`[::ffff:7f00:1]`, which Chrome
/// connects to as IPv4) as its IPv4 form. `None` for an empty host (`about:blank`,
/// `data:`).
pub fn host_key(hostname: &str) -> Option<String> {
    let host = hostname
        .trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.')
        .to_ascii_lowercase();
    if host.is_empty() {
        return None;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The WHATWG parser natively: `URL.hostname` as the `url` crate gives it.
    fn hostname(url: &str) -> Option<String> {
        url::Url::parse(url)
            .ok()
            .map(|u| u.host_str().unwrap_or_default().to_owned())
    }

    fn list(entries: &[&str]) -> Blocklist {
        Blocklist::new(entries, hostname)
    }

    /// The domain blocking `url`, the way the extension checks a URL.
    fn blocked(list: &Blocklist, url: &str) -> Option<String> {
        list.blocking(&hostname(url).expect("url parses"))
            .map(str::to_owned)
    }

    #[test]
    fn subdomains_are_blocked_lookalikes_are_not() {
        let list = list(&["example.com", "  ", "https://Bank.test/login"]);
        assert_eq!(list.domains(), ["example.com", "bank.test"]);
        assert_eq!(
            super::tests::list(&["a.test", "A.test.", "*.a.test"]).domains(),
            ["a.test"]
        );
        for url in [
            "https://example.com/",
            "https://a.b.example.com/x",
            "http://user:pw@example.com:8443/",
        ] {
            assert_eq!(blocked(&list, url).as_deref(), Some("example.com"), "{url}");
        }
        assert_eq!(
            blocked(&list, "https://www.bank.test").as_deref(),
            Some("bank.test")
        );
        for url in [
            "https://notexample.com/",
            "https://example.com.evil.test/",
            "https://example.co/",
            "https://evil.test/?example.com",
            "https://example.com@evil.test/",
            "about:blank",
            "data:text/html,example.com",
        ] {
            assert_eq!(blocked(&list, url), None, "{url}");
        }
    }

    /// Every spelling of a blocked host that Chrome loads as that host is blocked.
    #[test]
    fn spellings_of_a_blocked_host_are_blocked() {
        let list = list(&["example.com"]);
        for url in [
            // Chrome loads example.com; a split at the last `@` read `evil.test`.
            "https://EXAMPLE.com\\@evil.test/",
            "https://example.com\\@evil.test/",
            "https://example.com\\\\@evil.test/",
            "https://EXAMPLE.COM/",
            "https://example%2Ecom/",
            "https://example%2ecom/",
            "https://example\u{3002}com/",
            "https://example\u{FF0E}com/",
            "https://example\u{FF61}com/",
            "https://ex\tample.com/",
            "https://ex\nample.com/",
            "https://ex\rample.com/",
            "https://example.com./",
            "https://example.com../",
            "https://www.example.com./",
            "https://\u{FF45}xample.com/", // full-width `ｅ`, NFKC-mapped
            "https://example.com:443/",
            "HTTPS://example.com",
            "  https://example.com/  ",
            "https:example.com/",
            "https:/\\example.com/",
        ] {
            assert_eq!(
                blocked(&list, url).as_deref(),
                Some("example.com"),
                "{url:?}"
            );
        }
    }

    #[test]
    fn unicode_and_punycode_meet() {
        // A Unicode entry blocks the punycode URL Chrome reports, and the reverse.
        for entry in ["bücher.example", "BÜCHER.example", "xn--bcher-kva.example"] {
            let list = list(&[entry]);
            assert_eq!(list.domains(), ["xn--bcher-kva.example"], "{entry}");
            for url in [
                "https://bücher.example/",
                "https://xn--bcher-kva.example/",
                "https://www.bücher.example/",
                "https://B\u{00DC}CHER.example/",
                "https://bu\u{0308}cher.example/", // decomposed ü, NFC-mapped
            ] {
                assert_eq!(
                    blocked(&list, url).as_deref(),
                    Some("xn--bcher-kva.example"),
                    "{entry} vs {url}"
                );
            }
            assert_eq!(blocked(&list, "https://bucher.example/"), None);
        }
    }

    #[test]
    fn entries_normalise() {
        for entry in [
            "*.Example.com",
            ".example.com.",
            "EXAMPLE.COM",
            "https://example.com/login",
            "example.com/path?q",
            "example.com:8080",
            "example\u{3002}com",
            "example%2Ecom",
        ] {
            assert_eq!(list(&[entry]).domains(), ["example.com"], "{entry}");
        }
        assert!(list(&["", "   ", "*.", "exa mple.com", "http://"]).is_empty());
        assert_eq!(list(&["localhost:8080/x"]).domains(), ["localhost"]);
        assert_eq!(list(&["0x7F.1"]).domains(), ["127.0.0.1"]);
        assert_eq!(list(&["[::1]:80"]).domains(), ["::1"]);
        assert_eq!(list(&["::1"]).domains(), ["::1"]);
        assert_eq!(list(&["::FFFF:7f00:1"]).domains(), ["127.0.0.1"]);
    }

    #[test]
    fn ip_spellings_are_canonical() {
        let list = list(&["127.0.0.1"]);
        for url in [
            "http://127.0.0.1:8765/",
            "http://127.1:8765/",
            "http://0x7f000001:8765/",
            "http://0X7F.0.0.1/",
            "http://2130706433:8765/",
            "http://0177.0.0.1/",
            "http://127.0.0.1./",
            "http://127%2E0.0.1/",
            "http://127\u{3002}1/",
            "http://[::ffff:127.0.0.1]:8765/",
            "http://[::FFFF:7f00:1]/",
        ] {
            assert_eq!(blocked(&list, url).as_deref(), Some("127.0.0.1"), "{url}");
        }
        assert_eq!(blocked(&list, "http://127.0.0.2/"), None);
        assert_eq!(blocked(&list, "http://[::1]/"), None);
        // Entries spelled oddly block the canonical address too.
        assert!(blocked(&super::tests::list(&["2130706433"]), "http://127.0.0.1/").is_some());
        assert!(blocked(&super::tests::list(&["LOCALHOST."]), "http://localhost/").is_some());
    }

    #[test]
    fn request_domains_are_chrome_url_hosts() {
        let list = list(&["Bücher.example", "127.0.0.2", "[::1]", "0.0.0.0"]);
        assert_eq!(
            list.request_domains(),
            [
                "xn--bcher-kva.example",
                "127.0.0.2",
                "[::ffff:7f00:2]",
                "[::1]",
                "0.0.0.0",
                "[::ffff:0:0]",
            ]
        );
        // What the `url` crate (WHATWG, like Chrome) makes of the mapped spelling.
        assert_eq!(
            hostname("http://[::FFFF:127.0.0.2]/").as_deref(),
            Some("[::ffff:7f00:2]")
        );
    }

    #[test]
    fn setting_shapes() {
        use serde_json::json;
        assert_eq!(setting_entries(&json!(null)), Ok(vec![]));
        assert_eq!(
            setting_entries(&json!(["a.test", "b.test"])),
            Ok(vec!["a.test".to_owned(), "b.test".to_owned()])
        );
        assert_eq!(
            setting_entries(&json!(" a.test,b.test\n c.test ,, ")),
            Ok(vec![
                "a.test".to_owned(),
                "b.test".to_owned(),
                "c.test".to_owned()
            ])
        );
        assert_eq!(setting_entries(&json!("")), Ok(vec![]));
        for bad in [
            json!(42),
            json!({ "a.test": true }),
            json!(["a.test", 1]),
            json!(true),
        ] {
            let e = setting_entries(&bad).expect_err("fails closed");
            assert!(e.contains("blocklist"), "{e}");
        }
    }

    #[test]
    fn host_keys() {
        assert_eq!(host_key("Example.COM.").as_deref(), Some("example.com"));
        assert_eq!(host_key("[::1]").as_deref(), Some("::1"));
        assert_eq!(host_key("[::ffff:7f00:1]").as_deref(), Some("127.0.0.1"));
        assert_eq!(host_key(""), None);
        assert_eq!(host_key("."), None);
    }
}
