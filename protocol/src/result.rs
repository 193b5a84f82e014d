//! Typed results of §5, one per action, tagged with `action` (§3: results are
//! self-describing).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::action::FieldValue;
use crate::devtools::{ConsoleMessagesResult, NetworkRequestsResult, NetworkResponseBodyResult};
use crate::downloads::{Download, ListDownloadsResult, WaitForDownloadResult};
use crate::error::BridgeError;
use crate::extract::{Changes, ExtractResult};
use crate::handoff::HandoffResult;
use crate::ids::{TabId, WindowId};
use crate::page_tools::{CallPageToolResult, ListPageToolsResult};
use crate::pointer::{DragResult, Hit, HoverResult};

/// The `result` of a successful response, tagged by `action`: the action it answers.
// Named like `Action`'s variants, by strum and serde alike (tests/names.rs).
#[derive(
    Debug,
    Clone,
    PartialEq,
    Serialize,
    Deserialize,
    JsonSchema,
    strum::IntoStaticStr,
    strum::VariantNames,
)]
#[serde(tag = "action", rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ActionResult {
    /// `navigate`.
    Navigate(PageResult),
    /// `open_tab`.
    OpenTab(OpenTabResult),
    /// `close_tab`.
    CloseTab(TabResult),
    /// `list_tabs`.
    ListTabs(ListTabsResult),
    /// `go_back`.
    GoBack(PageResult),
    /// `go_forward`.
    GoForward(PageResult),
    /// `reload`.
    Reload(PageResult),
    /// `click`.
    Click(ClickResult),
    /// `hover`.
    Hover(HoverResult),
    /// `drag`.
    Drag(DragResult),
    /// `type`.
    Type(TypeResult),
    /// `press_key`.
    PressKey(PressKeyResult),
    /// `select_option`.
    SelectOption(SelectOptionResult),
    /// `scroll`.
    Scroll(ScrollResult),
    /// `wait_for`.
    WaitFor(WaitForResult),
    /// `extract` (§6).
    Extract(ExtractResult),
    /// `evaluate` (§7).
    Evaluate(EvaluateResult),
    /// `screenshot`.
    Screenshot(ScreenshotResult),
    /// `upload_file`.
    UploadFile(UploadFileResult),
    /// `handle_dialog`.
    HandleDialog(HandleDialogResult),
    /// `list_page_tools` (§9).
    ListPageTools(ListPageToolsResult),
    /// `call_page_tool` (§9).
    CallPageTool(CallPageToolResult),
    /// `fill_form`.
    FillForm(FillFormResult),
    /// `batch`.
    Batch(BatchResult),
    /// `console_messages` (§10.1).
    ConsoleMessages(ConsoleMessagesResult),
    /// `network_requests` (§10.1).
    NetworkRequests(NetworkRequestsResult),
    /// `network_response_body` (§10.1).
    NetworkResponseBody(NetworkResponseBodyResult),
    /// `wait_for_download` (§10.2).
    WaitForDownload(WaitForDownloadResult),
    /// `list_downloads` (§10.2).
    ListDownloads(ListDownloadsResult),
    /// `handoff`.
    Handoff(HandoffResult),
}

/// `{tabId}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TabResult {
    /// The tab acted on.
    pub tab_id: TabId,
}

/// `{tabId, url, title}` after a navigation, plus what kept it from a full load
/// (§5 "Loads and dialogs").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PageResult {
    /// The tab acted on.
    pub tab_id: TabId,
    /// The URL after the load.
    pub url: String,
    /// `document.title` after the load.
    pub title: String,
    /// `true` when the answer came before the document's `load` event
    /// (`Page.loadEventFired`): the document is usable (`DOMContentLoaded`
    /// fired, or a dialog holds the load) but subresources are still loading.
    #[serde(default, skip_serializing_if = "is_false")]
    pub load_pending: bool,
    /// A JavaScript dialog (a `beforeunload` prompt, or an `alert` of the
    /// loading page) opened during the action and is still open: answer it with
    /// `handle_dialog`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog: Option<DialogInfo>,
    /// `navigate` only: the `alert` that was open in the tab before, accepted so
    /// that the navigation could go on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dismissed_dialog: Option<DialogInfo>,
    /// `navigate` only: the URL was a download, not a page; the tab stays on
    /// the page it showed (§10.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub download: Option<Box<Download>>,
    /// Asked with `observe`: what changed on the page since the tab's last
    /// extract or observed action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changes: Option<Box<Changes>>,
}

