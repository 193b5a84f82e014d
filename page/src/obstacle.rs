//! Obstacle detection (PROTOCOL.md §8): is the page a login wall, a captcha or a
//! denial page rather than content?
//!
//! A pure function over what `extract` gathered (no DOM, no CDP). Five layers,
//! cheapest first; the first that fires decides. The bias is towards silence: a
//! missed obstacle costs the agent one more step, a false one makes it abandon a
//! page that works, so every layer needs a strong signal and the weak ones only
//! ever answer `low`.

use browser_bridge_protocol::extract::{Confidence, Element, Obstacle, ObstacleType};

/// Only this many chars of the markdown are scanned (§8): walls say what they are
/// at the top, and the scan stays cheap on long pages.
pub const MARKDOWN_SCAN_CHARS: usize = 4096;

/// A page with at most this many interactive elements and a password field is a
/// bare login form (layer 4, `high`); more elements make it a page that merely
/// holds a password field, such as a settings page (`low`).
pub const FEW_ELEMENTS: usize = 12;

/// A markdown phrase (layer 5) is `high` only when the whole markdown, trimmed, is
/// at most this many chars: the phrase *is* the page.
pub const SHORT_MARKDOWN_CHARS: usize = 600;

/// Above this many chars of markdown, layer 5 stays silent: a page that long is
/// content that happens to mention the phrase (an article about "access denied"
/// errors), not a wall. Between [`SHORT_MARKDOWN_CHARS`] and this it answers `low`.
pub const PHRASE_PAGE_MAX_CHARS: usize = 2_000;

/// A title phrase (layer 2) fires only when the rest of the title is at most this
/// many chars (`Access denied | example.com`), so that a headline that merely
/// contains the phrase (`Access denied: why the archive went dark`) stays clear.
pub const TITLE_EXTRA_CHARS: usize = 24;

/// Titles of challenge pages (layer 2 → `captcha`, high).
pub const CHALLENGE_TITLES: &[&str] = &[
    "just a moment",
    "attention required",
    "verify you are human",
    "are you a robot",
    "human verification",
    "checking your browser",
    "ddos-guard",
];

/// Titles of block pages (layer 2 → `access_denied`, high). A bare "forbidden" is
/// left out on purpose: too many film and book titles hold it.
pub const DENIAL_TITLES: &[&str] = &[
    "access denied",
    "403 forbidden",
    "error 403",
    "http 403",
    "403 - forbidden",
    "401 unauthorized",
    "request blocked",
    "you have been blocked",
];

/// URL path fragments of challenge pages (layer 3 → `captcha`, high).
pub const CHALLENGE_PATHS: &[&str] = &["/cdn-cgi/challenge-platform", "/captcha"];

/// Path segments of login pages (layer 3 → `auth_wall`); a segment matches when it
/// equals one of these or starts with it followed by `.` (`login.php`).
pub const LOGIN_SEGMENTS: &[&str] = &[
    "login", "log-in", "log_in", "signin", "sign-in", "sign_in", "logon",
];

/// Multi-segment login paths (layer 3 → `auth_wall`).
pub const LOGIN_PATHS: &[&str] = &["/session/new", "/sessions/new"];

/// Host prefixes of identity providers (layer 3 → `auth_wall`): `accounts.google.com/…`.
pub const LOGIN_HOST_PREFIXES: &[&str] = &["accounts.", "login.", "signin."];

/// Accessible-name words that make a textbox a password field (matched as whole
/// words, case-insensitively: `\b(password|passcode|pwd)\b`).
pub const PASSWORD_WORDS: &[&str] = &["password", "passcode", "pwd"];

/// Roles a password field can have in the accessibility tree.
pub const PASSWORD_ROLES: &[&str] = &["textbox", "searchbox"];

/// Markdown phrases of challenge pages (layer 5 → `captcha`).
pub const CHALLENGE_PHRASES: &[&str] = &[
    "verify you are human",
    "verify that you are human",
    "unusual traffic",
    "are you a robot",
    "checking your browser",
    "complete the security check",
    "press and hold",
];

/// Markdown phrases of denial pages (layer 5 → `access_denied`).
pub const DENIAL_PHRASES: &[&str] = &[
    "you don't have permission",
    "you do not have permission",
    "access denied",
    "access to this page has been denied",
    "you have been blocked",
    "403 forbidden",
];

