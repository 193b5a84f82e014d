//! The action union of PROTOCOL.md §5: one `browser` tool, one action per call.
//!
//! Decode with [`Action::from_value`] / [`Action::from_json`]: they refuse an unknown
//! action by name, every schema violation and every bound with `invalid_request`
//! whose message starts with the action and names the field
//! (`click: give exactly one of uid or selector, not both`).

use std::ops::RangeInclusive;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::devtools::{ConsoleMessages, NetworkRequests, NetworkResponseBody};
use crate::downloads::{ListDownloads, WaitForDownload};
use crate::error::BridgeError;
use crate::handoff::Handoff;
use crate::ids::{TabId, Uid};

mod compound;

pub use compound::*;

/// Largest `wait_for.timeoutMs` (ms).
pub const WAIT_FOR_MAX_TIMEOUT_MS: u64 = 30_000;
/// Default `wait_for.timeoutMs` (ms).
pub const WAIT_FOR_DEFAULT_TIMEOUT_MS: u64 = 5_000;
/// `click.clickCount` bounds (single, double, triple click).
pub const CLICK_COUNT: RangeInclusive<u8> = 1..=3;
/// `drag.steps` bounds: mouse moves from `from` to `to`.
pub const DRAG_STEPS: RangeInclusive<u8> = 1..=50;
/// Default `drag.steps`.
pub const DRAG_DEFAULT_STEPS: u8 = 10;
/// Largest `screenshot.quality` (JPEG quality, 0..=100).
pub const SCREENSHOT_QUALITY_MAX: u8 = 100;
pub use crate::text::NOT_BLANK_PATTERN;
/// An absolute path (`upload_file.paths`): `/…`, `\\server\…` or `C:\…` / `C:/…`.
pub const ABSOLUTE_PATH_PATTERN: &str = r"^(/|\\\\|[A-Za-z]:[\\/])";

// The field bounds below are `#[schemars(...)]` attributes, which the derived
// schema carries, on constants that `Action::validate` checks at run time. The
// cross-field rules (exactly one of uid/selector; for scroll at most one) are
// `extend` attributes on the structs, and `check_target` in validate.rs.

