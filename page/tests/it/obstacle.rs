//! Table test of `detect_obstacle` (PROTOCOL.md §8): true walls must be found with
//! the right type and confidence; look-alikes must stay clear (or at most `low`).

use browser_bridge_page::obstacle::{
    FEW_CONTROLS, LOGIN_PAGE_MAX_CHARS, MARKDOWN_SCAN_CHARS, OVERLAY_COVER_MIN, ObstacleInput,
    PHRASE_PAGE_MAX_CHARS, PageView, SETTINGS_NAV_MIN, SHORT_MARKDOWN_CHARS, detect_obstacle,
    is_captcha_frame_url, is_password_field, signed_in,
};
use browser_bridge_protocol::extract::{Confidence, ObstacleType};
use browser_bridge_protocol::{Element, Uid};

use Confidence::{High, Low, Medium};
use ObstacleType::{AccessDenied, AuthWall, Captcha};

/// One labelled page.
struct Case {
    label: &'static str,
    url: &'static str,
    title: &'static str,
    markdown: String,
    elements: Vec<Element>,
    captcha_frame: bool,
    status: Option<u16>,
    view: PageView,
    expect: Option<(ObstacleType, Confidence)>,
}

fn case(label: &'static str, url: &'static str, title: &'static str) -> Case {
    Case {
        label,
        url,
        title,
        markdown: String::new(),
        elements: Vec::new(),
        captcha_frame: false,
        status: None,
        view: PageView::default(),
        expect: None,
    }
}

impl Case {
    fn md(mut self, markdown: impl Into<String>) -> Self {
        self.markdown = markdown.into();
        self
    }
    fn els(mut self, elements: Vec<Element>) -> Self {
        self.elements = elements;
        self
    }
    fn frame(mut self) -> Self {
        self.captcha_frame = true;
        self
    }
    fn status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }
    fn view(mut self, view: PageView) -> Self {
        self.view = view;
        self
    }
    fn headings(mut self, headings: &[&str]) -> Self {
        self.view.headings = headings.iter().map(|h| h.to_string()).collect();
        self
    }
    fn expect(mut self, kind: ObstacleType, confidence: Confidence) -> Self {
        self.expect = Some((kind, confidence));
        self
    }
}

fn el(role: &str, name: &str) -> Element {
    Element {
        uid: Uid::from_index(0),
        role: role.into(),
        name: Some(name.into()),
        value: None,
        visible: None,
        disabled: None,
        checked: None,
        multiline: None,
        readonly: None,
        options: None,
        frame_origin: None,
        value_length: None,
        clickable: None,
        hint: None,
    }
}

/// Numbers the uids in order, as extract does.
fn numbered(mut elements: Vec<Element>) -> Vec<Element> {
    for (i, e) in elements.iter_mut().enumerate() {
        e.uid = Uid::from_index(i as u64);
    }
    elements
}

fn login_form() -> Vec<Element> {
    numbered(vec![
        el("textbox", "Email address"),
        el("textbox", "Password"),
        el("checkbox", "Remember me"),
        el("button", "Sign in"),
        el("link", "Forgot password?"),
    ])
}

/// `n` filler links, as on a busy page.
fn links(n: usize) -> Vec<Element> {
    (0..n).map(|i| el("link", &format!("Story {i}"))).collect()
}

/// `n` filler buttons (sign-in providers, tools).
fn buttons(n: usize) -> Vec<Element> {
    (0..n).map(|i| el("button", &format!("Tool {i}"))).collect()
}

fn with(mut base: Vec<Element>, more: Vec<Element>) -> Vec<Element> {
    base.extend(more);
    numbered(base)
}

/// Article prose of at least `chars` chars, with `phrase` after `at` chars.
fn article(chars: usize, phrase: &str, at: usize) -> String {
    let para = "The committee met on Tuesday to discuss the budget, the new library \
                wing and the state of the river path, which flooded twice this spring. ";
    let mut text = String::from("# City council notes\n\n");
    while text.len() < at {
        text.push_str(para);
    }
    text.push_str(phrase);
    text.push(' ');
    while text.len() < chars {
        text.push_str(para);
    }
    text
}

