//! The words and phrases the detector reads pages with (PROTOCOL.md §8): titles,
//! paths and phrases of walls, signed-in signals, sign-in affordances, and the
//! words that turn a phrase into a mention.

/// Titles of challenge pages (layer 2 → `captcha`, high).
pub const CHALLENGE_TITLES: &[&str] = &[
    "just a moment",
    "attention required",
    "verify you are human",
    "are you a robot",
    "human verification",
    "checking your browser",
    "ddos-guard",
    "安全验证",
    "人机验证",
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
/// words, case-insensitively: `\b(password|passcode|pwd)\b`). Pages in other
/// languages are caught by the input's type instead ([`PageView::password_inputs`](super::PageView::password_inputs)).
pub const PASSWORD_WORDS: &[&str] = &["password", "passcode", "pwd"];

/// Roles a password field can have in the accessibility tree.
pub const PASSWORD_ROLES: &[&str] = &["textbox", "searchbox"];

/// Markdown phrases of challenge pages (→ `captcha`).
pub const CHALLENGE_PHRASES: &[&str] = &[
    "verify you are human",
    "verify that you are human",
    "unusual traffic",
    "are you a robot",
    "checking your browser",
    "complete the security check",
    "press and hold",
    "press & hold",
    "not a robot",
    "enter the characters you see",
    "slide to complete the puzzle",
    "slide to verify",
    "drag the slider",
    "complete the puzzle",
    "security verification",
    "verifica que eres humano",
    "bestätigen sie, dass sie ein mensch sind",
    "vérifiez que vous êtes humain",
    "拖动滑块",
    "完成拼图",
    "安全验证",
    "人机验证",
];

/// Markdown phrases of denial and bot-block pages (→ `access_denied`).
pub const DENIAL_PHRASES: &[&str] = &[
    "you don't have permission",
    "you do not have permission",
    "access denied",
    "access to this page has been denied",
    "you have been blocked",
    "you've been blocked",
    "access has been blocked",
    "ip address has been blocked",
    "ip has been blocked",
    "request has been blocked",
    "site has been blocked",
    "request unsuccessful",
    "not available in your country",
    "not available in your region",
    "403 forbidden",
    "unusual activity",
    "suspicious activity",
    "automated requests",
    "automated queries",
    "too many requests",
    "temporarily blocked",
    "temporarily restricted",
    "zugriff verweigert",
    "nicht verfügbar in ihrem land",
    "in ihrem land nicht verfügbar",
    "acceso denegado",
    "accès refusé",
    "acesso negado",
    "accesso negato",
    "访问被拒绝",
    "アクセスが拒否されました",
];

/// Phrases that name a block's reference (`Reference ID: 18.2f…`): with a denial
/// phrase on a page of at most [`PHRASE_PAGE_MAX_CHARS`](super::PHRASE_PAGE_MAX_CHARS) they make it at least
/// `medium`, whatever else the page links to.
pub const REFERENCE_PHRASES: &[&str] = &[
    "reference id",
    "reference #",
    "reference number",
    "ray id",
    "incident id",
    "support id",
    "request id",
    "block reference",
    "event id",
];

/// Element names (whole, case-insensitive) that only a signed-in page shows.
pub const SIGNED_IN_NAMES: &[&str] = &[
    "sign out",
    "log out",
    "logout",
    "signout",
    "log off",
    "sign off",
    "account menu",
    "user menu",
    "open user menu",
    "your account menu",
];

/// Phrases by which a page says who is signed in ("Signed in as @kim").
pub const SIGNED_IN_PHRASES: &[&str] = &[
    "signed in as",
    "logged in as",
    "you are signed in",
    "you're signed in",
    "you are logged in",
    "you're logged in",
];

/// Words that, beside "password" in a field's name, make it part of a
/// change-password form (`Current password`, `New password`): the user is signed in.
pub const CHANGE_PASSWORD_WORDS: &[&str] = &["current", "old", "new", "existing"];

/// Names (whole, case-insensitive) of settings-navigation links; see
/// [`SETTINGS_NAV_MIN`](super::SETTINGS_NAV_MIN).
pub const SETTINGS_NAV_NAMES: &[&str] = &[
    "profile",
    "account",
    "security",
    "notifications",
    "billing",
    "api keys",
    "api tokens",
    "preferences",
    "sessions",
    "integrations",
    "appearance",
    "emails",
    "two-factor authentication",
];

/// Titles and headings of sign-in pages (layer 2 → `auth_wall`, `medium` on a
/// short page): the identifier-first step of a sign-in shows no password field yet.
pub const SIGN_IN_TITLES: &[&str] = &[
    "sign in",
    "sign-in",
    "log in",
    "log-in",
    "login",
    "log on",
    "sign in to your account",
    "log in to your account",
    "sign in to continue",
    "log in to continue",
    "anmelden",
    "einloggen",
    "iniciar sesión",
    "inicia sesión",
    "connexion",
    "se connecter",
    "accedi",
    "entrar",
    "inloggen",
    "zaloguj się",
    "войти",
    "вход",
    "ログイン",
    "サインイン",
    "登录",
    "登入",
    "로그인",
    "giriş yap",
];

/// Words that name a login's user field ("Username", "Email address", "Customer
/// ID"): the form asks who you are.
pub const USER_WORDS: &[&str] = &[
    "user",
    "username",
    "user name",
    "user id",
    "email",
    "e-mail",
    "login",
    "account",
    "phone",
    "id",
    "identifier",
    "customer",
    "member",
    "benutzer",
    "benutzername",
    "usuario",
    "correo",
    "utilisateur",
    "identifiant",
    "courriel",
    "utente",
    "gebruikersnaam",
    "ユーザー",
    "メール",
    "用户",
    "账号",
    "邮箱",
    "아이디",
    "이메일",
];

/// Words of a sign-in affordance (a "Log in" button, a "Sign in" heading), for
/// the page offering to sign in.
pub const SIGN_IN_WORDS: &[&str] = &[
    "sign in",
    "signin",
    "sign-in",
    "log in",
    "login",
    "log-in",
    "log on",
    "logon",
    "sign on",
    "anmelden",
    "einloggen",
    "iniciar sesión",
    "entrar",
    "connexion",
    "se connecter",
    "accedi",
    "inloggen",
    "zaloguj",
    "войти",
    "ログイン",
    "サインイン",
    "登录",
    "登入",
    "로그인",
    "unlock",
];

/// Chars that set a site name off a page's name in a title.
pub const TITLE_SEPARATORS: &[char] = &[
    '|', '-', '\u{2013}', '\u{2014}', '\u{b7}', ':', '\u{2022}', '/',
];

/// Account actions that, with a [`READ_ON_WORDS`] phrase in a modal overlay, ask
/// to sign in before reading on ("Create an account to read the full story").
pub const ACCOUNT_ACTIONS: &[&str] = &[
    "sign in",
    "log in",
    "login",
    "create an account",
    "create a free account",
    "create your free account",
    "register",
    "join now",
];

/// What an overlay's account action unlocks: reading on, the rest of the page.
pub const READ_ON_WORDS: &[&str] = &[
    "to read",
    "to continue",
    "keep reading",
    "continue reading",
    "full story",
    "full article",
    "to view",
    "to see",
    "to access",
    "free articles",
    "members only",
    "member-only",
];

/// Markdown phrases of login-required pages (→ `auth_wall`).
pub const LOGIN_PHRASES: &[&str] = &[
    "sign in to keep reading",
    "log in to keep reading",
    "sign in to continue reading",
    "log in to continue reading",
    "subscribe or sign in",
    "sign in to read",
    "log in to read",
    "create a free account to continue",
    "register to continue",
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
    "subscribe to keep reading",
    "subscribe to continue reading",
    "subscribe to read",
    "subscribe to continue",
    "this article is for subscribers",
    "for subscribers only",
    "subscribers only",
    "is password protected",
    "your session has expired",
    "your session expired",
    "suscríbete para seguir leyendo",
    "suscríbete para continuar leyendo",
    "inicia sesión para continuar",
    "jetzt weiterlesen mit",
    "abonnieren sie, um weiterzulesen",
    "abonnez-vous pour lire la suite",
    "connectez-vous pour continuer",
    "assine para continuar lendo",
    "faça login para continuar",
];

/// Hosts (and their subdomains) that serve challenge iframes.
pub const CAPTCHA_FRAME_HOSTS: &[&str] = &[
    "challenges.cloudflare.com",
    "hcaptcha.com",
    "recaptcha.net",
    "captcha-delivery.com",
    "arkoselabs.com",
];

/// Words that, just before a phrase, name it as a thing ("an access denied page",
/// "see access denied").
pub const MENTION_BEFORE: &[&str] = &[
    "a", "an", "the", "see", "sees", "get", "gets", "shows", "says", "saying", "called", "like",
];

/// Words that, just after a phrase, make it a modifier of a thing ("access denied
/// errors", "are you a robot test").
pub const MENTION_AFTER: &[&str] = &[
    "error",
    "errors",
    "message",
    "messages",
    "page",
    "pages",
    "screen",
    "screens",
    "prompt",
    "prompts",
    "test",
    "tests",
    "check",
    "checks",
    "box",
    "challenge",
    "challenges",
    "warning",
    "warnings",
    "popup",
    "popups",
];

/// Chars that, just before a phrase, quote it.
pub(super) const QUOTE_MARKS: &[char] = &['"', '\'', '\u{201c}', '\u{2018}', '\u{ab}', '`'];
