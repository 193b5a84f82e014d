//! Obstacle detection (PROTOCOL.md §8): is the page a login wall, a captcha or a
//! denial page rather than content?
//!
//! A pure function over what `extract` gathered (no DOM, no CDP): the page's text
//! and elements and what a person sees of it ([`PageView`]: covering overlays,
//! scroll lock, headings) and, where known, the main document's HTTP status. It
//! decides from where a signal stands, not from how often a word occurs: a password
//! field counts when the login form is the page (not beside long content, not on a
//! signed-in page), a phrase counts in the title, a heading, a short page or a
//! covering overlay (not quoted deep in an article). The bias is towards silence:
//! a missed obstacle costs the agent one more step, a false `high` makes it abandon
//! a page that works, so `high` needs a conclusive signal, `medium` real evidence
//! and the rest answers `low` or nothing.

mod text;
mod words;

use browser_bridge_protocol::extract::{Confidence, Element, Obstacle, ObstacleType};

use text::{
    contains_word, host_is, normalise, path_has, said, segment_is, split_url, stands_in, title_is,
};
pub use words::*;

/// Only this many chars of the markdown are scanned (§8): walls say what they are
/// at the top, and the scan stays cheap on long pages.
pub const MARKDOWN_SCAN_CHARS: usize = 4096;

/// A login form is the page (`high`) when the page has at most this many
/// interactive elements besides links (fields, buttons, checkboxes: a login form
/// with its social sign-in buttons); with more (a login form among other tools)
/// it is `medium`. Links do not count: a site's nav and footer frame its login
/// page too.
pub const FEW_CONTROLS: usize = 10;

/// A password field makes a login wall only when the main content (markdown,
/// trimmed) is at most this many chars: the form dominates the page. Beside longer
/// content it is a sign-in box in a header or sidebar, and says nothing.
pub const LOGIN_PAGE_MAX_CHARS: usize = 1_200;

/// A login form has at most this many text fields besides its password fields
/// (user name or email, maybe a one-time code). A form with more (sign-up,
/// checkout, profile) that also asks for a password is at most `low`.
pub const LOGIN_MAX_OTHER_FIELDS: usize = 2;

/// This many settings-navigation links ([`SETTINGS_NAV_NAMES`]) say the user is
/// signed in and looking at their settings.
pub const SETTINGS_NAV_MIN: usize = 3;

/// A fixed layer covering at least this share (0–1) of the viewport is a modal
/// overlay over the content (a dimmed backdrop or a full-screen panel).
pub const OVERLAY_COVER_MIN: f64 = 0.5;

/// A phrase between [`SHORT_MARKDOWN_CHARS`] and [`PHRASE_PAGE_MAX_CHARS`] counts
/// (`low`) only within this many leading chars of the markdown: the first lines say
/// what the page is; deeper it is article text.
pub const PHRASE_LEAD_CHARS: usize = 300;

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

/// What a person sees of the page beyond its text (PROTOCOL.md §8), derived from
/// the DOMSnapshot's layout boxes and computed styles by `shape` (see
/// [`crate::view::page_view`]). Text fields are lower-cased.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PageView {
    /// Share (0–1) of the viewport covered by the largest visible `position: fixed`
    /// layer of the main document (a modal's backdrop covers ~1).
    pub overlay_cover: f64,
    /// Visible text of the fixed layers that cover a real part of the viewport
    /// (modal dialogs, full-screen panels; not thin bars), at most
    /// [`crate::view::OVERLAY_TEXT_CHARS`] chars. The markdown leaves these out.
    pub overlay_text: String,
    /// A visible `<input type=password>` inside one of those layers.
    pub overlay_password: bool,
    /// Visible `<input type=password>` in the main document (overlays included):
    /// password fields whatever the language of their label.
    pub password_inputs: usize,
    /// Those of [`Self::password_inputs`] with `autocomplete=new-password`: fields
    /// that set a password rather than ask for one.
    pub new_password_inputs: usize,
    /// Visible `<input type=file>` in the main document.
    pub file_inputs: usize,
    /// Those of [`Self::password_inputs`] in the site's frame (nav, aside, footer,
    /// a page header): sign-in boxes beside the content.
    pub chrome_password_inputs: usize,
    /// `overflow: hidden` (both axes) on `<html>` or `<body>`: the page behind
    /// cannot scroll.
    pub scroll_locked: bool,
    /// Visible `h1`/`h2` texts of the main document (overlays included), in order,
    /// at most [`crate::view::HEADINGS_MAX`].
    pub headings: Vec<String>,
}

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
    /// The page shows a known challenge iframe (see [`is_captcha_frame_url`]);
    /// invisible ones (`size=invisible`, no layout box) do not count.
    pub captcha_frame: bool,
    /// HTTP status of the main document when known (`None` when not gathered).
    pub status: Option<u16>,
    /// Overlays, scroll lock and headings.
    pub view: &'a PageView,
}

