//! The `Page` domain: navigation, history, frames, screenshots, dialogs, and its
//! events.

use serde::{Deserialize, Serialize};

use crate::{Command, Empty, Event, id};

id!(
    /// `Page.FrameId`: a frame, stable across its navigations.
    FrameId(String)
);

/// `Page.enable`: turns on the domain's events.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Enable {}

impl Command for Enable {
    const METHOD: &'static str = "Page.enable";
    type Response = Empty;
}

/// `Page.navigate`: loads `url` in the main frame.
#[derive(Debug, Clone, Serialize)]
pub struct Navigate {
    /// Absolute URL.
    pub url: String,
}

/// `Page.navigate` → `{frameId, loaderId?, errorText?}` (the fields we read).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NavigateResponse {
    /// The new document's loader; absent for a same-document navigation.
    #[serde(default)]
    pub loader_id: Option<String>,
    /// `net::ERR_…` when the navigation failed.
    #[serde(default)]
    pub error_text: Option<String>,
}

impl Command for Navigate {
    const METHOD: &'static str = "Page.navigate";
    type Response = NavigateResponse;
}

/// `Page.reload` of the main frame.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Reload {}

impl Command for Reload {
    const METHOD: &'static str = "Page.reload";
    type Response = Empty;
}

/// `Page.getNavigationHistory` of the tab.
#[derive(Debug, Clone, Default, Serialize)]
pub struct GetNavigationHistory {}

/// `Page.getNavigationHistory` → `{currentIndex, entries}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetNavigationHistoryResponse {
    /// Index of the current entry in `entries`.
    pub current_index: i64,
    /// Oldest first.
    pub entries: Vec<NavigationEntry>,
}

impl GetNavigationHistoryResponse {
    /// The entry `delta` steps from the current one (-1 back, +1 forward).
    pub fn entry(&self, delta: i64) -> Option<&NavigationEntry> {
        usize::try_from(self.current_index + delta)
            .ok()
            .and_then(|i| self.entries.get(i))
    }
}

impl Command for GetNavigationHistory {
    const METHOD: &'static str = "Page.getNavigationHistory";
    type Response = GetNavigationHistoryResponse;
}

/// `Page.NavigationEntry` (the fields we read).
#[derive(Debug, Clone, Deserialize)]
pub struct NavigationEntry {
    /// For [`NavigateToHistoryEntry`].
    pub id: i64,
    /// The entry's URL.
    #[serde(default)]
    pub url: String,
}

/// `Page.navigateToHistoryEntry`: back/forward to one entry.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NavigateToHistoryEntry {
    /// [`NavigationEntry::id`].
    pub entry_id: i64,
}

impl Command for NavigateToHistoryEntry {
    const METHOD: &'static str = "Page.navigateToHistoryEntry";
    type Response = Empty;
}

/// `Page.getFrameTree` of the tab.
#[derive(Debug, Clone, Default, Serialize)]
pub struct GetFrameTree {}

/// `Page.getFrameTree` → `{frameTree: {frame}}` (the main frame; children not
/// read).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetFrameTreeResponse {
    /// The tree.
    pub frame_tree: FrameTree,
}

/// `Page.FrameTree` (the field we read).
#[derive(Debug, Clone, Deserialize)]
pub struct FrameTree {
    /// Its root frame.
    pub frame: Frame,
}

impl Command for GetFrameTree {
    const METHOD: &'static str = "Page.getFrameTree";
    type Response = GetFrameTreeResponse;
}

/// `Page.Frame` (the fields we read).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Frame {
    /// The frame.
    pub id: FrameId,
    /// Its parent; `None` for a main frame.
    #[serde(default)]
    pub parent_id: Option<FrameId>,
    /// The committed document's URL.
    #[serde(default)]
    pub url: String,
    /// The committed document's loader: a new one for each new document.
    #[serde(default)]
    pub loader_id: String,
}