/// One browser action, tagged by `action`.
// The doc comments of the action types are the descriptions of the action and tool
// schemas, which models read: they state rules in words, never as `§N`.
// Names: the variant name in snake_case, derived by serde for the wire and by
// strum for `Action::name` and `ACTION_NAMES` (tests/names.rs checks they agree).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, strum::EnumDiscriminants)]
#[serde(tag = "action", rename_all = "snake_case")]
#[strum_discriminants(
    name(ActionKind),
    vis(pub(crate)),
    derive(strum::EnumString, strum::IntoStaticStr, strum::VariantNames),
    strum(serialize_all = "snake_case")
)]
pub enum Action {
    /// Load `url` in a tab (opens one in the agent window when there is no session).
    Navigate(Navigate),
    /// Open a new tab in the agent window (or the user's window with `focus`).
    OpenTab(OpenTab),
    /// Close a tab; ends its session with `stopped`.
    CloseTab(CloseTab),
    /// List every normal tab, sessions and the user's own.
    ListTabs(ListTabs),
    /// History back.
    GoBack(History),
    /// History forward.
    GoForward(History),
    /// Reload the page.
    Reload(Reload),
    /// Trusted mouse click on an element, or at x, y (CSS px in the viewport).
    Click(Click),
    /// Move the mouse over an element, or to x, y.
    Hover(Hover),
    /// Press the mouse at `from`, move in steps, release at `to` (HTML5
    /// drag-and-drop when the source is draggable).
    Drag(Drag),
    /// Type text into an editable element (replaces its content by default); date,
    /// time, color and range inputs take a value in their own format (2025-03-14,
    /// 14:30, #2a9d8f, 7).
    Type(Type),
    /// Press one key (KeyboardEvent.key) in the focused element.
    PressKey(PressKey),
    /// Select options of a `<select>` by value, then by label; on a custom combobox,
    /// open it and click the option by label, then value.
    SelectOption(SelectOption),
    /// Scroll the page or a container.
    Scroll(Scroll),
    /// Wait until an element reaches a state.
    WaitFor(WaitFor),
    /// Read the page: markdown, text, elements with uids, and any obstacle (login
    /// wall, captcha, access denied).
    Extract(Extract),
    /// Run JavaScript in the page: the expression is an async function body, so
    /// `return` the value.
    Evaluate(Evaluate),
    /// Capture the viewport or the full page.
    Screenshot(Screenshot),
    /// Set the files of a file input.
    UploadFile(UploadFile),
    /// Accept or dismiss the open JavaScript dialog.
    HandleDialog(HandleDialog),
    /// List the tools the page exposes.
    ListPageTools(TabOnly),
    /// Call one tool the page exposes.
    CallPageTool(CallPageTool),
    /// Fill a form in one call: each field in order by its kind (text, textarea,
    /// contenteditable, select by value or label, checkbox/radio/switch by true or
    /// false, date/time/range/color in their own format), stopping at the first
    /// failure; then click `submit` if given.
    FillForm(FillForm),
    /// Run up to 10 actions of one tab in order in one call; one entry per action
    /// run (its result or its error).
    Batch(Batch),
    /// The tab's console messages since the session started (the last 500):
    /// the newest, oldest first.
    ConsoleMessages(ConsoleMessages),
    /// The tab's network requests since the session started (the last 500):
    /// the newest, in the order sent.
    NetworkRequests(NetworkRequests),
    /// The response body of one request from `network_requests`.
    NetworkResponseBody(NetworkResponseBody),
    /// Wait until a download of the tab ends (default its latest): its file's
    /// absolute path, size and SHA-256.
    WaitForDownload(WaitForDownload),
    /// The tab's downloads, newest first.
    ListDownloads(ListDownloads),
    /// Show the tab to the person with `reason` (a captcha, 2FA, a login, a
    /// payment) and wait for them: outcome done, cancelled or timeout.
    Handoff(Handoff),
}

/// Most fields of one `fill_form`.
pub const FILL_FORM_MAX_FIELDS: usize = 50;
/// Most actions of one `batch`.
pub const BATCH_MAX_ACTIONS: usize = 10;

/// Every action name, in the order of §5's table (the variants' order).
pub const ACTION_NAMES: &[&str] = <ActionKind as strum::VariantNames>::VARIANTS;

/// `{ tabId? }`: actions whose only parameter is the optional tab.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TabOnly {
    /// The tab to act on; may be left out while one tab is under control.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<TabId>,
}

/// `extract` parameters: the tab and the options that shape the result; each is
/// optional and they combine (scope, then query, then part).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Extract {
    /// The tab to read; may be left out while one tab is under control.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<TabId>,
    /// Only the form, dialog, list, table or landmark around this uid (or the
    /// element itself): its markdown and elements.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<Uid>,
    /// Only the markdown blocks (each under its headings) and the elements whose
    /// text contains this, ignoring case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = NOT_BLANK_PATTERN))]
    pub query: Option<String>,
    /// Read the N-th part (from 1) of the whole markdown, in parts of at most
    /// 30000 bytes; the result says how many parts there are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub part: Option<u32>,
    /// `last`: only what changed since the tab's last extract or observed action
    /// (a full extract when there is none or the page navigated since).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<Since>,
}

/// `go_back` / `go_forward` parameters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct History {
    /// The tab to act on; may be left out while one tab is under control.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<TabId>,
    /// Also answer what changed on the page since the tab's last extract or
    /// observed action (`changes`); default false, true in the MCP tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observe: Option<bool>,
}

/// The baseline of `extract.since`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Since {
    /// The tab's last extract or observed action.
    Last,
}

/// What `navigate`, `reload` and `close_tab` do with a `beforeunload` prompt of
/// the page they leave.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BeforeUnload {
    /// Report the prompt and leave it open for handle_dialog (the default).
    #[default]
    Report,
    /// Accept the prompt: leave the page (its unsaved changes are lost).
    Accept,
}