/// Markdown phrases of login-required pages (layer 5 → `auth_wall`).
pub const LOGIN_PHRASES: &[&str] = &[
    "sign in to continue",
    "log in to continue",
    "login to continue",
    "you must be logged in",
    "you need to be logged in",
    "you must sign in",
    "you need to sign in",
    "please sign in",
    "please log in",
    "login required",
];

/// Hosts (and their subdomains) that serve challenge iframes.
pub const CAPTCHA_FRAME_HOSTS: &[&str] =
    &["challenges.cloudflare.com", "hcaptcha.com", "recaptcha.net"];

/// What `extract` gathered, fed to [`detect_obstacle`]. Strings may be in any
/// case: the detector lower-cases them itself.
#[derive(Debug, Clone, Copy)]
pub struct ObstacleInput<'a> {
    /// `location.href`.
    pub url: &'a str,
    /// `document.title`.
    pub title: &'a str,
    /// The extract markdown; only its first [`MARKDOWN_SCAN_CHARS`] chars are scanned.
    pub markdown: &'a str,
    /// The element list the agent sees.
    pub elements: &'a [Element],
    /// The page holds a known challenge iframe (see [`is_captcha_frame_url`]).
    pub captcha_frame: bool,
}

/// Detects a login wall, captcha or denial page (§8). `None` means "looks like
/// content"; `high` is terminal for the agent, `low` a hint.
pub fn detect_obstacle(input: &ObstacleInput<'_>) -> Option<Obstacle> {
    let url = input.url.to_lowercase();
    let title = input.title.trim().to_lowercase();
    by_captcha_frame(input.captcha_frame)
        .or_else(|| by_title(&title))
        .or_else(|| by_url(&url, input.elements))
        .or_else(|| by_elements(input.elements))
        .or_else(|| by_markdown(input.markdown))
}

/// True when `url` is a known challenge iframe: Cloudflare Turnstile
/// (`challenges.cloudflare.com`), hCaptcha (`hcaptcha.com`), reCAPTCHA
/// (`google.com/recaptcha`, `recaptcha.net`); subdomains included.
pub fn is_captcha_frame_url(url: &str) -> bool {
    let url = url.to_lowercase();
    let (host, path) = split_url(&url);
    if CAPTCHA_FRAME_HOSTS.iter().any(|h| host_is(host, h)) {
        return true;
    }
    host_is(host, "google.com") && (path == "/recaptcha" || path.starts_with("/recaptcha/"))
}

/// True when the element is a password field (§8): role textbox/searchbox and an
/// accessible name holding one of [`PASSWORD_WORDS`] as a whole word. Elements the
/// extension reports as not visible do not count: a hidden login modal is no wall.
pub fn is_password_field(element: &Element) -> bool {
    PASSWORD_ROLES.contains(&element.role.as_str())
        && element.visible != Some(false)
        && element.name.as_deref().is_some_and(|name| {
            let name = name.to_lowercase();
            PASSWORD_WORDS.iter().any(|w| contains_word(&name, w))
        })
}

fn obstacle(kind: ObstacleType, confidence: Confidence, message: String) -> Option<Obstacle> {
    Some(Obstacle {
        obstacle_type: kind,
        confidence,
        message,
    })
}

/// Layer 1: a challenge iframe is a captcha whatever the page says around it.
fn by_captcha_frame(captcha_frame: bool) -> Option<Obstacle> {
    captcha_frame.then(|| Obstacle {
        obstacle_type: ObstacleType::Captcha,
        confidence: Confidence::High,
        message: "the page holds a captcha challenge frame (Turnstile, hCaptcha or reCAPTCHA): \
                  a human must solve it"
            .into(),
    })
}

/// Layer 2: challenge and block titles, when the phrase is most of the title.
fn by_title(title: &str) -> Option<Obstacle> {
    let fits = |phrase: &&&str| {
        contains_word(title, phrase)
            && title.chars().count() <= phrase.chars().count() + TITLE_EXTRA_CHARS
    };
    if let Some(p) = CHALLENGE_TITLES.iter().find(fits) {
        return obstacle(
            ObstacleType::Captcha,
            Confidence::High,
            format!("the page title says \"{p}\": a human-verification challenge"),
        );
    }
    if let Some(p) = DENIAL_TITLES.iter().find(fits) {
        return obstacle(
            ObstacleType::AccessDenied,
            Confidence::High,
            format!("the page title says \"{p}\": the site refuses access"),
        );
    }
    None
}