impl PageResult {
    /// A full load of `url` in `tab_id`: no pending load, no dialog.
    pub fn new(tab_id: TabId, url: impl Into<String>, title: impl Into<String>) -> PageResult {
        PageResult {
            tab_id,
            url: url.into(),
            title: title.into(),
            load_pending: false,
            dialog: None,
            dismissed_dialog: None,
            download: None,
            changes: None,
        }
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// `open_tab` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OpenTabResult {
    /// The new tab.
    pub tab_id: TabId,
    /// Its window (the agent window unless `focus` was set).
    pub window_id: WindowId,
    /// The URL after the load.
    pub url: String,
    /// `document.title` after the load.
    pub title: String,
    /// As [`PageResult::load_pending`].
    #[serde(default, skip_serializing_if = "is_false")]
    pub load_pending: bool,
    /// As [`PageResult::dialog`]: a dialog the loading page opened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog: Option<DialogInfo>,
}

/// One tab of `list_tabs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TabInfo {
    /// Tab id.
    pub tab_id: TabId,
    /// Window id.
    pub window_id: WindowId,
    /// Current URL.
    pub url: String,
    /// Current title.
    pub title: String,
    /// The active tab of its window.
    pub active: bool,
    /// In the agent window.
    pub agent_window: bool,
    /// Under the extension's control (debugger attached).
    pub session: bool,
    /// The backend's client whose tab this is: the one that opened it or last
    /// acted on it, or whose action made a page open it (PROTOCOL.md §5
    /// "Clients"). Set by the
    /// backend, never by the extension; absent for the person's own tabs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
    /// The name of the browser this tab is in (PROTOCOL.md §5 "Browsers"). Set
    /// by the backend, never by the extension.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser: Option<String>,
}

/// `list_tabs` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ListTabsResult {
    /// Every normal tab.
    pub tabs: Vec<TabInfo>,
    /// Every browser connected to the backend (PROTOCOL.md §5 "Browsers"). Set
    /// by the backend, never by the extension.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browsers: Option<Vec<crate::browser::BrowserInfo>>,
}

/// JavaScript dialog kinds (CDP `Page.DialogType`).
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
pub enum DialogType {
    /// `alert()`.
    Alert,
    /// `confirm()`.
    Confirm,
    /// `prompt()`.
    Prompt,
    /// `beforeunload`.
    Beforeunload,
}

impl DialogType {
    /// The wire name, e.g. `"beforeunload"`.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// A dialog the action opened (§5): answer it with `handle_dialog`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DialogInfo {
    /// Dialog kind.
    #[serde(rename = "type")]
    pub dialog_type: DialogType,
    /// Its message text.
    pub message: String,
}

/// A tab a click opened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OpenedTab {
    /// The new tab (already a session).
    pub tab_id: TabId,
    /// Its URL when reported.
    pub url: String,
}

/// A file chooser the action opened; answer with `upload_file`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FileChooser {
    /// The input accepts several files.
    pub multiple: bool,
}

/// Side effects an input action triggered (§5), reported, never waited on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SideEffects {
    /// A JavaScript dialog is now open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog: Option<DialogInfo>,
    /// New tabs opened by the action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opened_tabs: Option<Vec<OpenedTab>>,
    /// A file chooser was intercepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_chooser: Option<FileChooser>,
    /// A download began (§10.2); the page stays.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub download: Option<Box<Download>>,
}