/// `navigate` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Navigate {
    /// `http:`, `https:` or `about:blank` URL.
    #[schemars(regex(pattern = NOT_BLANK_PATTERN))]
    pub url: String,
    /// The tab to navigate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<TabId>,
    /// Also answer what changed on the page since the tab's last extract or
    /// observed action (`changes`); default false, true in the MCP tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observe: Option<bool>,
    /// A beforeunload prompt of the page left: report (default) or accept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before_unload: Option<BeforeUnload>,
}

/// `reload` parameters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Reload {
    /// The tab to reload; may be left out while one tab is under control.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<TabId>,
    /// Also answer what changed on the page since the tab's last extract or
    /// observed action (`changes`); default false, true in the MCP tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observe: Option<bool>,
    /// A beforeunload prompt of the page: report (default) or accept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before_unload: Option<BeforeUnload>,
}

/// `open_tab` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OpenTab {
    /// `http:`, `https:` or `about:blank` URL.
    #[schemars(regex(pattern = NOT_BLANK_PATTERN))]
    pub url: String,
    /// Open in the user's current window, focused (default false: agent window).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focus: Option<bool>,
}

/// `close_tab` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CloseTab {
    /// The tab to close (required).
    pub tab_id: TabId,
    /// A beforeunload prompt of the page: report (default) or accept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before_unload: Option<BeforeUnload>,
}

/// `list_tabs` takes no parameters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ListTabs {}

/// A mouse button.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MouseButton {
    /// Primary button.
    Left,
    /// Wheel button.
    Middle,
    /// Secondary button.
    Right,
}

/// A keyboard modifier, as CDP `Input.dispatch*Event` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum Modifier {
    /// Alt / Option.
    Alt,
    /// Control.
    Control,
    /// Meta / Command.
    Meta,
    /// Shift.
    Shift,
}

impl Modifier {
    /// CDP's `modifiers` bit: Alt=1, Ctrl=2, Meta/Command=4, Shift=8.
    pub fn cdp_bit(self) -> u32 {
        match self {
            Modifier::Alt => 1,
            Modifier::Control => 2,
            Modifier::Meta => 4,
            Modifier::Shift => 8,
        }
    }

    /// The CDP bit mask of a set of modifiers.
    pub fn mask(modifiers: &[Modifier]) -> u32 {
        modifiers.iter().fold(0, |m, k| m | k.cdp_bit())
    }
}

/// A resolved element target: exactly one of uid or selector (§5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElementTarget<'a> {
    /// A uid from the last extract.
    Uid(&'a Uid),
    /// A CSS selector.
    Selector(&'a str),
}

macro_rules! targeted {
    ($(#[$m:meta])* $name:ident { $($(#[$fm:meta])* $field:ident : $ty:ty),* $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
        #[serde(rename_all = "camelCase")]
        // Exactly one target; an explicit `null` counts as absent, as in the decoder.
        #[schemars(extend("oneOf" = [
            { "required": ["uid"], "properties": { "uid": { "not": { "type": "null" } } } },
            { "required": ["selector"], "properties": { "selector": { "not": { "type": "null" } } } }
        ]))]
        pub struct $name {
            /// Element uid from the last extract (give this or `selector`).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub uid: Option<Uid>,
            /// CSS selector (give this or `uid`).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(regex(pattern = NOT_BLANK_PATTERN))]
            pub selector: Option<String>,
            /// The tab to act on.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub tab_id: Option<TabId>,
            $($(#[$fm])* pub $field: $ty,)*
        }

        impl $name {
            /// The target; `invalid_request` when not exactly one of uid/selector
            /// (never after [`Action::from_value`] accepted it).
            pub fn target(&self) -> Result<ElementTarget<'_>, BridgeError> {
                exactly_one_target(&self.uid, &self.selector)
            }
        }
    };
}