/// `Page.createIsolatedWorld`: a JS world of its own in `frame_id`, sharing the
/// DOM but not the page's globals or prototypes.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateIsolatedWorld {
    /// The frame.
    pub frame_id: FrameId,
    /// A name for the world (shown in DevTools).
    pub world_name: String,
}

/// `Page.createIsolatedWorld` → `{executionContextId}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateIsolatedWorldResponse {
    /// Where to run script in it (`Runtime.evaluate` `contextId`).
    pub execution_context_id: i64,
}

impl Command for CreateIsolatedWorld {
    const METHOD: &'static str = "Page.createIsolatedWorld";
    type Response = CreateIsolatedWorldResponse;
}

/// `Page.getLayoutMetrics`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct GetLayoutMetrics {}

/// `Page.getLayoutMetrics` → the CSS-px metrics (the fields we read).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetLayoutMetricsResponse {
    /// The layout viewport.
    #[serde(default)]
    pub css_layout_viewport: LayoutViewport,
    /// The whole content's size.
    #[serde(default)]
    pub css_content_size: Option<Rect>,
}

impl Command for GetLayoutMetrics {
    const METHOD: &'static str = "Page.getLayoutMetrics";
    type Response = GetLayoutMetricsResponse;
}

/// `Page.LayoutViewport` (the fields we read; CSS px).
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LayoutViewport {
    /// Horizontal scroll offset.
    #[serde(default)]
    pub page_x: f64,
    /// Vertical scroll offset.
    #[serde(default)]
    pub page_y: f64,
    /// Width of the viewport, without scrollbars.
    #[serde(default)]
    pub client_width: f64,
    /// Height of the viewport, without scrollbars.
    #[serde(default)]
    pub client_height: f64,
}

/// `DOM.Rect` (CSS px).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Rect {
    /// Left.
    #[serde(default)]
    pub x: f64,
    /// Top.
    #[serde(default)]
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

/// `Page.Viewport`: a capture clip (CSS px, at `scale`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Viewport {
    /// Left.
    pub x: f64,
    /// Top.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
    /// Device scale (1: CSS px).
    pub scale: f64,
}

/// `Page.captureScreenshot`.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaptureScreenshot {
    /// `png` (default) or `jpeg`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<&'static str>,
    /// JPEG quality, 0–100.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quality: Option<u8>,
    /// Capture the area outside the viewport too (with `clip`: a full page).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capture_beyond_viewport: Option<bool>,
    /// The region to capture.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clip: Option<Viewport>,
}

/// `Page.captureScreenshot` → `{data}`.
#[derive(Debug, Clone, Deserialize)]
pub struct CaptureScreenshotResponse {
    /// The image, base64.
    pub data: String,
}

impl Command for CaptureScreenshot {
    const METHOD: &'static str = "Page.captureScreenshot";
    type Response = CaptureScreenshotResponse;
}

/// `Page.startScreencast`: frames of the page as `Page.screencastFrame`
/// events, the next once the last is acknowledged. It keeps a background tab
/// drawing (see the extension's `actions::tabs`).
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StartScreencast {
    /// Largest frame width (px).
    pub max_width: u32,
    /// Largest frame height (px).
    pub max_height: u32,
    /// Send every n-th frame only.
    pub every_nth_frame: u32,
}

impl StartScreencast {
    /// The screencast that only keeps a tab drawing: 1 px frames, every
    /// 1000th; unacknowledged, its first frame is its last.
    pub fn keep_drawing() -> StartScreencast {
        StartScreencast {
            max_width: 1,
            max_height: 1,
            every_nth_frame: 1000,
        }
    }
}

impl Command for StartScreencast {
    const METHOD: &'static str = "Page.startScreencast";
    type Response = Empty;
}

/// `Page.handleJavaScriptDialog`: answers the open dialog.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HandleJavaScriptDialog {
    /// OK (true) or Cancel.
    pub accept: bool,
    /// The text a `prompt()` answers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_text: Option<String>,
}

