//! `wait_for`, `screenshot`, `handle_dialog`.

use base64::Engine;
use browser_bridge_cdp::page::{
    CaptureScreenshot, CaptureScreenshotResponse, GetLayoutMetrics, HandleJavaScriptDialog,
    Viewport,
};
use browser_bridge_cdp::runtime::Evaluate;
use browser_bridge_protocol::action::{HandleDialog, ImageFormat, Screenshot, WaitFor, WaitState};
use browser_bridge_protocol::result::{
    DialogType, HandleDialogResult, ScreenshotResult, WaitForResult,
};
use browser_bridge_protocol::{ActionResult, BridgeError, ElementTarget, ErrorCode, TabId};
use gloo_timers::future::TimeoutFuture;
use serde_json::{Value, json};

use crate::actions::{dom, marks};
use crate::app::App;
use crate::core::image::image_size;
use crate::core::messages::quote;
use crate::sessions::attach::no_tab;
use crate::{cdp, chrome};

/// Poll interval of `wait_for` (ms).
pub const WAIT_POLL_MS: u32 = 100;

/// Visible = connected, rendered, not `visibility:hidden`, non-zero box.
const VISIBLE: &str = r#"function () {
  if (!this.isConnected) return false;
  const s = getComputedStyle(this);
  if (s.display === 'none' || s.visibility === 'hidden' || s.visibility === 'collapse') return false;
  if (typeof this.checkVisibility === 'function' && !this.checkVisibility()) return false;
  const r = this.getBoundingClientRect();
  return r.width > 0 && r.height > 0;
}"#;

/// `"absent" | "visible" | "hidden"` for a selector (light DOM, then open shadow roots).
const PROBE: &str = r#"(selector, visible) => {
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) { const hit = el.shadowRoot.querySelector(selector) || walk(el.shadowRoot); if (hit) return hit; }
    }
    return null;
  };
  const el = document.querySelector(selector) || walk(document);
  if (!el) return 'absent';
  return visible.call(el) ? 'visible' : 'hidden';
}"#;

async fn probe(
    app: &App,
    tab: TabId,
    target: ElementTarget<'_>,
) -> Result<&'static str, BridgeError> {
    match target {
        ElementTarget::Selector(selector) => {
            let expression = format!(
                "({PROBE})({}, {VISIBLE})",
                Value::String(selector.to_owned())
            );
            let r = cdp::send(tab, &Evaluate::by_value(expression)).await?;
            if r.exception_details.is_some() {
                return Err(BridgeError::invalid_request(format!(
                    "selector {} is not valid CSS",
                    quote(selector)
                )));
            }
            Ok(match r.result.value.as_ref().and_then(Value::as_str) {
                Some("visible") => "visible",
                Some("hidden") => "hidden",
                _ => "absent",
            })
        }
        ElementTarget::Uid(_) => match dom::resolve(app, tab, target).await {
            Ok(node) => Ok(
                if dom::call_on(&node.target, &node.object_id, VISIBLE, Vec::new()).await? == true {
                    "visible"
                } else {
                    "hidden"
                },
            ),
            Err(e) if e.code == ErrorCode::ElementStale => Ok("absent"),
            Err(e) => Err(e),
        },
    }
}

/// `wait_for`: polls every [`WAIT_POLL_MS`] until the state holds.
///
/// # Errors
/// `timeout` naming the target and state; `element_not_found` for a uid never issued.
pub async fn wait_for(app: &App, tab: TabId, p: WaitFor) -> Result<ActionResult, BridgeError> {
    let target = p.target()?;
    let state = p.state();
    let timeout = p.timeout_ms();
    let start = chrome::now_ms();
    loop {
        let seen = probe(app, tab, target).await?;
        let done = match state {
            WaitState::Attached => seen != "absent",
            WaitState::Detached => seen == "absent",
            WaitState::Visible => seen == "visible",
            WaitState::Hidden => seen != "visible",
        };
        let elapsed = chrome::now_ms().saturating_sub(start);
        if done {
            return Ok(ActionResult::WaitFor(WaitForResult {
                tab_id: tab,
                elapsed_ms: elapsed,
            }));
        }
        if elapsed >= timeout {
            let label = match target {
                ElementTarget::Selector(s) => quote(s),
                ElementTarget::Uid(u) => u.to_string(),
            };
            let state_name = state.as_str();
            return Err(BridgeError::new(
                ErrorCode::Timeout,
                format!("wait_for: {label} was not {state_name} after {timeout} ms (it is {seen})"),
            ));
        }
        TimeoutFuture::new(WAIT_POLL_MS.min((timeout - elapsed) as u32).max(1)).await;
    }
}