/// A resolved pointer target (§5 "Pointer targets"): an element, or a point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PointerTarget<'a> {
    /// An element by uid or selector.
    Element(ElementTarget<'a>),
    /// A point in the viewport (CSS px).
    Point {
        /// From the viewport's left edge.
        x: f64,
        /// From the viewport's top edge.
        y: f64,
    },
}

macro_rules! pointed {
    ($(#[$m:meta])* $name:ident { $($(#[$fm:meta])* $field:ident : $ty:ty),* $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
        #[serde(rename_all = "camelCase")]
        // Exactly one of uid, selector, x+y; an explicit `null` counts as absent.
        #[schemars(extend("oneOf" = [
            { "required": ["uid"], "properties": { "uid": { "not": { "type": "null" } } } },
            { "required": ["selector"], "properties": { "selector": { "not": { "type": "null" } } } },
            { "required": ["x", "y"], "properties": { "x": { "type": "number" }, "y": { "type": "number" } } }
        ], "dependentRequired" = { "x": ["y"], "y": ["x"] }))]
        pub struct $name {
            /// Element uid from the last extract (or `selector`, or `x`+`y`).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub uid: Option<Uid>,
            /// CSS selector (or `uid`, or `x`+`y`).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(regex(pattern = NOT_BLANK_PATTERN))]
            pub selector: Option<String>,
            /// CSS px from the viewport's left edge (with `y`, instead of uid/selector).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub x: Option<f64>,
            /// CSS px from the viewport's top edge (with `x`).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub y: Option<f64>,
            $($(#[$fm])* pub $field: $ty,)*
        }

        impl $name {
            /// The target; `invalid_request` when not exactly one of uid, selector
            /// or x+y (never after [`Action::from_value`] accepted it).
            pub fn target(&self) -> Result<PointerTarget<'_>, BridgeError> {
                exactly_one_pointer(&self.uid, &self.selector, self.x, self.y)
            }
        }
    };
}

pointed!(
    /// A `drag` end: exactly one of uid, selector or x+y.
    DragEnd {}
);

pointed!(
    /// `click` parameters.
    Click {
        /// The tab to act on.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tab_id: Option<TabId>,
        /// left (default), middle or right.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        button: Option<MouseButton>,
        /// 1 (default) to 3.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(range(min = *CLICK_COUNT.start(), max = *CLICK_COUNT.end()))]
        click_count: Option<u8>,
        /// Modifiers held during the click.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        modifiers: Option<Vec<Modifier>>,
        /// Also answer what changed on the page since the tab's last extract or
        /// observed action (`changes`); default false, true in the MCP tool.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        observe: Option<bool>,
    }
);

pointed!(
    /// `hover` parameters.
    Hover {
        /// The tab to act on.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tab_id: Option<TabId>,
    }
);

/// `drag` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Drag {
    /// Where the mouse is pressed: `{uid}`, `{selector}` or `{x, y}`.
    pub from: DragEnd,
    /// Where it is released: `{uid}`, `{selector}` or `{x, y}`.
    pub to: DragEnd,
    /// Mouse moves from `from` to `to`, 1 to 50 (default 10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = *DRAG_STEPS.start(), max = *DRAG_STEPS.end()))]
    pub steps: Option<u8>,
    /// The tab to act on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<TabId>,
    /// Also answer what changed on the page since the tab's last extract or
    /// observed action (`changes`); default false, true in the MCP tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observe: Option<bool>,
}

impl Drag {
    /// `steps`, defaulted to [`DRAG_DEFAULT_STEPS`].
    pub fn steps(&self) -> u8 {
        self.steps.unwrap_or(DRAG_DEFAULT_STEPS)
    }
}

targeted!(
    /// `type` parameters.
    Type {
        /// The text to type.
        text: String,
        /// Replace the content (default true) or append.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clear: Option<bool>,
        /// Press Enter afterwards (default false).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        submit: Option<bool>,
        /// Type each character as a key press (`keyDown`, `char`, `keyUp` through
        /// `Input.dispatchKeyEvent`) instead of one `Input.insertText` (default
        /// false; used anyway when the target is not a text control: a web
        /// terminal, a key-driven widget).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        keystrokes: Option<bool>,
        /// Also answer what changed on the page since the tab's last extract or
        /// observed action (`changes`); default false, true in the MCP tool.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        observe: Option<bool>,
    }
);