/// `click` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClickResult {
    /// The tab acted on.
    pub tab_id: TabId,
    /// URL after the click.
    pub url: String,
    /// The click started a main-frame navigation.
    pub navigated: bool,
    /// Given `x`, `y`: the element the click hit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hit: Option<Hit>,
    /// Dialog, new tabs, file chooser.
    #[serde(flatten)]
    pub effects: SideEffects,
    /// Asked with `observe`: what changed on the page since the tab's last
    /// extract or observed action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changes: Option<Box<Changes>>,
}

/// `press_key` result: the tab, plus side effects (a key can open a dialog too).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PressKeyResult {
    /// The tab acted on.
    pub tab_id: TabId,
    /// Dialog, new tabs, file chooser.
    #[serde(flatten)]
    pub effects: SideEffects,
    /// Asked with `observe`: what changed on the page since the tab's last
    /// extract or observed action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changes: Option<Box<Changes>>,
}

/// `type` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TypeResult {
    /// The tab acted on.
    pub tab_id: TabId,
    /// The field's value afterwards.
    pub value: String,
    /// Asked with `observe`: what changed on the page since the tab's last
    /// extract or observed action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changes: Option<Box<Changes>>,
}

/// `select_option` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SelectOptionResult {
    /// The tab acted on.
    pub tab_id: TabId,
    /// Values of the options now selected.
    pub selected: Vec<String>,
    /// Asked with `observe`: what changed on the page since the tab's last
    /// extract or observed action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changes: Option<Box<Changes>>,
}

/// `scroll` result: the scroll position afterwards (CSS px).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScrollResult {
    /// The tab acted on.
    pub tab_id: TabId,
    /// Horizontal offset of the scrolled box (CSS px).
    pub scroll_x: f64,
    /// Vertical offset of the scrolled box (CSS px).
    pub scroll_y: f64,
    /// What scrolled: `"document"` for the page, else the container described as
    /// `tag#id.class "text"`. Without a target the document is tried first, then
    /// the largest visible container that can move that way (an app shell).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scrolled: Option<String>,
    /// How far it moved right (CSS px, negative = left); `0` with `deltaY` `0`
    /// when nothing moved (already at the end, or nothing scrollable).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta_x: Option<f64>,
    /// How far it moved down (CSS px, negative = up).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta_y: Option<f64>,
    /// Asked with `observe`: what changed on the page since the tab's last
    /// extract or observed action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changes: Option<Box<Changes>>,
}

/// `wait_for` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WaitForResult {
    /// The tab acted on.
    pub tab_id: TabId,
    /// How long the wait took (ms).
    pub elapsed_ms: u64,
}

/// Largest serialised `evaluate` value kept whole (bytes, §7).
pub const EVALUATE_MAX_BYTES: usize = 8_192;

/// `evaluate` result (§7): the JS `typeof` (plus `null`, `array`) and one of three shapes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvaluateResult {
    /// The tab acted on.
    pub tab_id: TabId,
    /// `typeof` the value, or `null` / `array`.
    #[serde(rename = "type")]
    pub value_type: String,
    /// The value, its description, or a truncated preview.
    #[serde(flatten)]
    pub value: EvaluateValue,
}

/// The three result shapes of §7.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum EvaluateValue {
    /// Serialised length over [`EVALUATE_MAX_BYTES`]: its first
    /// [`EVALUATE_MAX_BYTES`] bytes and `…[truncated N chars]`.
    Truncated {
        /// Always true.
        truncated: bool,
        /// The cut serialisation.
        preview: String,
    },
    /// Not JSON-serialisable (DOM node, function, Map): CDP's description.
    Description {
        /// CDP `RemoteObject.description`.
        description: String,
    },
    /// A JSON value (absent for `undefined`).
    Value {
        /// The value.
        #[serde(default)]
        value: Value,
    },
}

impl EvaluateValue {
    /// Shapes a JSON value by §7's rule: whole when its serialisation is at most
    /// [`EVALUATE_MAX_BYTES`] bytes, else a preview cut on a char boundary.
    pub fn from_json(value: Value) -> EvaluateValue {
        let text = value.to_string();
        if text.len() <= EVALUATE_MAX_BYTES {
            return EvaluateValue::Value { value };
        }
        let cut = crate::text::floor_char_boundary(&text, EVALUATE_MAX_BYTES);
        let rest = text[cut..].chars().count();
        EvaluateValue::Truncated {
            truncated: true,
            preview: format!("{}…[truncated {rest} chars]", &text[..cut]),
        }
    }
}