fn cases() -> Vec<Case> {
    let settings = with(
        vec![
            el("textbox", "Display name"),
            el("textbox", "Email"),
            el("textbox", "Current password"),
            el("textbox", "New password"),
            el("button", "Save"),
        ],
        links(35),
    );
    vec![
        // ---- true walls ----
        case("bare login form", "https://example.com/", "Example")
            .els(login_form())
            .expect(AuthWall, High),
        case(
            "cloudflare just a moment",
            "https://shop.example/",
            "Just a moment...",
        )
        .md("Checking if the site connection is secure")
        .expect(Captcha, High),
        case(
            "cloudflare just a moment (ellipsis char)",
            "https://x.example/p",
            "Just a moment…",
        )
        .expect(Captcha, High),
        case(
            "cloudflare attention required",
            "https://x.example/",
            "Attention Required! | Cloudflare",
        )
        .expect(Captcha, High),
        case("403 page", "https://x.example/admin", "403 Forbidden")
            .md("# 403 Forbidden\n\nnginx")
            .expect(AccessDenied, High),
        case(
            "akamai access denied title",
            "https://www.store.example/",
            "Access Denied",
        )
        .md("# Access Denied\n\nYou don't have permission to access this server.")
        .expect(AccessDenied, High),
        case(
            "error 403 title",
            "https://x.example/",
            "Error 403 | Example",
        )
        .expect(AccessDenied, High),
        case(
            "recaptcha frame",
            "https://forms.example/contact",
            "Contact us",
        )
        .els(numbered(vec![
            el("textbox", "Message"),
            el("button", "Send"),
        ]))
        .frame()
        .expect(Captcha, High),
        case(
            "verify you are human title",
            "https://x.example/",
            "Verify you are human",
        )
        .expect(Captcha, High),
        case(
            "/login with password field",
            "https://app.example/login",
            "App",
        )
        .els(login_form())
        .expect(AuthWall, High),
        case(
            "/login without password field",
            "https://app.example/login",
            "App",
        )
        .els(numbered(vec![el("textbox", "Email"), el("button", "Next")]))
        .expect(AuthWall, Low),
        case(
            "/signin with password among many elements",
            "https://news.example/signin?next=/x",
            "Sign in",
        )
        .els(with(login_form(), links(40)))
        .expect(AuthWall, High),
        case(
            "accounts.* host, two-step email page",
            "https://accounts.example.com/v3/identifier",
            "Sign in",
        )
        .els(numbered(vec![
            el("textbox", "Email or phone"),
            el("button", "Next"),
        ]))
        .expect(AuthWall, Medium),
        case(
            "github /session/new",
            "https://git.example/session/new",
            "Sign in",
        )
        .els(login_form())
        .expect(AuthWall, High),
        case(
            "gitlab /users/sign_in",
            "https://gl.example/users/sign_in",
            "Sign in",
        )
        .els(login_form())
        .expect(AuthWall, High),
        case(
            "/login.php",
            "http://forum.example/login.php?redirect=1",
            "Forum",
        )
        .els(login_form())
        .expect(AuthWall, High),
        case(
            "upper-case login URL is lower-cased",
            "HTTPS://EXAMPLE.COM/LOGIN",
            "EXAMPLE",
        )
        .expect(AuthWall, Low),
        case(
            "cloudflare challenge path",
            "https://x.example/cdn-cgi/challenge-platform/h/b/orchestrate/jsch/v1",
            "",
        )
        .expect(Captcha, High),
        case("/captcha path", "https://x.example/captcha?return=/", "").expect(Captcha, High),
        case("short denial markdown", "https://x.example/file", "")
            .md("# Access denied\n\nYou don't have permission to access \"/file\" on this server.")
            .expect(AccessDenied, High),
        case("curly apostrophe denial", "https://x.example/doc", "Docs")
            .md("Sorry, you don\u{2019}t have permission to view this document.")
            .expect(AccessDenied, High),
        case(
            "google sorry page",
            "https://www.google.com/sorry/index",
            "",
        )
        .md("Our systems have detected unusual traffic from your computer network.")
        .expect(Captcha, High),
        case(
            "short sign-in-to-continue page",
            "https://x.example/doc/1",
            "Doc",
        )
        .md("Please sign in to continue.")
        .expect(AuthWall, High),
        case(
            "medium page asking to log in",
            "https://x.example/thread/9",
            "Thread",
        )
        .md(article(
            SHORT_MARKDOWN_CHARS + 200,
            "You must be logged in to reply.",
            100,
        ))
        .expect(AuthWall, Low),
        case("layer 1 beats layer 3", "https://x.example/login", "Login")
            .els(login_form())
            .frame()
            .expect(Captcha, High),
        case(
            "layer 2 beats layer 3",
            "https://x.example/login",
            "Just a moment...",
        )
        .els(login_form())
        .expect(Captcha, High),
        case(
            "design-system searchbox named password",
            "https://x.example/",
            "X",
        )
        .els(numbered(vec![
            el("textbox", "Username"),
            el("searchbox", "Password"),
            el("button", "Continue"),
        ]))
        .expect(AuthWall, High),
        case("PWD upper-case", "https://router.local/", "Router")
            .els(numbered(vec![
                el("textbox", "User"),
                el("textbox", "PWD"),
                el("button", "OK"),
            ]))
            .expect(AuthWall, High),
        case("passcode field", "https://bank.example/", "Bank")
            .els(numbered(vec![
                el("textbox", "Passcode"),
                el("button", "Log on"),
            ]))
            .expect(AuthWall, High),
        case(
            "a lone password field that signs nobody in: a router's Wi-Fi key",
            "http://192.168.1.1/wireless",
            "Wireless settings",
        )
        .md("# Wireless settings\n\nNetwork key for HOME-5G.")
        .els(numbered(vec![
            el("textbox", "Password"),
            el("button", "Save"),
        ]))
        .expect(AuthWall, Low),
        case(
            "a password to set, not to enter (autocomplete=new-password)",
            "https://x.example/signup/2",
            "Create your account",
        )
        .md("# Set a password")
        .els(numbered(vec![
            el("textbox", "Password"),
            el("button", "Continue"),
        ]))
        .view(PageView {
            password_inputs: 1,
            new_password_inputs: 1,
            ..PageView::default()
        }),
        case(
            "a password beside a file picker: an unlock tool",
            "https://tools.example/unzip",
            "Unlock a ZIP file",
        )
        .md("# Unlock a ZIP file")
        .els(numbered(vec![
            el("button", "Choose File"),
            el("textbox", "Password"),
            el("button", "Log in"),
        ]))
        .view(PageView {
            password_inputs: 1,
            file_inputs: 1,
            ..PageView::default()
        }),
        case(
            "a band named after an error, in the title",
            "https://music.example/access-denied",
            "Access Denied (band) – Tour dates",
        )
        .md("# Access Denied\n\nTour dates for spring.")
        .status(200)
        .expect(AccessDenied, Medium),
        case(
            "words alone on a page that answered 200 are not conclusive",
            "https://x.example/",
            "Error",
        )
        .md("You have been blocked.")
        .status(200)
        .expect(AccessDenied, Medium),
        case(
            "password field with exactly FEW_CONTROLS controls",
            "https://x.example/",
            "X",
        )
        .els(with(login_form(), buttons(FEW_CONTROLS - 4)))
        .expect(AuthWall, High),
        case(
            "password field with FEW_CONTROLS + 1 controls",
            "https://x.example/",
            "X",
        )
        .els(with(login_form(), buttons(FEW_CONTROLS - 3)))
        .expect(AuthWall, Medium),
        case(
            "login form framed by many nav and footer links",
            "https://code.example/",
            "Sign in to Code",
        )
        .els(with(login_form(), links(30)))
        .expect(AuthWall, High),
        case(
            "sign-in modal over an article, scroll locked",
            "https://news.example/2026/story",
            "A long story",
        )
        .md(article(6_000, "", 0))
        .els(with(
            links(50),
            vec![el("button", "Sign in"), el("button", "Close")],
        ))
        .view(modal(
            "subscribe to continue. sign in to keep reading or create an account.",
            true,
        ))
        .expect(AuthWall, Medium),
        case(
            "login form in a dimmed overlay, no phrase",
            "https://forum.example/t/1",
            "Thread",
        )
        .md(article(4_000, "", 0))
        .els(with(login_form(), links(30)))
        .view(PageView {
            overlay_password: true,
            password_inputs: 1,
            ..modal("welcome back", false)
        })
        .expect(AuthWall, Medium),
        case(
            "bot-block wall with a reference id and a log in link",
            "https://www.shop.example/item/9",
            "shop.example",
        )
        .md(
            "# We noticed unusual activity\n\nWe noticed unusual activity from your device or \
             network. Reasons may include rapid taps or clicks, or JavaScript being disabled. \
             To keep going, sign in or try again later. If you think this is a mistake, contact \
             support and quote the reference below. We will look into it and restore access. \
             Our systems check every request to protect the people who use this site from \
             fraud and scraping, and sometimes they get it wrong. Thank you for your patience \
             while we sort this out. Requests from shared networks, VPNs and corporate proxies \
             are more likely to be checked, as are browsers with extensions that change pages.\n\nReference ID: 8c1e0f2a-77b3-11ee-b962-0242ac120002",
        )
        .els(numbered(vec![el("link", "Log in"), el("link", "Help")]))
        .expect(AccessDenied, Medium),
        case(
            "bot-block wall, short",
            "https://www.shop.example/item/9",
            "shop.example",
        )
        .md("We noticed unusual activity from your network.\n\nReference ID: 18.2f3a.1701")
        .els(numbered(vec![el("link", "Log in")]))
        .headings(&["We noticed unusual activity"])
        .expect(AccessDenied, High),
        case(
            "HTTP 403 with a short page",
            "https://x.example/private",
            "Oops",
        )
        .md("Sorry, this page isn't available.")
        .status(403)
        .expect(AccessDenied, High),
        case("HTTP 401", "https://x.example/api/docs", "Docs")
            .md("Unauthorized.")
            .status(401)
            .expect(AuthWall, High),
        case("HTTP 429", "https://x.example/search?q=a", "Error")
            .md("Slow down.")
            .status(429)
            .expect(AccessDenied, High),
        case(
            "HTTP 403 on a full page",
            "https://x.example/members",
            "Members",
        )
        .md(article(3_000, "", 0))
        .status(403)
        .expect(AccessDenied, Medium),
        case("HTTP 503 maintenance page", "https://x.example/", "Maintenance")
            .md("Back soon.")
            .status(503),
        case("HTTP 451 short page", "https://x.example/", "Unavailable")
            .md("Dieser Inhalt ist leider nicht abrufbar.")
            .status(451)
            .expect(AccessDenied, High),
        case(
            "a denial phrase in a log table of a signed-in console",
            "https://console.example/firewall",
            "Firewall · Overview",
        )
        .md("# Overview\n\n| Time | Action |\n| --- | --- |\n| 14:02 | Block – Access denied |")
        .els(numbered(vec![el("link", "Log out")])),
        case(
            "a denial phrase in a mail subject of an inbox",
            "https://mail.example/inbox",
            "Inbox (4)",
        )
        .md("- SharePoint\n  Access denied: you need permission to open the file\n- Hosting\n  Too many requests from your address")
        .els(links(8)),
        case(
            "a re-authentication prompt on a signed-in page",
            "https://code.example/settings",
            "Confirm access",
        )
        .md("Signed in as @lwong\n\n## Confirm access")
        .els(numbered(vec![
            el("textbox", "Password"),
            el("button", "Confirm"),
        ])),
        case(
            "a login form demo on a component documentation page",
            "https://design.example/components/login",
            "Login form – Design system",
        )
        .md("# Login form\n\n```html\n<login-form></login-form>\n```")
        .els(login_form())
        .expect(AuthWall, Low),
        case(
            "a sign-in box in the sidebar of a short front page",
            "https://news.example/",
            "Town news",
        )
        .md("# Town news\n\nThe council met on Tuesday.")
        .els(login_form())
        .view(PageView {
            password_inputs: 1,
            chrome_password_inputs: 1,
            ..PageView::default()
        }),
        case(
            "a challenge widget embedded in a middling blog post",
            "https://blog.example/turnstile",
            "Trying the new widget",
        )
        .md(article(1_500, "", 0))
        .frame()
        .expect(Captcha, Low),
        case(
            "an inline paywall",
            "https://news.example/2026/story",
            "Story",
        )
        .md("# Story\n\nThe first paragraph of the story.\n\nSubscribe to keep reading.")
        .expect(AuthWall, High),
        case(
            "heading phrase on a middle-length page",
            "https://x.example/doc/2",
            "Doc",
        )
        .md(article(SHORT_MARKDOWN_CHARS + 400, "", 0))
        .headings(&["Please sign in"])
        .expect(AuthWall, Medium),
        // ---- look-alikes that must stay clear ----
        case(
            "settings page with password change",
            "https://x.example/settings",
            "Settings",
        )
        .md(article(3_000, "Change your profile here.", 50))
        .els(settings),
        case(
            "signed-in admin settings: change password and API key, 11 elements",
            "https://admin.example/settings/security",
            "Security settings",
        )
        .md("# Security\n\nChange your password or rotate your API key.")
        .els(numbered(vec![
            el("textbox", "Current password"),
            el("textbox", "New password"),
            el("textbox", "Confirm new password"),
            el("button", "Change password"),
            el("textbox", "API key name"),
            el("button", "Create key"),
            el("link", "Profile"),
            el("link", "Security"),
            el("link", "Billing"),
            el("link", "Notifications"),
            el("button", "Sign out"),
        ])),
        case(
            "short page with a sign-out control and a password confirm",
            "https://app.example/delete",
            "Delete account",
        )
        .md("# Delete account\n\nEnter your password to confirm.")
        .els(numbered(vec![
            el("textbox", "Password"),
            el("button", "Delete"),
            el("button", "Log out"),
        ])),
        case(
            "article about captchas quoting the phrase",
            "https://blog.example/what-is-a-captcha",
            "What is a CAPTCHA?",
        )
        .md(article(
            SHORT_MARKDOWN_CHARS + 600,
            "Then the site asks \"are you a robot\" and shows a grid of buses.",
            400,
        ))
        .headings(&["What is a CAPTCHA?"]),
        case(
            "article about captchas quoting the phrase in its lead",
            "https://blog.example/robots",
            "Robots",
        )
        .md(format!(
            "> Are you a robot? {}",
            article(SHORT_MARKDOWN_CHARS + 600, "", 0)
        )),
        case(
            "news page with a sign-in box in the header",
            "https://news.example/",
            "News",
        )
        .md(article(5_000, "", 0))
        .els(with(
            vec![
                el("textbox", "Email"),
                el("textbox", "Password"),
                el("button", "Sign in"),
            ],
            links(83),
        )),
        case(
            "checkout with an optional account password",
            "https://shop.example/checkout",
            "Checkout",
        )
        .md("# Checkout\n\nShipping address\n\nPayment")
        .els(numbered(vec![
            el("textbox", "Email"),
            el("textbox", "Full name"),
            el("textbox", "Address"),
            el("textbox", "City"),
            el("textbox", "Create a password (optional)"),
            el("button", "Pay"),
        ])),
        case(
            "sign-up form: password and confirmation",
            "https://app.example/join",
            "Join",
        )
        .md("# Create your account")
        .els(numbered(vec![
            el("textbox", "Email"),
            el("textbox", "Password"),
            el("textbox", "Confirm password"),
            el("button", "Create account"),
        ])),
        case(
            "title naming the error in a question",
            "https://help.example/403",
            "What does 403 Forbidden mean?",
        )
        .md("A short answer: the server understood you and refuses."),
        case(
            "short help page that mentions the message",
            "https://help.example/denied",
            "Help",
        )
        .md("# Why was my access denied?\n\nIf you see an access denied message, check the link.")
        .headings(&["Why was my access denied?"]),
        case(
            "captcha heading that asks",
            "https://x.example/check",
            "Check",
        )
        .md("# Are you a robot?\n\nTick the box below.")
        .headings(&["Are you a robot?"])
        .expect(Captcha, High),
        case(
            "cookie banner: a fixed bar with no wall phrase",
            "https://news.example/a",
            "A",
        )
        .md(article(4_000, "", 0))
        .view(PageView {
            overlay_cover: 0.15,
            overlay_text: "we use cookies. accept all".into(),
            ..PageView::default()
        }),
        case(
            "sign-in phrase in a panel that neither dims nor locks",
            "https://news.example/b",
            "B",
        )
        .md(article(4_000, "", 0))
        .view(PageView {
            overlay_cover: OVERLAY_COVER_MIN - 0.3,
            overlay_text: "sign in to keep reading".into(),
            ..PageView::default()
        }),
        case(
            "HTTP 200 denial phrase deep in a long page",
            "https://x.example/help/403",
            "Help: errors",
        )
        .md(article(
            LOGIN_PAGE_MAX_CHARS + 3_000,
            "You don't have permission, says the server.",
            900,
        ))
        .status(200),
        case(
            "news front page with Log in nav link",
            "https://news.example/",
            "News",
        )
        .md(article(6_000, "Top stories today.", 10))
        .els(with(
            vec![el("link", "Log in"), el("link", "Subscribe")],
            links(60),
        )),
        case(
            "search page with a searchbox",
            "https://search.example/?q=rust",
            "rust - Search",
        )
        .md(article(3_000, "About 1,000 results.", 10))
        .els(numbered(vec![
            el("searchbox", "Search"),
            el("button", "Search"),
            el("link", "Images"),
        ])),
        case(
            "long article mentioning access denied",
            "https://blog.example/post",
            "Post",
        )
        .md(article(
            5_000,
            "The server answered access denied for every file.",
            600,
        )),
        case(
            "long article mentioning access denied past the scan window",
            "https://blog.example/post2",
            "Post",
        )
        .md(article(
            MARKDOWN_SCAN_CHARS + 2_000,
            "Access denied.",
            MARKDOWN_SCAN_CHARS + 500,
        )),
        case(
            "long article about captchas",
            "https://blog.example/captchas",
            "Captchas",
        )
        .md(article(
            PHRASE_PAGE_MAX_CHARS + 500,
            "Sites ask you to verify you are human after unusual traffic.",
            300,
        )),
        case(
            "headline containing access denied",
            "https://news.example/a/1",
            "Access denied: why the city archive went dark",
        )
        .md(article(4_000, "", 0)),
        case(
            "film title with forbidden",
            "https://films.example/1",
            "Forbidden Planet (1956)",
        )
        .md(article(3_000, "", 0)),
        case("passwords search box", "https://vault.example/", "Vault").els(numbered(vec![
            el("searchbox", "Search passwords"),
            el("button", "Add"),
        ])),
        case(
            "blog path mentioning login",
            "https://blog.example/how-to-login-securely",
            "Blog",
        )
        .md(article(3_000, "", 0)),
        case(
            "loginhelp path segment",
            "https://x.example/loginhelp",
            "Help",
        )
        .md(article(3_000, "", 0)),
        case(
            "/captchas-explained path",
            "https://x.example/captchas-explained",
            "Captchas",
        )
        .md(article(3_000, "", 0)),
        case(
            "recaptcha docs page",
            "https://developers.google.com/recaptcha/docs",
            "reCAPTCHA",
        )
        .md(article(3_000, "", 0)),
        case("hidden login modal", "https://shop.example/", "Shop").els({
            let mut e = login_form();
            e[1].visible = Some(false);
            e
        }),
        case(
            "show password checkbox and forgot link",
            "https://x.example/",
            "X",
        )
        .els(numbered(vec![
            el("checkbox", "Show password"),
            el("link", "Forgot password?"),
            el("button", "Go"),
        ])),
        case("empty page", "about:blank", ""),
        case(
            "a short page titled as a sign-in page: the provider picker",
            "https://x.example/welcome",
            "Sign in – X",
        )
        .els(numbered(vec![el("button", "Continue with Google")]))
        .expect(AuthWall, Medium),
        case(
            "a title that only starts with a sign-in word",
            "https://x.example/security",
            "Login history",
        )
        .md("Your recent sessions.")
        .els(numbered(vec![el("button", "Refresh")])),
        case(
            "identifier-first step in another language, headed",
            "https://sso.example/",
            "Acme SSO",
        )
        .md("# Log in\n\nUse your work account.")
        .els(numbered(vec![
            el("textbox", "Work email"),
            el("button", "Next"),
        ]))
        .expect(AuthWall, Medium)
        .headings(&["Log in"]),
        case(
            "a signed-in page titled Log in activity",
            "https://x.example/settings/log-in",
            "Log in – Settings",
        )
        .md("Where you are signed in.")
        .els(numbered(vec![el("button", "Sign out")])),
        case(
            "a block page quoted in a code block of a Q&A thread",
            "https://qa.example/q/1",
            "Requests get 403 - Q&A",
        )
        .md("# Requests get 403\n\nI get this back:\n\n```\nAccess Denied\nYou don't have permission to access this server.\nReference #18.2f\n```\n\nWhat header is missing?")
        .els(links(20)),
        case(
            "a block banner quoted in typographic quotes in a forum reply",
            "https://forum.example/t/9",
            "VPN trouble",
        )
        .md("Same here: I got “Sorry, you have been blocked — you are unable to access example.org”. Switching the VPN exit fixed it.")
        .els(links(20)),
        case(
            "a password field labelled in French is found by its type",
            "https://sso.example/fr",
            "Connexion",
        )
        .md("# Se connecter")
        .els(numbered(vec![
            el("textbox", "Nom d'utilisateur"),
            el("textbox", "Mot de passe"),
            el("button", "Se connecter"),
        ]))
        .view(PageView {
            password_inputs: 1,
            ..PageView::default()
        })
        .expect(AuthWall, High),
    ]
}