targeted!(
    /// `select_option` parameters.
    SelectOption {
        /// Option values (matched by value, then by label); at least one.
        #[schemars(length(min = 1))]
        values: Vec<String>,
        /// Also answer what changed on the page since the tab's last extract or
        /// observed action (`changes`); default false, true in the MCP tool.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        observe: Option<bool>,
    }
);

targeted!(
    /// `upload_file` parameters.
    UploadFile {
        /// Absolute paths on the backend's machine; at least one.
        #[schemars(length(min = 1), inner(regex(pattern = ABSOLUTE_PATH_PATTERN)))]
        paths: Vec<String>,
    }
);

targeted!(
    /// `wait_for` parameters.
    WaitFor {
        /// visible (default), hidden, attached or detached.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        state: Option<WaitState>,
        /// ms, default 5000, at most 30000.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(range(max = WAIT_FOR_MAX_TIMEOUT_MS))]
        timeout_ms: Option<u64>,
    }
);

impl Click {
    /// `clickCount`, defaulted to 1.
    pub fn click_count(&self) -> u8 {
        self.click_count.unwrap_or(1)
    }
}

impl Type {
    /// `clear`, defaulted to true.
    pub fn clear(&self) -> bool {
        self.clear.unwrap_or(true)
    }
}

impl WaitFor {
    /// `timeoutMs`, defaulted to [`WAIT_FOR_DEFAULT_TIMEOUT_MS`].
    pub fn timeout_ms(&self) -> u64 {
        self.timeout_ms.unwrap_or(WAIT_FOR_DEFAULT_TIMEOUT_MS)
    }

    /// `state`, defaulted to visible.
    pub fn state(&self) -> WaitState {
        self.state.unwrap_or(WaitState::Visible)
    }
}

/// `wait_for` states.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    JsonSchema,
    strum::IntoStaticStr,
    strum::EnumIter,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum WaitState {
    /// Attached and not hidden.
    Visible,
    /// Detached or hidden.
    Hidden,
    /// In the document.
    Attached,
    /// Not in the document.
    Detached,
}

impl WaitState {
    /// The wire name, e.g. `"visible"`.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// `press_key` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PressKey {
    /// KeyboardEvent.key: `Enter`, `Escape`, `ArrowDown`, `a` …
    #[schemars(length(min = 1))]
    pub key: String,
    /// Modifiers held during the key press.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modifiers: Option<Vec<Modifier>>,
    /// The tab to act on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<TabId>,
    /// Also answer what changed on the page since the tab's last extract or
    /// observed action (`changes`); default false, true in the MCP tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observe: Option<bool>,
}

/// Scroll directions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ScrollDirection {
    /// Towards the top.
    Up,
    /// Towards the bottom.
    Down,
    /// Towards the start of the line.
    Left,
    /// Towards the end of the line.
    Right,
}

/// `scroll` parameters: at most one of uid/selector (the container).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
// Not both targets; an explicit `null` counts as absent, as in the decoder.
#[schemars(extend("not" = {
    "required": ["uid", "selector"],
    "properties": { "uid": { "not": { "type": "null" } }, "selector": { "not": { "type": "null" } } }
}))]
pub struct Scroll {
    /// up, down, left or right.
    pub direction: ScrollDirection,
    /// CSS px; default one viewport (or container) length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub amount: Option<f64>,
    /// Container uid (optional; give at most one of uid/selector).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<Uid>,
    /// Container selector (optional; give at most one of uid/selector).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    /// The tab to act on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<TabId>,
    /// Also answer what changed on the page since the tab's last extract or
    /// observed action (`changes`); default false, true in the MCP tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observe: Option<bool>,
}