/// Detects a login wall, captcha or denial page (§8). `None` means "looks like
/// content"; `high` is terminal for the agent, `medium` a likely wall, `low` a
/// hint. Each layer answers what it sees; the strongest answer wins (on a tie, the
/// first layer: frame, title, URL, status, overlay, password, phrases).
pub fn detect_obstacle(input: &ObstacleInput<'_>) -> Option<Obstacle> {
    let page = Page::new(input);
    [
        by_captcha_frame(&page),
        by_title(&page),
        by_url(&page),
        by_status(&page),
        by_overlay(&page),
        by_password(&page),
        by_phrases(&page),
        by_read_on_heading(&page),
    ]
    .into_iter()
    .flatten()
    .fold(None, |best: Option<Obstacle>, o| match best {
        Some(b) if outranks(&b, &o) => Some(b),
        _ => Some(o),
    })
}

/// `a` wins over `b` (found later): higher confidence, or equal confidence and not
/// a refusal against a challenge. A 403 or 429 page that asks a person to prove
/// they are human is a captcha: solving it opens the page, which a plain refusal
/// does not.
fn outranks(a: &Obstacle, b: &Obstacle) -> bool {
    a.confidence > b.confidence
        || (a.confidence == b.confidence
            && !(a.obstacle_type == ObstacleType::AccessDenied
                && b.obstacle_type == ObstacleType::Captcha))
}

/// The input, lower-cased and measured once.
struct Page<'a> {
    input: &'a ObstacleInput<'a>,
    url: String,
    title: String,
    /// The scanned markdown with code and blockquotes blanked ([`said`]),
    /// lower-cased, `’` as `'`.
    markdown: String,
    /// Chars of the whole trimmed markdown.
    content_chars: usize,
    password_fields: usize,
    /// Text fields that are not password fields (search boxes excluded).
    other_fields: usize,
    signed_in: Option<&'static str>,
    /// The markdown shows a code block: documentation, a thread, a ticket.
    code_block: bool,
}

impl<'a> Page<'a> {
    fn new(input: &'a ObstacleInput<'a>) -> Page<'a> {
        let trimmed = input.markdown.trim();
        let markdown = normalise(&said(
            &trimmed
                .chars()
                .take(MARKDOWN_SCAN_CHARS)
                .collect::<String>(),
        ));
        let named_password_fields = input
            .elements
            .iter()
            .filter(|e| is_password_field(e))
            .count();
        // Named ones catch design-system inputs; typed ones, labels in any language.
        let password_fields = named_password_fields.max(input.view.password_inputs);
        let other_fields = input
            .elements
            .iter()
            .filter(|e| e.role == "textbox" && e.visible != Some(false) && !is_password_field(e))
            .count();
        let signed_in = signed_in(input.elements).or_else(|| {
            let says = |text: &str| {
                let text = normalise(text);
                SIGNED_IN_PHRASES.iter().any(|p| text.contains(p))
            };
            (says(&markdown) || says(&input.view.overlay_text))
                .then_some("the page says who is signed in")
        });
        Page {
            input,
            url: input.url.to_lowercase(),
            title: normalise(input.title.trim()),
            markdown,
            content_chars: trimmed.chars().count(),
            password_fields,
            other_fields,
            signed_in,
            code_block: trimmed.contains("```"),
        }
    }
}