impl Command for HandleJavaScriptDialog {
    const METHOD: &'static str = "Page.handleJavaScriptDialog";
    type Response = Empty;
}

/// `Page.setInterceptFileChooserDialog`: file choosers raise
/// [`FileChooserOpened`] instead of opening.
#[derive(Debug, Clone, Serialize)]
pub struct SetInterceptFileChooserDialog {
    /// On or off.
    pub enabled: bool,
}

impl Command for SetInterceptFileChooserDialog {
    const METHOD: &'static str = "Page.setInterceptFileChooserDialog";
    type Response = Empty;
}

/// `Page.addScriptToEvaluateOnNewDocument`: runs `source` in every new document
/// before its own scripts, in the main world.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AddScriptToEvaluateOnNewDocument {
    /// The script.
    pub source: String,
    /// Also run it at once in the frames' current documents.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_immediately: Option<bool>,
}

impl Command for AddScriptToEvaluateOnNewDocument {
    const METHOD: &'static str = "Page.addScriptToEvaluateOnNewDocument";
    type Response = Empty;
}

/// `Page.close`: closes the page (the test side's corpus runs).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Close {}

impl Command for Close {
    const METHOD: &'static str = "Page.close";
    type Response = Empty;
}

/// `Page.DialogType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
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

/// `Page.javascriptDialogOpening`: a dialog opened (the page's JS is blocked
/// until it is answered).
#[derive(Debug, Clone, Deserialize)]
pub struct JavascriptDialogOpening {
    /// Its kind.
    #[serde(rename = "type")]
    pub kind: DialogType,
    /// Its message.
    #[serde(default)]
    pub message: String,
}

impl Event for JavascriptDialogOpening {
    const METHOD: &'static str = "Page.javascriptDialogOpening";
}

/// `Page.javascriptDialogClosed`: the dialog was answered (fields not read).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct JavascriptDialogClosed {}

impl Event for JavascriptDialogClosed {
    const METHOD: &'static str = "Page.javascriptDialogClosed";
}

/// `Page.fileChooserOpened` (with [`SetInterceptFileChooserDialog`]).
#[derive(Debug, Clone, Deserialize)]
pub struct FileChooserOpened {
    /// `selectSingle` or `selectMultiple`.
    #[serde(default)]
    pub mode: String,
}

impl Event for FileChooserOpened {
    const METHOD: &'static str = "Page.fileChooserOpened";
}

/// `Page.frameRequestedNavigation`: a frame is about to navigate (a link, a
/// form, `location`).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameRequestedNavigation {
    /// The frame.
    pub frame_id: FrameId,
}

impl Event for FrameRequestedNavigation {
    const METHOD: &'static str = "Page.frameRequestedNavigation";
}

/// `Page.downloadWillBegin`: a frame of the page started a download (a link or
/// navigation answered as an attachment, `<a download>`), fired once Chrome
/// made its download item; the page stays where it was.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DownloadWillBegin {
    /// The frame that started it.
    #[serde(default)]
    pub frame_id: String,
    /// Chrome's id of the download (not `chrome.downloads`' id).
    #[serde(default)]
    pub guid: String,
    /// The URL downloaded (after redirects).
    pub url: String,
    /// The file name Chrome suggests (the saved file's may differ).
    #[serde(default)]
    pub suggested_filename: String,
}

impl Event for DownloadWillBegin {
    const METHOD: &'static str = "Page.downloadWillBegin";
}

/// `Page.windowOpen`: the page is opening a new window or tab (`window.open`, a
/// `target=_blank` link or form), fired in the opener before the tab exists.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WindowOpen {
    /// The URL the new window loads.
    #[serde(default)]
    pub url: String,
}

impl Event for WindowOpen {
    const METHOD: &'static str = "Page.windowOpen";
}

/// `Page.frameStartedLoading`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameStartedLoading {
    /// The frame.
    pub frame_id: FrameId,
}

impl Event for FrameStartedLoading {
    const METHOD: &'static str = "Page.frameStartedLoading";
}

