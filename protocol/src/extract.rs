//! `extract` result shapes (PROTOCOL.md §6) and the obstacle shape (§8).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::ids::{TabId, Uid};

/// Largest `extract.text` (bytes, cut on a char boundary).
pub const TEXT_MAX_BYTES: usize = 50_000;
/// Largest `extract.markdown` (bytes, cut on a block boundary).
pub const MARKDOWN_MAX_BYTES: usize = 30_000;
/// Most `extract.elements`.
pub const ELEMENTS_MAX: usize = 200;

/// `extract` result (§6).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExtractResult {
    /// The tab read.
    pub tab_id: TabId,
    /// `location.href`.
    pub url: String,
    /// `document.title`.
    pub title: String,
    /// innerText, at most [`TEXT_MAX_BYTES`].
    pub text: String,
    /// Main content as Markdown, at most [`MARKDOWN_MAX_BYTES`].
    pub markdown: String,
    /// Interactive accessibility nodes with uids, at most [`ELEMENTS_MAX`].
    pub elements: Vec<Element>,
    /// A login wall, captcha or denial page (§8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub obstacle: Option<Obstacle>,
    /// Which parts were cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<Truncated>,
    /// The part of the markdown this result holds (from 1), when `part` was asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<u32>,
    /// How many parts of at most [`MARKDOWN_MAX_BYTES`] the whole markdown has, when
    /// more than one or when `part` was asked: `extract` with `part` reads each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts: Option<u32>,
    /// `extract {since: "last"}` answered with a diff: what changed since the
    /// tab's last extract or observed action; `text` and `markdown` are then
    /// empty and `elements` lists nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changes: Option<Box<Changes>>,
}

/// Largest serialised [`Changes`] (bytes, JSON): past it the least useful parts
/// are left out and [`Changes::omitted`] counts them.
pub const CHANGES_MAX_BYTES: usize = 4_096;

/// What changed on a tab since its last extract or observed action (PROTOCOL.md
/// §6 "Changes"): elements by uid, and new blocks of visible text.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Changes {
    /// The tab loaded another document: its uids are new, extract it.
    pub navigated: bool,
    /// `location.href`, when it changed (or after a navigation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// `document.title`, when it changed (or after a navigation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Elements that appeared.
    pub added: Vec<Element>,
    /// uids of the elements that are gone.
    pub removed: Vec<Uid>,
    /// Elements whose value, checked, disabled or name changed, as they are now.
    pub changed: Vec<Element>,
    /// New blocks of visible text (an error message, a confirmation), as Markdown.
    pub text: Vec<String>,
    /// Present when the changes went past [`CHANGES_MAX_BYTES`]: how many of each
    /// part were left out (extract for the whole page).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub omitted: Option<Omitted>,
}

impl Changes {
    /// A navigation: no element diff, the new `url` and, when known, `title`.
    pub fn navigated(url: impl Into<String>, title: Option<String>) -> Changes {
        Changes {
            navigated: true,
            url: Some(url.into()),
            title,
            ..Changes::default()
        }
    }

    /// True when nothing changed.
    pub fn is_empty(&self) -> bool {
        !self.navigated
            && self.url.is_none()
            && self.title.is_none()
            && self.added.is_empty()
            && self.removed.is_empty()
            && self.changed.is_empty()
            && self.text.is_empty()
    }
}

/// How many entries of each part of [`Changes`] the size cap left out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Omitted {
    /// Added elements left out.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub added: u32,
    /// Removed uids left out.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub removed: u32,
    /// Changed elements left out.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub changed: u32,
    /// Text blocks left out.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub text: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Which parts of an extract were cut; absent flags are false.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Truncated {
    /// `text` was cut.
    #[serde(default, skip_serializing_if = "is_false")]
    pub text: bool,
    /// `markdown` was cut.
    #[serde(default, skip_serializing_if = "is_false")]
    pub markdown: bool,
    /// `elements` was capped.
    #[serde(default, skip_serializing_if = "is_false")]
    pub elements: bool,
}