impl Page<'_> {
    /// Words alone (title, headings, text) are not conclusive on a page whose
    /// server answered 2xx: they say at most `medium` there. A wall is certain when
    /// the server refused (401/403/429/451), the challenge frame is the page, or the
    /// login form is. Unknown status leaves `confidence` as it is.
    fn words_cap(&self, confidence: Confidence) -> Confidence {
        match self.input.status {
            Some(200..=299) => confidence.min(Confidence::Medium),
            _ => confidence,
        }
    }

    /// A text field named for a user ([`USER_WORDS`]): the form asks who you are.
    fn asks_who(&self) -> bool {
        self.input.elements.iter().any(|e| {
            e.role == "textbox"
                && !is_password_field(e)
                && e.name.as_deref().is_some_and(|n| {
                    let n = normalise(n);
                    USER_WORDS.iter().any(|w| contains_word(&n, w))
                })
        })
    }

    /// A sign-in word ([`SIGN_IN_WORDS`]) in the title, a heading, or the name of a
    /// button: the page offers to sign in. Links do not count: a "Log in" link
    /// sits in the nav of every page whose visitor is signed out.
    fn offers_sign_in(&self) -> bool {
        let has = |text: &str| {
            let text = normalise(text);
            SIGN_IN_WORDS.iter().any(|w| contains_word(&text, w))
        };
        has(&self.title)
            || self.input.view.headings.iter().any(|h| has(h))
            || self
                .input
                .elements
                .iter()
                .any(|e| e.role == "button" && e.name.as_deref().is_some_and(has))
    }
}

/// Why the page looks signed in, if it does: a sign-out control or account menu,
/// a change-password field, or a settings navigation (see [`SIGNED_IN_NAMES`],
/// [`CHANGE_PASSWORD_WORDS`], [`SETTINGS_NAV_MIN`]).
pub fn signed_in(elements: &[Element]) -> Option<&'static str> {
    let mut settings = 0;
    for e in elements.iter().filter(|e| e.visible != Some(false)) {
        let Some(name) = e.name.as_deref() else {
            continue;
        };
        let name = name.trim().to_lowercase();
        if SIGNED_IN_NAMES.contains(&name.as_str()) {
            return Some("a sign-out control or account menu");
        }
        if is_password_field(e)
            && CHANGE_PASSWORD_WORDS
                .iter()
                .any(|w| contains_word(&name, w))
        {
            return Some("a change-password form");
        }
        if matches!(e.role.as_str(), "link" | "tab" | "menuitem")
            && SETTINGS_NAV_NAMES.contains(&name.as_str())
        {
            settings += 1;
        }
    }
    (settings >= SETTINGS_NAV_MIN).then_some("a settings navigation")
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

/// A challenge frame is a captcha, `high`, when it is the page (content at most
/// [`SHORT_MARKDOWN_CHARS`]); `low` on a middling page (a form guarded by a
/// widget, a post that embeds a demo); beside long content, nothing.
fn by_captcha_frame(page: &Page<'_>) -> Option<Obstacle> {
    if !page.input.captcha_frame || page.content_chars > PHRASE_PAGE_MAX_CHARS {
        return None;
    }
    let confidence = if page.content_chars <= SHORT_MARKDOWN_CHARS {
        Confidence::High
    } else {
        Confidence::Low
    };
    obstacle(
        ObstacleType::Captcha,
        confidence,
        "the page holds a captcha challenge frame (Turnstile, hCaptcha or reCAPTCHA): \
         a human must solve it"
            .into(),
    )
}

/// Challenge and block titles, when the phrase is most of the title and opens or
/// closes it (`Access denied | site`, `site – Access denied`; not `What does 403
/// Forbidden mean?`): `high` on a short page ([`SHORT_MARKDOWN_CHARS`]) or one
/// that answered with an error status (4xx, 5xx), else `low` up to
/// [`PHRASE_PAGE_MAX_CHARS`] (an encyclopedia stub named `HTTP 403` is content);
/// nothing on longer pages.
fn by_title(page: &Page<'_>) -> Option<Obstacle> {
    if page.content_chars > PHRASE_PAGE_MAX_CHARS {
        return None;
    }
    let sure =
        page.content_chars <= SHORT_MARKDOWN_CHARS || page.input.status.is_some_and(|s| s >= 400);
    let confidence = page.words_cap(if sure {
        Confidence::High
    } else {
        Confidence::Low
    });
    let title = page.title.as_str();
    let fits = |phrase: &&&str| title_is(title, phrase, TITLE_EXTRA_CHARS);
    if let Some(p) = CHALLENGE_TITLES.iter().find(fits) {
        return obstacle(
            ObstacleType::Captcha,
            confidence,
            format!("the page title says \"{p}\": a human-verification challenge"),
        );
    }
    if let Some(p) = DENIAL_TITLES.iter().find(fits) {
        return obstacle(
            ObstacleType::AccessDenied,
            confidence,
            format!("the page title says \"{p}\": the site refuses access"),
        );
    }
    by_sign_in_title(page)
}