/// `Page.navigatedWithinDocument`: `pushState`, a fragment change.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NavigatedWithinDocument {
    /// The frame.
    pub frame_id: FrameId,
}

impl Event for NavigatedWithinDocument {
    const METHOD: &'static str = "Page.navigatedWithinDocument";
}

/// `Page.loadEventFired`: the main document's `load` (fields not read).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct LoadEventFired {}

impl Event for LoadEventFired {
    const METHOD: &'static str = "Page.loadEventFired";
}

/// `Page.domContentEventFired`: the main document's `DOMContentLoaded` (fields
/// not read).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct DomContentEventFired {}

impl Event for DomContentEventFired {
    const METHOD: &'static str = "Page.domContentEventFired";
}

/// `Page.frameNavigated`: a frame committed a new document.
#[derive(Debug, Clone, Deserialize)]
pub struct FrameNavigated {
    /// The frame, with its new URL.
    pub frame: Frame,
    /// `Navigation` or `BackForwardCacheRestore`.
    #[serde(rename = "type", default)]
    pub kind: String,
}

impl FrameNavigated {
    /// A main-frame navigation.
    pub fn is_main_frame(&self) -> bool {
        self.frame.parent_id.is_none()
    }
}

impl Event for FrameNavigated {
    const METHOD: &'static str = "Page.frameNavigated";
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn history_entries_by_delta() {
        let h: GetNavigationHistoryResponse = serde_json::from_value(json!({
            "currentIndex": 1,
            "entries": [{"id": 10, "url": "a", "title": "A"}, {"id": 11, "url": "b"}, {"id": 12}]
        }))
        .unwrap();
        assert_eq!(h.entry(-1).map(|e| e.id), Some(10));
        assert_eq!(h.entry(1).map(|e| (e.id, e.url.as_str())), Some((12, "")));
        assert!(h.entry(-2).is_none());
        assert!(h.entry(2).is_none());
    }

    #[test]
    fn events_decode_cdp_payloads() {
        let nav: FrameNavigated = serde_json::from_value(json!({
            "frame": {"id": "F1", "loaderId": "L", "url": "https://a.test/", "securityOrigin": "x"},
            "type": "Navigation"
        }))
        .unwrap();
        assert!(nav.is_main_frame());
        assert_eq!(nav.frame.id, FrameId("F1".into()));
        let child: FrameNavigated = serde_json::from_value(json!({
            "frame": {"id": "F2", "parentId": "F1", "url": "https://b.test/"}, "type": "Navigation"
        }))
        .unwrap();
        assert!(!child.is_main_frame());
        let d: JavascriptDialogOpening = serde_json::from_value(json!({
            "url": "u", "message": "sure?", "type": "confirm", "hasBrowserHandler": false
        }))
        .unwrap();
        assert_eq!(d.kind, DialogType::Confirm);
        assert_eq!(d.message, "sure?");
        assert!(
            serde_json::from_value::<JavascriptDialogOpening>(json!({"type": "other"})).is_err()
        );
        let _: LoadEventFired = serde_json::from_value(json!({"timestamp": 1.5})).unwrap();
    }

    #[test]
    fn screenshot_params() {
        let full = CaptureScreenshot {
            format: Some("jpeg"),
            quality: Some(80),
            capture_beyond_viewport: Some(true),
            clip: Some(Viewport {
                x: 0.0,
                y: 0.0,
                width: 800.0,
                height: 2000.0,
                scale: 1.0,
            }),
        };
        assert_eq!(
            serde_json::to_value(full).unwrap(),
            json!({"format": "jpeg", "quality": 80, "captureBeyondViewport": true,
                   "clip": {"x": 0.0, "y": 0.0, "width": 800.0, "height": 2000.0, "scale": 1.0}})
        );
        assert_eq!(
            serde_json::to_value(CaptureScreenshot {
                format: Some("png"),
                ..Default::default()
            })
            .unwrap(),
            json!({"format": "png"})
        );
    }
}
