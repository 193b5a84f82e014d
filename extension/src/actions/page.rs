//! `wait_for`, `screenshot`, `handle_dialog`.

use base64::Engine;
use browser_bridge_protocol::action::{HandleDialog, ImageFormat, Screenshot, WaitFor, WaitState};
use browser_bridge_protocol::result::{HandleDialogResult, ScreenshotResult, WaitForResult};
use browser_bridge_protocol::{ActionResult, BridgeError, ElementTarget, ErrorCode, TabId};
use gloo_timers::future::TimeoutFuture;
use serde_json::{Value, json};

use crate::actions::dom;
use crate::cdp::{self, EvalResult};
use crate::{chrome, sessions};

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

async fn probe(tab: TabId, target: ElementTarget<'_>) -> Result<&'static str, BridgeError> {
    match target {
        ElementTarget::Selector(selector) => {
            let expression = format!(
                "({PROBE})({}, {VISIBLE})",
                Value::String(selector.to_owned())
            );
            let r: EvalResult = cdp::call(
                tab,
                "Runtime.evaluate",
                json!({ "expression": expression, "returnByValue": true }),
            )
            .await?;
            if r.exception_details.is_some() {
                return Err(BridgeError::invalid_request(format!(
                    "selector {} is not valid CSS",
                    dom::quote(selector)
                )));
            }
            Ok(match r.result.value.as_ref().and_then(Value::as_str) {
                Some("visible") => "visible",
                Some("hidden") => "hidden",
                _ => "absent",
            })
        }
        ElementTarget::Uid(_) => match dom::resolve(tab, target).await {
            Ok(node) => Ok(
                if dom::call_on(tab, &node.object_id, VISIBLE, &[]).await? == true {
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
pub async fn wait_for(tab: TabId, p: WaitFor) -> Result<ActionResult, BridgeError> {
    let target = p.target()?;
    let state = p.state();
    let timeout = p.timeout_ms();
    let start = chrome::now_ms();
    loop {
        let seen = probe(tab, target).await?;
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
                ElementTarget::Selector(s) => dom::quote(s),
                ElementTarget::Uid(u) => u.to_string(),
            };
            let state_name = serde_json::to_value(state)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            return Err(BridgeError::new(
                ErrorCode::Timeout,
                format!("wait_for: {label} was not {state_name} after {timeout} ms (it is {seen})"),
            ));
        }
        TimeoutFuture::new(WAIT_POLL_MS.min((timeout - elapsed) as u32).max(1)).await;
    }
}

/// `screenshot` of the viewport or the full page.
///
/// # Errors
/// CDP failures (`internal_error`), `timeout`.
pub async fn screenshot(tab: TabId, p: Screenshot) -> Result<ActionResult, BridgeError> {
    let jpeg = p.format == Some(ImageFormat::Jpeg);
    let mut params = json!({ "format": if jpeg { "jpeg" } else { "png" } });
    if jpeg {
        params["quality"] = json!(p.quality.unwrap_or(80));
    }
    if p.full_page.unwrap_or(false) {
        let metrics = cdp::send(tab, "Page.getLayoutMetrics", json!({})).await?;
        let size = &metrics["cssContentSize"];
        params["captureBeyondViewport"] = json!(true);
        params["clip"] = json!({
            "x": 0, "y": 0, "scale": 1,
            "width": size["width"].as_f64().unwrap_or(800.0).ceil(),
            "height": size["height"].as_f64().unwrap_or(600.0).ceil(),
        });
    }
    let shot = match cdp::send_with_timeout(
        tab,
        "Page.captureScreenshot",
        params.clone(),
        FIRST_CAPTURE_MS,
    )
    .await
    {
        Ok(shot) => shot,
        Err(e) if e.timed_out => capture_restored(tab, params).await?,
        Err(e) => return Err(e.into()),
    };
    let data = shot["data"].as_str().unwrap_or_default().to_owned();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(&data)
        .map_err(|e| BridgeError::internal(format!("screenshot data: {e}")))?;
    let (width, height) = image_size(&bytes).unwrap_or((0, 0));
    Ok(ActionResult::Screenshot(ScreenshotResult {
        tab_id: tab,
        mime_type: if jpeg { "image/jpeg" } else { "image/png" }.into(),
        data,
        width,
        height,
    }))
}

/// How long a capture may take before we suspect a window that renders no frames
/// (ms).
const FIRST_CAPTURE_MS: u32 = 5_000;

/// A minimized window may produce no frames, so the capture never answers: show
/// the window (unfocused) for the capture, then minimize it again.
async fn capture_restored(tab: TabId, params: Value) -> Result<Value, BridgeError> {
    let window = chrome::tabs_get(tab.0)
        .await
        .map_err(|_| sessions::no_tab(tab))?
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
    let shot = cdp::send_with_timeout(tab, "Page.captureScreenshot", params, 10_000).await;
    let _ = chrome::windows_update(window, &json!({ "state": "minimized" })).await;
    Ok(shot?)
}

/// Pixel size from a PNG (IHDR) or JPEG (SOFn) header.
pub fn image_size(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.starts_with(b"\x89PNG") && bytes.len() >= 24 {
        let be =
            |i: usize| u32::from_be_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
        return Some((be(16), be(20)));
    }
    let mut i = 2;
    while i + 9 < bytes.len() {
        if bytes[i] != 0xFF {
            i += 1;
            continue;
        }
        let marker = bytes[i + 1];
        let len = u16::from_be_bytes([bytes[i + 2], bytes[i + 3]]) as usize;
        if matches!(marker, 0xC0..=0xC3 | 0xC5..=0xC7 | 0xC9..=0xCB | 0xCD..=0xCF) {
            let h = u16::from_be_bytes([bytes[i + 5], bytes[i + 6]]) as u32;
            let w = u16::from_be_bytes([bytes[i + 7], bytes[i + 8]]) as u32;
            return Some((w, h));
        }
        i += 2 + len;
    }
    None
}

/// `handle_dialog`: accepts or dismisses the dialog open in the tab.
///
/// # Errors
/// `invalid_action` when no dialog is open.
pub async fn handle_dialog(tab: TabId, p: HandleDialog) -> Result<ActionResult, BridgeError> {
    let Some(dialog) = sessions::with_session(tab, |s| s.dialog.clone()).flatten() else {
        return Err(BridgeError::invalid_action(format!(
            "tab {tab} has no open dialog"
        )));
    };
    let mut params = json!({ "accept": p.accept });
    if let Some(text) = &p.prompt_text {
        params["promptText"] = json!(text);
    }
    cdp::send(tab, "Page.handleJavaScriptDialog", params).await?;
    sessions::with_session(tab, |s| s.dialog = None);
    Ok(ActionResult::HandleDialog(HandleDialogResult {
        tab_id: tab,
        dialog_type: dialog.dialog_type,
        message: dialog.message,
    }))
}