/// A short page titled or headed as a sign-in page (`Sign in – Accounts`, an `h1`
/// that is just "Log in"), not signed in, with at most
/// [`LOGIN_MAX_OTHER_FIELDS`] text fields: the identifier-first step of a login
/// (`auth_wall`, medium; with its password field the password layer says high).
fn by_sign_in_title(page: &Page<'_>) -> Option<Obstacle> {
    if page.content_chars > SHORT_MARKDOWN_CHARS
        || page.signed_in.is_some()
        || page.other_fields > LOGIN_MAX_OTHER_FIELDS
    {
        return None;
    }
    let bare = |text: &str| {
        text.trim_end_matches(['.', '!', '…', ' ', ':'])
            .trim()
            .to_owned()
    };
    let fits = |phrase: &&&str| title_is(&page.title, phrase, TITLE_EXTRA_CHARS);
    let headed = |phrase: &&&str| {
        page.input
            .view
            .headings
            .iter()
            .any(|h| bare(&normalise(h)) == **phrase)
    };
    let p = SIGN_IN_TITLES.iter().find(|p| fits(p) || headed(p))?;
    obstacle(
        ObstacleType::AuthWall,
        Confidence::Medium,
        format!("a short page titled \"{p}\": a sign-in page"),
    )
}

/// Challenge paths, then login paths and identity-provider hosts.
fn by_url(page: &Page<'_>) -> Option<Obstacle> {
    let (host, path) = split_url(&page.url);
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
    if !(login_path || login_host) || page.signed_in.is_some() {
        return None;
    }
    let what = if login_path {
        "a login path"
    } else {
        "a sign-in host"
    };
    let (confidence, asks) = match (page.password_fields, page.other_fields) {
        (0, _) => (Confidence::Low, "but no password field is shown"),
        (_, n) if n <= LOGIN_MAX_OTHER_FIELDS => (
            Confidence::High,
            "and the page asks for a password: log in first",
        ),
        _ => (
            Confidence::Medium,
            "and a form with a password among other fields",
        ),
    };
    // Documentation of a login component lives at `/components/login` too.
    let confidence = if page.code_block {
        Confidence::Low
    } else {
        confidence
    };
    obstacle(
        ObstacleType::AuthWall,
        confidence,
        format!("the URL is {what} {asks}"),
    )
}

/// The main document's HTTP status: 401 is a login wall, 403, 429 and 451 a
/// refusal (`high` on a page that is not content, `medium` beside content). 503
/// says nothing by itself: outages and maintenance pages send it too, and the
/// challenges that send it say so in their title or text.
fn by_status(page: &Page<'_>) -> Option<Obstacle> {
    let status = page.input.status?;
    let sure = if page.content_chars <= PHRASE_PAGE_MAX_CHARS {
        Confidence::High
    } else {
        Confidence::Medium
    };
    match status {
        401 if page.signed_in.is_none() => obstacle(
            ObstacleType::AuthWall,
            sure,
            "the page answered HTTP 401 Unauthorized: log in first".into(),
        ),
        403 => obstacle(
            ObstacleType::AccessDenied,
            sure,
            "the page answered HTTP 403 Forbidden: the site refuses access".into(),
        ),
        429 => obstacle(
            ObstacleType::AccessDenied,
            sure,
            "the page answered HTTP 429 Too Many Requests: the site is rate-limiting".into(),
        ),
        451 => obstacle(
            ObstacleType::AccessDenied,
            sure,
            "the page answered HTTP 451 Unavailable For Legal Reasons: blocked where you are"
                .into(),
        ),
        _ => None,
    }
}