/// `screenshot` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScreenshotResult {
    /// The tab captured.
    pub tab_id: TabId,
    /// `image/png` or `image/jpeg`.
    pub mime_type: String,
    /// Base64 image bytes.
    pub data: String,
    /// Image width (px).
    pub width: u32,
    /// Image height (px).
    pub height: u32,
    /// Asked with `marks`: how many elements were marked on the image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub marked: Option<u32>,
}

/// `upload_file` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UploadFileResult {
    /// The tab acted on.
    pub tab_id: TabId,
    /// File names now set on the input.
    pub files: Vec<String>,
}

/// `handle_dialog` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HandleDialogResult {
    /// The tab acted on.
    pub tab_id: TabId,
    /// The kind of dialog answered.
    pub dialog_type: DialogType,
    /// Its message.
    pub message: String,
    /// Asked with `observe`: what changed on the page since the tab's last
    /// extract or observed action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changes: Option<Box<Changes>>,
}

/// One filled field of `fill_form`: its value read back afterwards.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FilledField {
    /// The field's 0-based index in `fields`.
    pub index: u32,
    /// Its value afterwards: the text (a password's as `••••••••`), a select's
    /// selected option values joined with `, `, or a checkbox's, radio's or
    /// switch's checked state.
    pub value: FieldValue,
}

/// `fill_form` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FillFormResult {
    /// The tab acted on.
    pub tab_id: TabId,
    /// Every field, in order, with its value afterwards.
    pub fields: Vec<FilledField>,
    /// The click on `submit`, when it was given: as a `click` result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submit: Option<ClickResult>,
    /// Asked with `observe`: what changed on the page since the tab's last
    /// extract or observed action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changes: Option<Box<Changes>>,
}

/// One action of a `batch`: its result or its error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("oneOf" = [
    { "required": ["result"], "not": { "required": ["error"] } },
    { "required": ["error"], "not": { "required": ["result"] } }
]))]
pub struct BatchEntry {
    /// The action's 0-based index in `actions`.
    pub index: u32,
    /// Its result, when it succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<ActionResult>,
    /// Its error, when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<BridgeError>,
}

/// `batch` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BatchResult {
    /// The tab acted on.
    pub tab_id: TabId,
    /// One entry per action run, in order; with `stopOnError` the actions after
    /// the first failure are not run and have none.
    pub results: Vec<BatchEntry>,
}

