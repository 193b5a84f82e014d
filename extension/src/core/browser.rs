//! The browser's name and version in `hello` (PROTOCOL.md §2, §5 "Browsers"):
//! the options page's `browserName`, else a name a person recognises from the
//! browser's own brands (`navigator.userAgentData.brands`); the extension cannot
//! read the profile's name. The backend makes clashing names unique.

use browser_bridge_protocol::browser::MAX_BROWSER_NAME;

/// `browserName` as set in the options: trimmed, control characters dropped,
/// cut to [`MAX_BROWSER_NAME`] bytes on a character boundary; `None` when
/// nothing is left (the default name applies).
pub fn clean_name(raw: &str) -> Option<String> {
    let mut name = String::new();
    for c in raw.trim().chars().filter(|c| !c.is_control()) {
        if name.len() + c.len_utf8() > MAX_BROWSER_NAME {
            break;
        }
        name.push(c);
    }
    let name = name.trim_end().to_owned();
    (!name.is_empty()).then_some(name)
}

/// The default name from `navigator.userAgentData.brands` (`(brand, major
/// version)` pairs): the first real brand, Chromium's only when it is alone
/// (GREASE brands such as `Not_A Brand` are skipped), with its major version:
/// `Google Chrome 131`, `Chromium 131`.
pub fn default_name(brands: &[(String, String)]) -> Option<String> {
    let real = |(brand, _): &&(String, String)| {
        let lower = brand.to_ascii_lowercase();
        !brand.trim().is_empty() && !lower.contains("not") && !lower.contains("brand")
    };
    let pick = brands
        .iter()
        .filter(real)
        .find(|(brand, _)| brand != "Chromium")
        .or_else(|| brands.iter().find(real))?;
    clean_name(&format!("{} {}", pick.0, pick.1))
}

/// The browser's full version from `navigator.userAgent`: what follows
/// `Chrome/` (Chromium-based browsers all carry it), up to the next space.
pub fn version_from_user_agent(user_agent: &str) -> Option<String> {
    let rest = &user_agent[user_agent.find("Chrome/")? + "Chrome/".len()..];
    let version = rest.split(' ').next().unwrap_or_default();
    (!version.is_empty()).then(|| version.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brands(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(b, v)| ((*b).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn names_from_brands_skip_grease_and_prefer_the_product() {
        let chrome = brands(&[
            ("Google Chrome", "131"),
            ("Chromium", "131"),
            ("Not_A Brand", "24"),
        ]);
        assert_eq!(default_name(&chrome).as_deref(), Some("Google Chrome 131"));
        let chromium = brands(&[("Not)A;Brand", "99"), ("Chromium", "130")]);
        assert_eq!(default_name(&chromium).as_deref(), Some("Chromium 130"));
        let edge = brands(&[("Chromium", "131"), ("Microsoft Edge", "131")]);
        assert_eq!(default_name(&edge).as_deref(), Some("Microsoft Edge 131"));
        assert_eq!(default_name(&[]), None);
        assert_eq!(default_name(&brands(&[("Not A(Brand", "8")])), None);
    }

    #[test]
    fn a_set_name_is_cleaned_and_cut() {
        assert_eq!(clean_name("  Work  ").as_deref(), Some("Work"));
        assert_eq!(clean_name("Wo\nrk\t").as_deref(), Some("Work"));
        assert_eq!(clean_name(" \u{7} "), None);
        let long = clean_name(&"é".repeat(100)).expect("kept");
        assert_eq!(long.len(), 128);
        assert!(long.chars().all(|c| c == 'é'));
    }

    #[test]
    fn version_from_the_user_agent() {
        let ua = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) \
                  Chrome/131.0.6778.85 Safari/537.36";
        assert_eq!(
            version_from_user_agent(ua).as_deref(),
            Some("131.0.6778.85")
        );
        assert_eq!(version_from_user_agent("Mozilla/5.0 Firefox/130"), None);
    }
}