/// A fixed layer over the content that asks to sign in (a password field or a
/// login phrase in it), with the page dimmed behind it
/// ([`OVERLAY_COVER_MIN`]) or its scrolling locked → `auth_wall`, medium: the
/// content may still be in the markdown. A challenge or denial phrase in such a
/// layer → that type, medium.
fn by_overlay(page: &Page<'_>) -> Option<Obstacle> {
    let view = page.input.view;
    if view.overlay_text.is_empty() && !view.overlay_password {
        return None;
    }
    let modal = view.overlay_cover >= OVERLAY_COVER_MIN || view.scroll_locked;
    if !modal {
        return None;
    }
    let text = normalise(&view.overlay_text);
    let how = if view.scroll_locked {
        "and scrolling is locked"
    } else {
        "and dims the page"
    };
    for (phrases, kind, what) in phrase_lists() {
        if let Some(p) = phrases.iter().find(|p| stands_in(&text, p)) {
            if kind == ObstacleType::AuthWall && page.signed_in.is_some() {
                continue;
            }
            return obstacle(
                kind,
                Confidence::Medium,
                format!("a modal overlay covers the content {how}; it says \"{p}\": {what}"),
            );
        }
    }
    if page.signed_in.is_some() {
        return None;
    }
    // One password field to fill in, not set: a login (two are "protect this
    // document" or a sign-up).
    if view.overlay_password && view.password_inputs == 1 && view.new_password_inputs == 0 {
        return obstacle(
            ObstacleType::AuthWall,
            Confidence::Medium,
            format!("a modal login form covers the content {how}"),
        );
    }
    if let Some((a, w)) = asks_to_read_on(&text) {
        return obstacle(
            ObstacleType::AuthWall,
            Confidence::Medium,
            format!(
                "a modal overlay covers the content {how}; it asks to \"{a}\" \"{w}\": a login is required"
            ),
        );
    }
    None
}

/// A password field, when the login form is the page: not signed in, one password
/// field (two are a sign-up or reset form: password and confirmation), at most
/// [`LOGIN_MAX_OTHER_FIELDS`] other text fields (more: sign-up, checkout), main
/// content at most [`LOGIN_PAGE_MAX_CHARS`] (beside longer content it is a sign-in
/// box in a header), the password input not in the site's frame (a sidebar
/// sign-in box), no code block on the page (documentation showing a form);
/// `high` with at most [`FEW_CONTROLS`] controls besides links, else `medium`.
fn by_password(page: &Page<'_>) -> Option<Obstacle> {
    let view = page.input.view;
    let beside_content =
        view.password_inputs > 0 && view.password_inputs == view.chrome_password_inputs;
    // `autocomplete=new-password` sets a password (sign-up, reset, a Wi-Fi key);
    // a file picker beside it unlocks a file.
    let sets_password =
        view.password_inputs > 0 && view.new_password_inputs == view.password_inputs;
    let tool = view.file_inputs > 0;
    if page.password_fields != 1
        || beside_content
        || sets_password
        || tool
        || page.code_block
        || page.signed_in.is_some()
        || page.other_fields > LOGIN_MAX_OTHER_FIELDS
        || page.content_chars > LOGIN_PAGE_MAX_CHARS
    {
        return None;
    }
    let controls = page
        .input
        .elements
        .iter()
        .filter(|e| e.role != "link")
        .count();
    // A login form asks who you are (a user field) or says it signs you in (its
    // button, heading or title); a password field that does neither is a setting
    // (a strength checker, a router's Wi-Fi key beside its network name).
    let login = page.asks_who() || page.offers_sign_in();
    let confidence = match (login, controls <= FEW_CONTROLS) {
        (false, _) => Confidence::Low,
        (true, true) => Confidence::High,
        (true, false) => Confidence::Medium,
    };
    obstacle(
        ObstacleType::AuthWall,
        confidence,
        format!("a login form is the page: a password field among {controls} controls"),
    )
}

/// The account action and what it unlocks, when `text` (lower-cased) asks to
/// sign in or register to read on ("Create an account to read the full story").
fn asks_to_read_on(text: &str) -> Option<(&'static str, &'static str)> {
    let action = ACCOUNT_ACTIONS.iter().find(|a| stands_in(text, a))?;
    let read_on = READ_ON_WORDS.iter().find(|w| text.contains(**w))?;
    Some((action, read_on))
}