/// `screenshot` of the viewport or the full page, with `marks` the elements of
/// the last extract marked ([`marks`]).
///
/// # Errors
/// CDP failures (`internal_error`), `timeout`; with `marks`, `invalid_action`
/// when the page was not extracted.
pub async fn screenshot(app: &App, tab: TabId, p: Screenshot) -> Result<ActionResult, BridgeError> {
    let jpeg = p.format == Some(ImageFormat::Jpeg);
    let full_page = p.full_page.unwrap_or(false);
    // Measured before the capture, so the boxes are where the image shows them.
    let marked = match p.marks {
        Some(true) => Some((
            marks::boxes(app, tab, full_page).await?,
            marks::pixel_ratio(tab).await?,
        )),
        _ => None,
    };
    let mut capture = CaptureScreenshot {
        format: Some(if jpeg { "jpeg" } else { "png" }),
        quality: jpeg.then(|| p.quality.unwrap_or(80)),
        ..CaptureScreenshot::default()
    };
    if full_page {
        let size = cdp::send(tab, &GetLayoutMetrics {}).await?.css_content_size;
        capture.capture_beyond_viewport = Some(true);
        capture.clip = Some(Viewport {
            x: 0.0,
            y: 0.0,
            width: size.map_or(800.0, |s| s.width).ceil(),
            height: size.map_or(600.0, |s| s.height).ceil(),
            scale: 1.0,
        });
    }
    let shot = match cdp::send_with_timeout(tab, &capture, FIRST_CAPTURE_MS).await {
        Ok(shot) => shot,
        Err(e) if e.is_timeout() => capture_restored(tab, &capture).await?,
        Err(e) => return Err(e.into()),
    };
    let mut data = shot.data;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(&data)
        .map_err(|e| BridgeError::internal(format!("screenshot data: {e}")))?;
    let (width, height) = image_size(&bytes).unwrap_or((0, 0));
    let mime_type = if jpeg { "image/jpeg" } else { "image/png" };
    let marked = match marked {
        Some((boxes, ratio)) => {
            let quality = capture.quality.map(|q| f64::from(q) / 100.0);
            let (drawn, count) =
                marks::draw(&bytes, mime_type, (width, height), &boxes, ratio, quality).await?;
            data = base64::engine::general_purpose::STANDARD.encode(drawn);
            Some(count)
        }
        None => None,
    };
    Ok(ActionResult::Screenshot(ScreenshotResult {
        tab_id: tab,
        mime_type: mime_type.into(),
        data,
        width,
        height,
        marked,
    }))
}

/// How long a capture may take before we suspect a window that renders no frames
/// (ms).
const FIRST_CAPTURE_MS: u32 = 5_000;

/// A minimized window may produce no frames, so the capture never answers: show
/// the window (unfocused) for the capture, then minimize it again.
async fn capture_restored(
    tab: TabId,
    capture: &CaptureScreenshot,
) -> Result<CaptureScreenshotResponse, BridgeError> {
    let window = chrome::tabs_get(tab.0)
        .await
        .map_err(|_| no_tab(tab))?
        .window_id;
    let minimized = chrome::windows_get(window)
        .await
        .is_ok_and(|w| w.state == "minimized");
    if !minimized {
        return Err(BridgeError::new(
            ErrorCode::Timeout,
            format!(
                "tab {tab} renders no frames (a background tab?): screenshot it while it is the active tab"
            ),
        ));
    }
    let _ = chrome::windows_update(window, &json!({ "state": "normal", "focused": false })).await;
    let shot = cdp::send_with_timeout(tab, capture, 10_000).await;
    let _ = chrome::windows_update(window, &json!({ "state": "minimized" })).await;
    Ok(shot?)
}

/// `handle_dialog`: accepts or dismisses the dialog open in the tab.
///
/// # Errors
/// `invalid_action` when no dialog is open.
pub async fn handle_dialog(
    app: &App,
    tab: TabId,
    p: HandleDialog,
) -> Result<ActionResult, BridgeError> {
    let Some(dialog) = app.sessions.with(tab, |s| s.dialog.clone()).flatten() else {
        return Err(BridgeError::invalid_action(format!(
            "tab {tab} has no open dialog"
        )));
    };
    let answer = HandleJavaScriptDialog {
        accept: p.accept,
        prompt_text: p.prompt_text,
    };
    cdp::send(tab, &answer).await?;
    app.sessions.with(tab, |s| {
        s.dialog = None;
        // The page stays: a later close of the tab is the user's.
        if !answer.accept && dialog.dialog_type == DialogType::Beforeunload {
            s.closing = false;
        }
    });
    Ok(ActionResult::HandleDialog(HandleDialogResult {
        tab_id: tab,
        dialog_type: dialog.dialog_type,
        message: dialog.message,
        changes: None,
    }))
}