impl Scroll {
    /// The container, if any; `invalid_request` when both are given.
    pub fn target(&self) -> Result<Option<ElementTarget<'_>>, BridgeError> {
        match (&self.uid, &self.selector) {
            (None, None) => Ok(None),
            (uid, selector) => exactly_one_target(uid, selector).map(Some),
        }
    }
}

/// `evaluate` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Evaluate {
    /// Function body: wrapped as `(async () => { <expression> })()`, so `return` the value.
    pub expression: String,
    /// The tab to act on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<TabId>,
}

/// Screenshot image formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ImageFormat {
    /// image/png (default).
    Png,
    /// image/jpeg.
    Jpeg,
}

/// `screenshot` parameters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Screenshot {
    /// The tab to capture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<TabId>,
    /// The whole scrollable page instead of the viewport (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_page: Option<bool>,
    /// png (default) or jpeg.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<ImageFormat>,
    /// JPEG quality 0..100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = SCREENSHOT_QUALITY_MAX))]
    pub quality: Option<u8>,
    /// Draw a box and the uid on each element of the tab's last extract
    /// (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub marks: Option<bool>,
}

/// `handle_dialog` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HandleDialog {
    /// Accept (OK) or dismiss (Cancel).
    pub accept: bool,
    /// Text for a `prompt()` dialog.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_text: Option<String>,
    /// The tab whose dialog to answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<TabId>,
    /// Also answer what changed on the page since the tab's last extract or
    /// observed action (`changes`); default false, true in the MCP tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observe: Option<bool>,
}

/// `call_page_tool` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallPageTool {
    /// Tool name from `list_page_tools`.
    #[schemars(length(min = 1))]
    pub tool: String,
    /// Group name, when several groups have a tool of that name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The tool's input, matching its inputSchema.
    #[serde(default)]
    pub input: Value,
    /// The tab to act on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<TabId>,
}

pub(crate) fn exactly_one_target<'a>(
    uid: &'a Option<Uid>,
    selector: &'a Option<String>,
) -> Result<ElementTarget<'a>, BridgeError> {
    match (uid, selector) {
        (Some(uid), None) => Ok(ElementTarget::Uid(uid)),
        (None, Some(selector)) => Ok(ElementTarget::Selector(selector)),
        (Some(_), Some(_)) => Err(BridgeError::invalid_request(
            "give exactly one of uid or selector, not both",
        )),
        (None, None) => Err(BridgeError::invalid_request(
            "give exactly one of uid or selector, got neither",
        )),
    }
}

pub(crate) fn exactly_one_pointer<'a>(
    uid: &'a Option<Uid>,
    selector: &'a Option<String>,
    x: Option<f64>,
    y: Option<f64>,
) -> Result<PointerTarget<'a>, BridgeError> {
    let point = match (x, y) {
        (None, None) => None,
        (Some(x), Some(y)) => Some((x, y)),
        (Some(_), None) => {
            return Err(BridgeError::invalid_request(
                "x without y: give both x and y (CSS px in the viewport)",
            ));
        }
        (None, Some(_)) => {
            return Err(BridgeError::invalid_request(
                "y without x: give both x and y (CSS px in the viewport)",
            ));
        }
    };
    match (uid, selector, point) {
        (_, _, None) => exactly_one_target(uid, selector).map(PointerTarget::Element),
        (None, None, Some((x, y))) => Ok(PointerTarget::Point { x, y }),
        (Some(_), _, Some(_)) => Err(BridgeError::invalid_request(
            "give exactly one of uid, selector or x+y, not both uid and x+y",
        )),
        (None, Some(_), Some(_)) => Err(BridgeError::invalid_request(
            "give exactly one of uid, selector or x+y, not both selector and x+y",
        )),
    }
}