/// A heading that asks to sign in or register to read on ("Sign in to view
/// Marta's full profile"), on a page that is not long content and not signed in:
/// the rest is behind a login (`auth_wall`, medium).
fn by_read_on_heading(page: &Page<'_>) -> Option<Obstacle> {
    if page.content_chars > PHRASE_PAGE_MAX_CHARS || page.signed_in.is_some() {
        return None;
    }
    page.input.view.headings.iter().find_map(|h| {
        let (a, w) = asks_to_read_on(&normalise(h))?;
        obstacle(
            ObstacleType::AuthWall,
            Confidence::Medium,
            format!("a heading asks to \"{a}\" \"{w}\": a login is required"),
        )
    })
}

/// The three phrase lists, with their type and what they mean.
fn phrase_lists() -> [(&'static [&'static str], ObstacleType, &'static str); 3] {
    [
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
    ]
}

/// Phrases where they stand: in a heading of a page of at most
/// [`PHRASE_PAGE_MAX_CHARS`] → high when the page is short
/// ([`SHORT_MARKDOWN_CHARS`]), else medium; anywhere in a short page → high; in the
/// first [`PHRASE_LEAD_CHARS`] of a page up to [`PHRASE_PAGE_MAX_CHARS`] → low; a
/// denial phrase with a block reference ([`REFERENCE_PHRASES`]) on such a page →
/// at least medium. Quoted phrases never count; longer pages say nothing. On a
/// signed-in page only headings count; on a page with a code block
/// (documentation, a thread) nothing is more than `low`.
fn by_phrases(page: &Page<'_>) -> Option<Obstacle> {
    let length = page.content_chars;
    if length > PHRASE_PAGE_MAX_CHARS {
        return None;
    }
    let short = length <= SHORT_MARKDOWN_CHARS;
    let headings: Vec<String> = page
        .input
        .view
        .headings
        .iter()
        .map(|h| normalise(h))
        .collect();
    let lead: String = page.markdown.chars().take(PHRASE_LEAD_CHARS).collect();
    let referenced = REFERENCE_PHRASES.iter().any(|r| page.markdown.contains(r));
    let mut best: Option<Obstacle> = None;
    for (phrases, kind, what) in phrase_lists() {
        if kind == ObstacleType::AuthWall && page.signed_in.is_some() {
            continue;
        }
        for p in phrases {
            // A wall's heading is its message ("Access denied", "Sorry, you have
            // been blocked"); a headline that uses the phrase mid-sentence is not.
            let in_heading = headings.iter().any(|h| {
                stands_in(h, p) && h.chars().count() <= p.chars().count() + TITLE_EXTRA_CHARS
            });
            let in_page = stands_in(&page.markdown, p);
            let in_lead = in_page && stands_in(&lead, p);
            // A signed-in page shows the user's own data (mail subjects, logs)
            // where any phrase can stand; only its headings speak for the page.
            let signed = page.signed_in.is_some();
            let in_body = in_page && !signed;
            let (confidence, where_) = if (in_heading || in_body) && short {
                (Confidence::High, "on a short page")
            } else if in_page && short {
                (Confidence::Low, "on a short signed-in page")
            } else if in_heading {
                (Confidence::Medium, "in a heading")
            } else if in_body && referenced && kind == ObstacleType::AccessDenied {
                (Confidence::Medium, "with a block reference")
            } else if in_lead && in_body {
                (Confidence::Low, "at the top of the page")
            } else {
                continue;
            };
            // Documentation and threads show code; a challenge phrase next to a
            // form of several fields guards that form (a contact page).
            let guards_form =
                kind == ObstacleType::Captcha && page.other_fields > LOGIN_MAX_OTHER_FIELDS - 1;
            let confidence = if page.code_block || guards_form {
                Confidence::Low
            } else {
                page.words_cap(confidence)
            };
            if best.as_ref().is_none_or(|b| b.confidence < confidence) {
                best = obstacle(
                    kind,
                    confidence,
                    format!("the page says \"{p}\" {where_}: {what}"),
                );
            }
        }
    }
    best
}