#[test]
fn obstacle_table() {
    let cases = cases();
    assert!(cases.len() >= 40, "only {} cases", cases.len());
    let mut failures = Vec::new();
    for c in &cases {
        let got = detect_obstacle(&ObstacleInput {
            url: c.url,
            title: c.title,
            markdown: &c.markdown,
            elements: &c.elements,
            captcha_frame: c.captcha_frame,
            status: c.status,
            view: &c.view,
        });
        let got_kind = got.as_ref().map(|o| (o.obstacle_type, o.confidence));
        if got_kind != c.expect {
            failures.push(format!(
                "{}: expected {:?}, got {:?}",
                c.label, c.expect, got
            ));
        }
        if let Some(o) = &got {
            assert!(!o.message.is_empty(), "{}: empty message", c.label);
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A modal over the content: a full-viewport backdrop holding `text`.
fn modal(text: &str, scroll_locked: bool) -> PageView {
    PageView {
        overlay_cover: 1.0,
        overlay_text: text.into(),
        overlay_password: false,
        password_inputs: 0,
        chrome_password_inputs: 0,
        new_password_inputs: 0,
        file_inputs: 0,
        scroll_locked,
        headings: Vec::new(),
    }
}

#[test]
fn signed_in_signals() {
    assert_eq!(
        signed_in(&numbered(vec![el("button", "Sign out")])),
        Some("a sign-out control or account menu")
    );
    assert_eq!(
        signed_in(&numbered(vec![el("textbox", "Current password")])),
        Some("a change-password form")
    );
    let nav: Vec<Element> = ["Profile", "Billing", "Security", "Emails"]
        .iter()
        .map(|n| el("link", n))
        .collect();
    assert_eq!(
        signed_in(&numbered(nav[..SETTINGS_NAV_MIN].to_vec())),
        Some("a settings navigation")
    );
    assert_eq!(
        signed_in(&numbered(nav[..SETTINGS_NAV_MIN - 1].to_vec())),
        None
    );
    assert_eq!(signed_in(&login_form()), None);
    let mut hidden = el("button", "Log out");
    hidden.visible = Some(false);
    assert_eq!(signed_in(&[hidden]), None);
}

#[test]
fn captcha_frame_urls() {
    for url in [
        "https://challenges.cloudflare.com/cdn-cgi/challenge-platform/h/b/turnstile/if/ov2",
        "https://newassets.hcaptcha.com/captcha/v1/abc/static/hcaptcha.html",
        "https://hcaptcha.com/1/api.js",
        "https://www.google.com/recaptcha/api2/anchor?k=x",
        "https://www.recaptcha.net/recaptcha/api2/bframe",
        "HTTPS://WWW.GOOGLE.COM/RECAPTCHA/ENTERPRISE/ANCHOR",
    ] {
        assert!(is_captcha_frame_url(url), "{url} should be a captcha frame");
    }
    for url in [
        "https://www.google.com/search?q=recaptcha",
        "https://www.google.com/recaptchafake",
        "https://cloudflare.com/",
        "https://nothcaptcha.com/",
        "https://example.com/?u=https://hcaptcha.com/",
        "about:blank",
        "",
    ] {
        assert!(
            !is_captcha_frame_url(url),
            "{url} should not be a captcha frame"
        );
    }
}

#[test]
fn password_field_rule() {
    assert!(is_password_field(&el("textbox", "Password")));
    assert!(is_password_field(&el("textbox", "Enter your password:")));
    assert!(is_password_field(&el("searchbox", "pwd")));
    assert!(!is_password_field(&el("button", "Password")));
    assert!(!is_password_field(&el("textbox", "Passwords")));
    assert!(!is_password_field(&el("textbox", "Search")));
    let mut unnamed = el("textbox", "");
    unnamed.name = None;
    assert!(!is_password_field(&unnamed));
}