impl Action {
    /// The wire name (`"click"`).
    pub fn name(&self) -> &'static str {
        ActionKind::from(self).into()
    }

    /// The actions this one runs: a batch's parts, else itself alone. For checks
    /// that must see every action sent (URL schemes, upload paths).
    pub fn parts(&self) -> &[Action] {
        match self {
            Action::Batch(b) => &b.actions,
            other => std::slice::from_ref(other),
        }
    }

    /// The URL the action asks to load (`navigate`, `open_tab`), which must pass
    /// [`check_url_scheme`](crate::check_url_scheme) (§5) before it is sent.
    pub fn url(&self) -> Option<&str> {
        match self {
            Action::Navigate(p) => Some(&p.url),
            Action::OpenTab(p) => Some(&p.url),
            _ => None,
        }
    }

    /// Names of the actions that take `observe` (PROTOCOL.md §5 "Observed
    /// actions"); `fill_form` takes it too.
    pub const OBSERVABLE: &'static [&'static str] = &[
        "click",
        "drag",
        "type",
        "select_option",
        "press_key",
        "scroll",
        "navigate",
        "go_back",
        "go_forward",
        "reload",
        "handle_dialog",
        "fill_form",
    ];

    /// The action's `observe` field: `None` when it was not given or the action
    /// does not take one.
    pub fn observe(&self) -> Option<bool> {
        match self {
            Action::Navigate(p) => p.observe,
            Action::Reload(p) => p.observe,
            Action::GoBack(p) | Action::GoForward(p) => p.observe,
            Action::Click(p) => p.observe,
            Action::Drag(p) => p.observe,
            Action::Type(p) => p.observe,
            Action::PressKey(p) => p.observe,
            Action::SelectOption(p) => p.observe,
            Action::Scroll(p) => p.observe,
            Action::HandleDialog(p) => p.observe,
            _ => None,
        }
    }

    /// The action's `observe` field, for the actions that take one.
    pub fn observe_slot(&mut self) -> Option<&mut Option<bool>> {
        match self {
            Action::Navigate(p) => Some(&mut p.observe),
            Action::Reload(p) => Some(&mut p.observe),
            Action::GoBack(p) | Action::GoForward(p) => Some(&mut p.observe),
            Action::Click(p) => Some(&mut p.observe),
            Action::Drag(p) => Some(&mut p.observe),
            Action::Type(p) => Some(&mut p.observe),
            Action::PressKey(p) => Some(&mut p.observe),
            Action::SelectOption(p) => Some(&mut p.observe),
            Action::Scroll(p) => Some(&mut p.observe),
            Action::HandleDialog(p) => Some(&mut p.observe),
            Action::FillForm(p) => Some(&mut p.observe),
            _ => None,
        }
    }

    /// The `tabId` the action names, if any (`close_tab` always has one).
    pub fn tab_id(&self) -> Option<TabId> {
        match self {
            Action::Navigate(p) => p.tab_id,
            Action::OpenTab(_) | Action::ListTabs(_) => None,
            Action::CloseTab(p) => Some(p.tab_id),
            Action::Reload(p) => p.tab_id,
            Action::GoBack(p) | Action::GoForward(p) => p.tab_id,
            Action::Extract(p) => p.tab_id,
            Action::ListPageTools(p) => p.tab_id,
            Action::Click(p) => p.tab_id,
            Action::Hover(p) => p.tab_id,
            Action::Drag(p) => p.tab_id,
            Action::Type(p) => p.tab_id,
            Action::PressKey(p) => p.tab_id,
            Action::SelectOption(p) => p.tab_id,
            Action::Scroll(p) => p.tab_id,
            Action::WaitFor(p) => p.tab_id,
            Action::Evaluate(p) => p.tab_id,
            Action::Screenshot(p) => p.tab_id,
            Action::UploadFile(p) => p.tab_id,
            Action::HandleDialog(p) => p.tab_id,
            Action::CallPageTool(p) => p.tab_id,
            Action::FillForm(p) => p.tab_id,
            Action::Batch(p) => p
                .tab_id
                .or_else(|| p.actions.iter().find_map(Action::tab_id)),
            Action::ConsoleMessages(p) => p.tab_id,
            Action::NetworkRequests(p) => p.tab_id,
            Action::NetworkResponseBody(p) => p.tab_id,
            Action::WaitForDownload(p) => p.tab_id,
            Action::ListDownloads(p) => p.tab_id,
            Action::Handoff(p) => p.tab_id,
        }
    }

    /// The action's optional `tabId` field, to fill in; `None` for the actions
    /// that take no optional tab (`open_tab`, `list_tabs`, and `close_tab`, whose
    /// `tabId` is required).
    pub fn tab_id_mut(&mut self) -> Option<&mut Option<TabId>> {
        match self {
            Action::OpenTab(_) | Action::ListTabs(_) | Action::CloseTab(_) => None,
            Action::Navigate(p) => Some(&mut p.tab_id),
            Action::Reload(p) => Some(&mut p.tab_id),
            Action::GoBack(p) | Action::GoForward(p) => Some(&mut p.tab_id),
            Action::ListPageTools(p) => Some(&mut p.tab_id),
            Action::Extract(p) => Some(&mut p.tab_id),
            Action::Click(p) => Some(&mut p.tab_id),
            Action::Hover(p) => Some(&mut p.tab_id),
            Action::Drag(p) => Some(&mut p.tab_id),
            Action::Type(p) => Some(&mut p.tab_id),
            Action::PressKey(p) => Some(&mut p.tab_id),
            Action::SelectOption(p) => Some(&mut p.tab_id),
            Action::Scroll(p) => Some(&mut p.tab_id),
            Action::WaitFor(p) => Some(&mut p.tab_id),
            Action::Evaluate(p) => Some(&mut p.tab_id),
            Action::Screenshot(p) => Some(&mut p.tab_id),
            Action::UploadFile(p) => Some(&mut p.tab_id),
            Action::HandleDialog(p) => Some(&mut p.tab_id),
            Action::CallPageTool(p) => Some(&mut p.tab_id),
            Action::FillForm(p) => Some(&mut p.tab_id),
            Action::Batch(p) => Some(&mut p.tab_id),
            Action::ConsoleMessages(p) => Some(&mut p.tab_id),
            Action::NetworkRequests(p) => Some(&mut p.tab_id),
            Action::NetworkResponseBody(p) => Some(&mut p.tab_id),
            Action::WaitForDownload(p) => Some(&mut p.tab_id),
            Action::ListDownloads(p) => Some(&mut p.tab_id),
            Action::Handoff(p) => Some(&mut p.tab_id),
        }
    }
}