/// Layer 3: challenge paths, then login paths and identity-provider hosts.
fn by_url(url: &str, elements: &[Element]) -> Option<Obstacle> {
    let (host, path) = split_url(url);
    if let Some(p) = CHALLENGE_PATHS.iter().find(|p| path_has(path, p)) {
        return obstacle(
            ObstacleType::Captcha,
            Confidence::High,
            format!("the URL path holds {p}: a challenge page"),
        );
    }
    let login_path = path
        .split('/')
        .any(|seg| LOGIN_SEGMENTS.iter().any(|l| segment_is(seg, l)))
        || LOGIN_PATHS.iter().any(|p| path_has(path, p));
    let login_host = LOGIN_HOST_PREFIXES.iter().any(|p| host.starts_with(p));
    if !(login_path || login_host) {
        return None;
    }
    let what = if login_path {
        "a login path"
    } else {
        "a sign-in host"
    };
    if elements.iter().any(is_password_field) {
        obstacle(
            ObstacleType::AuthWall,
            Confidence::High,
            format!("the URL is {what} and the page asks for a password: log in first"),
        )
    } else {
        obstacle(
            ObstacleType::AuthWall,
            Confidence::Low,
            format!("the URL is {what} but no password field is shown"),
        )
    }
}

/// Layer 4: a password field; `high` only on a bare form of few elements.
fn by_elements(elements: &[Element]) -> Option<Obstacle> {
    if !elements.iter().any(is_password_field) {
        return None;
    }
    if elements.len() <= FEW_ELEMENTS {
        obstacle(
            ObstacleType::AuthWall,
            Confidence::High,
            format!(
                "a login form: a password field among {} interactive elements",
                elements.len()
            ),
        )
    } else {
        obstacle(
            ObstacleType::AuthWall,
            Confidence::Low,
            format!(
                "a password field among {} interactive elements (may be a settings form)",
                elements.len()
            ),
        )
    }
}

/// Layer 5: phrases in the first [`MARKDOWN_SCAN_CHARS`] chars; the shorter the
/// page, the surer (see [`SHORT_MARKDOWN_CHARS`], [`PHRASE_PAGE_MAX_CHARS`]).
fn by_markdown(markdown: &str) -> Option<Obstacle> {
    let trimmed = markdown.trim();
    let length = trimmed.chars().count();
    if length == 0 || length > PHRASE_PAGE_MAX_CHARS {
        return None;
    }
    let scanned: String = trimmed
        .chars()
        .take(MARKDOWN_SCAN_CHARS)
        .map(|c| if c == '\u{2019}' { '\'' } else { c })
        .collect::<String>()
        .to_lowercase();
    let confidence = if length <= SHORT_MARKDOWN_CHARS {
        Confidence::High
    } else {
        Confidence::Low
    };
    let lists: [(&[&str], ObstacleType, &str); 3] = [
        (
            CHALLENGE_PHRASES,
            ObstacleType::Captcha,
            "a human-verification challenge",
        ),
        (
            DENIAL_PHRASES,
            ObstacleType::AccessDenied,
            "the site refuses access",
        ),
        (LOGIN_PHRASES, ObstacleType::AuthWall, "a login is required"),
    ];
    lists.into_iter().find_map(|(phrases, kind, what)| {
        let p = phrases.iter().find(|p| contains_word(&scanned, p))?;
        obstacle(kind, confidence, format!("the page says \"{p}\": {what}"))
    })
}

/// `(host, path)` of a lower-cased URL: no scheme, userinfo, port, query or fragment.
fn split_url(url: &str) -> (&str, &str) {
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
fn host_is(host: &str, domain: &str) -> bool {
    host == domain
        || host
            .strip_suffix(domain)
            .is_some_and(|prefix| prefix.ends_with('.'))
}

/// `path` holds `fragment` as whole segments (`/captcha` matches `/captcha` and
/// `/x/captcha/y`, not `/captchas`).
fn path_has(path: &str, fragment: &str) -> bool {
    path.match_indices(fragment)
        .any(|(i, _)| matches!(path[i + fragment.len()..].chars().next(), None | Some('/')))
}

/// A path segment is a login segment: `login`, `login.php`, …
fn segment_is(segment: &str, login: &str) -> bool {
    segment
        .strip_prefix(login)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
}

/// `\b{word}\b` on lower-cased text, with regex's Unicode notion of a word char
/// (alphanumeric or `_`).
fn contains_word(text: &str, word: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
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