impl Truncated {
    /// `None` when nothing was cut, so the field is left out.
    pub fn into_option(self) -> Option<Truncated> {
        (self.text || self.markdown || self.elements).then_some(self)
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// One interactive element (§6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Element {
    /// Stable uid within the session, e.g. `e7`.
    pub uid: Uid,
    /// Accessibility role (button, link, textbox, …).
    pub role: String,
    /// Accessible name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Current value (text fields, sliders, comboboxes), exact, at most
    /// [`VALUE_MAX_CHARS`] chars (the cut one ends with `…`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// Present only when `value` was cut: the whole value's length in chars (a
    /// text field's whole value is in the markdown, §6).
    #[serde(
        rename = "valueLength",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub value_length: Option<u32>,
    /// In the viewport or scrollable into it, and not hidden.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visible: Option<bool>,
    /// Present (true) only when disabled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disabled: Option<bool>,
    /// Checkbox / radio / switch state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked: Option<Checked>,
    /// Present (true) only for a text field that takes several lines (`<textarea>`,
    /// a contenteditable editor, `aria-multiline`): Enter adds a line there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multiline: Option<bool>,
    /// Present (true) only for a field whose value cannot be edited (`readonly`,
    /// `aria-readonly`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub readonly: Option<bool>,
    /// A native `<select>`'s option labels in order, at most [`OPTIONS_MAX`] (the
    /// selected ones are its `value`); `select_option` takes any of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<Vec<String>>,
    /// The origin (`scheme://host[:port]`) of the iframe document the element is
    /// in, out-of-process (cross-site) or not; absent in the main frame and in
    /// iframes without an origin of their own (`about:blank`, `srcdoc`).
    #[serde(
        rename = "frameOrigin",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub frame_origin: Option<String>,
    /// Present (true) only for an element listed because a person clicks it — a
    /// pointer cursor, a click listener, `tabindex` — rather than for an
    /// interactive role; its `role` is the closest fitting one (`generic`,
    /// `listitem`, `row`, `cell`, `image`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clickable: Option<bool>,
    /// Only for an element without a name: a short description from its markup,
    /// `tag.class` or `tag#id` of it or of the icon inside it (`span.like-btn`,
    /// `i.fa-share`), at most [`HINT_MAX_CHARS`] chars. Not an accessible name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl Element {
    /// The element `uid` with `role` and nothing else known: every optional
    /// field absent (what the wire leaves out), to fill in with struct update
    /// syntax.
    pub fn new(uid: Uid, role: impl Into<String>) -> Self {
        Self {
            uid,
            role: role.into(),
            name: None,
            value: None,
            value_length: None,
            visible: None,
            disabled: None,
            checked: None,
            multiline: None,
            readonly: None,
            options: None,
            frame_origin: None,
            clickable: None,
            hint: None,
        }
    }
}

/// Longest [`Element::value`] (chars).
pub const VALUE_MAX_CHARS: usize = 200;

/// Longest [`Element::hint`] (chars).
pub const HINT_MAX_CHARS: usize = 40;

/// Most option labels listed per `<select>` ([`Element::options`]).
pub const OPTIONS_MAX: usize = 30;

/// Tri-state checked value, as the accessibility tree reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Checked {
    /// Checked.
    True,
    /// Not checked.
    False,
    /// Indeterminate.
    Mixed,
}

/// Obstacle kinds (§8). Non-exhaustive: a later version may detect more kinds,
/// so code outside this crate matches with a wildcard arm.
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
#[non_exhaustive]
pub enum ObstacleType {
    /// A login is needed to go on.
    AuthWall,
    /// A human-verification challenge.
    Captcha,
    /// The site refuses access.
    AccessDenied,
}

impl ObstacleType {
    /// The wire name, e.g. `"auth_wall"`.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// How sure the detection is (PROTOCOL.md §8), ordered `low < medium < high`:
/// `high` is terminal for the agent, `medium` a likely wall to check once against
/// the task, `low` a hint.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
    strum::IntoStaticStr,
    strum::EnumIter,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Confidence {
    /// A hint: go on; if the page does not work, try one alternative at most.
    Low,
    /// Real but not conclusive evidence (a modal over the content, a short denial
    /// message without a status): use what the page already shows if it answers the
    /// task, never log in or solve a challenge, else stop and report.
    Medium,
    /// Terminal: stop and report to the caller.
    High,
}

impl Confidence {
    /// The wire name, e.g. `"medium"`.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// `{type, confidence, message}` (§8).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Obstacle {
    /// What blocks the page.
    #[serde(rename = "type")]
    pub obstacle_type: ObstacleType,
    /// low, medium or high.
    pub confidence: Confidence,
    /// What was seen, for the agent and the user.
    pub message: String,
}