/// [`crate::decode::by_tag!`] over every action, decoding with `$decode` and, past
/// a known tag, `$fallback` (functions of `crate::decode`).
macro_rules! actions_by_tag {
    ($decode:ident, $fallback:ident, $value:expr) => {
        crate::decode::by_tag!($decode, $fallback; $value, "action", ActionKind => Action {
            Navigate(Navigate),
            OpenTab(OpenTab),
            CloseTab(CloseTab),
            ListTabs(ListTabs),
            GoBack(History),
            GoForward(History),
            Reload(Reload),
            Click(Click),
            Hover(Hover),
            Drag(Drag),
            Type(Type),
            PressKey(PressKey),
            SelectOption(SelectOption),
            Scroll(Scroll),
            WaitFor(WaitFor),
            Extract(Extract),
            Evaluate(Evaluate),
            Screenshot(Screenshot),
            UploadFile(UploadFile),
            HandleDialog(HandleDialog),
            ListPageTools(TabOnly),
            CallPageTool(CallPageTool),
            FillForm(FillForm),
            Batch(Batch),
            ConsoleMessages(ConsoleMessages),
            NetworkRequests(NetworkRequests),
            NetworkResponseBody(NetworkResponseBody),
            WaitForDownload(WaitForDownload),
            ListDownloads(ListDownloads),
            Handoff(Handoff),
        })
    };
}

impl crate::decode::NamedDecode for Action {
    fn decode(value: &Value) -> Result<Self, serde_json::Error> {
        // Action::from_value checked the object and its tag first.
        actions_by_tag!(variant_plain, untagged, value)
    }

    fn decode_naming_field(value: &Value) -> Result<Self, String> {
        actions_by_tag!(variant_with_path, with_path, value)
    }
}