impl ActionResult {
    /// The wire name of the action this result answers.
    pub fn action_name(&self) -> &'static str {
        self.into()
    }

    /// The `changes` field of the results that carry one (the observed actions'
    /// and `extract`'s).
    pub fn changes_mut(&mut self) -> Option<&mut Option<Box<Changes>>> {
        match self {
            ActionResult::Navigate(r)
            | ActionResult::GoBack(r)
            | ActionResult::GoForward(r)
            | ActionResult::Reload(r) => Some(&mut r.changes),
            ActionResult::Click(r) => Some(&mut r.changes),
            ActionResult::Drag(r) => Some(&mut r.changes),
            ActionResult::Type(r) => Some(&mut r.changes),
            ActionResult::PressKey(r) => Some(&mut r.changes),
            ActionResult::SelectOption(r) => Some(&mut r.changes),
            ActionResult::Scroll(r) => Some(&mut r.changes),
            ActionResult::HandleDialog(r) => Some(&mut r.changes),
            ActionResult::Extract(r) => Some(&mut r.changes),
            ActionResult::FillForm(r) => Some(&mut r.changes),
            _ => None,
        }
    }

    /// The tabs a page opened during this action (`openedTabs`, §5): of a
    /// `click`, a `press_key`, a `fill_form`'s submit click and a `batch`'s
    /// entries, in order; empty for the other results.
    pub fn opened_tabs(&self) -> Vec<TabId> {
        let effects = |e: &SideEffects| -> Vec<TabId> {
            e.opened_tabs.iter().flatten().map(|t| t.tab_id).collect()
        };
        match self {
            ActionResult::Click(r) => effects(&r.effects),
            ActionResult::PressKey(r) => effects(&r.effects),
            ActionResult::FillForm(r) => r
                .submit
                .as_ref()
                .map(|c| effects(&c.effects))
                .unwrap_or_default(),
            ActionResult::Batch(r) => r
                .results
                .iter()
                .filter_map(|entry| entry.result.as_ref())
                .flat_map(ActionResult::opened_tabs)
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The tab that acted (every result but `list_tabs` names one; for
    /// `close_tab` the tab closed).
    pub fn tab_id(&self) -> Option<TabId> {
        use ActionResult as R;
        Some(match self {
            R::ListTabs(_) => return None,
            R::Navigate(p) | R::GoBack(p) | R::GoForward(p) | R::Reload(p) => p.tab_id,
            R::OpenTab(r) => r.tab_id,
            R::CloseTab(r) => r.tab_id,
            R::Hover(r) => r.tab_id,
            R::Drag(r) => r.tab_id,
            R::Click(r) => r.tab_id,
            R::Type(r) => r.tab_id,
            R::PressKey(r) => r.tab_id,
            R::SelectOption(r) => r.tab_id,
            R::Scroll(r) => r.tab_id,
            R::WaitFor(r) => r.tab_id,
            R::Extract(r) => r.tab_id,
            R::Evaluate(r) => r.tab_id,
            R::Screenshot(r) => r.tab_id,
            R::UploadFile(r) => r.tab_id,
            R::HandleDialog(r) => r.tab_id,
            R::ListPageTools(r) => r.tab_id,
            R::CallPageTool(r) => r.tab_id,
            R::FillForm(r) => r.tab_id,
            R::Batch(r) => r.tab_id,
            R::ConsoleMessages(r) => r.tab_id,
            R::NetworkRequests(r) => r.tab_id,
            R::NetworkResponseBody(r) => r.tab_id,
            R::WaitForDownload(r) => r.tab_id,
            R::ListDownloads(r) => r.tab_id,
            R::Handoff(r) => r.tab_id,
        })
    }
}

impl crate::decode::NamedDecode for ActionResult {
    fn decode_naming_field(value: &Value) -> Result<Self, String> {
        use crate::ExtractResult;
        use crate::action::ActionKind;
        use crate::devtools::*;
        use crate::downloads::*;
        use crate::handoff::HandoffResult;
        use crate::page_tools::{CallPageToolResult, ListPageToolsResult};
        use crate::result::*;
        // Results are named after their actions (checked by `result::tests`).
        crate::decode::by_tag!(value, "action", ActionKind => ActionResult {
            Navigate(PageResult),
            OpenTab(OpenTabResult),
            CloseTab(TabResult),
            ListTabs(ListTabsResult),
            GoBack(PageResult),
            GoForward(PageResult),
            Reload(PageResult),
            Click(ClickResult),
            Hover(HoverResult),
            Drag(DragResult),
            Type(TypeResult),
            PressKey(PressKeyResult),
            SelectOption(SelectOptionResult),
            Scroll(ScrollResult),
            WaitFor(WaitForResult),
            Extract(ExtractResult),
            Evaluate(EvaluateResult),
            Screenshot(ScreenshotResult),
            UploadFile(UploadFileResult),
            HandleDialog(HandleDialogResult),
            ListPageTools(ListPageToolsResult),
            CallPageTool(CallPageToolResult),
            FillForm(FillFormResult),
            Batch(BatchResult),
            ConsoleMessages(ConsoleMessagesResult),
            NetworkRequests(NetworkRequestsResult),
            NetworkResponseBody(NetworkResponseBodyResult),
            WaitForDownload(WaitForDownloadResult),
            ListDownloads(ListDownloadsResult),
            Handoff(HandoffResult),
        })
    }
}
