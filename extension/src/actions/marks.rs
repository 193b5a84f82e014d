//! Set-of-marks on a `screenshot` (`marks: true`, §5 "Pointer targets"): a box
//! and the uid label on each element the tab's last extract listed. Drawn by
//! the worker on the captured image (`OffscreenCanvas`), never in the page, so
//! the page's scripts cannot see or keep the marks. Where they go is
//! [`crate::core::marks`]'s.

use browser_bridge_cdp::dom::{BackendNodeId, GetBoxModel};
use browser_bridge_cdp::page::GetLayoutMetrics;
use browser_bridge_cdp::runtime::Evaluate;
use browser_bridge_page::frames::FrameNodeId;
use browser_bridge_protocol::{BridgeError, TabId};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    Blob, BlobPropertyBag, ImageBitmap, ImageEncodeOptions, OffscreenCanvas,
    OffscreenCanvasRenderingContext2d, WorkerGlobalScope,
};

use crate::app::App;
use crate::cdp;
use crate::core::marks::{LABEL_HEIGHT, Mark, MarkBox, layout};
use crate::sessions::attach::no_tab;

/// The colour of the boxes and the labels' background (the labels' text is
/// white): magenta, rare on pages, so a mark stands out.
pub const MARK_COLOUR: &str = "#ff00ff";

/// The boxes of the elements the tab's last extract listed (main frame), in CSS
/// px from the captured area's top-left corner: the viewport's, or with
/// `full_page` the document's.
///
/// # Errors
/// `invalid_action` when the tab has no extract of its current document;
/// `session_not_found`; CDP failures of the layout metrics.
pub async fn boxes(app: &App, tab: TabId, full_page: bool) -> Result<Vec<MarkBox>, BridgeError> {
    let listed = app
        .sessions
        .with(tab, |s| s.uids.listed())
        .ok_or_else(|| no_tab(tab))?;
    if listed.is_empty() {
        return Err(BridgeError::invalid_action(
            "screenshot: marks label the elements of the last extract, and this page has none: \
             extract first",
        ));
    }
    let (dx, dy) = if full_page {
        let v = cdp::send(tab, &GetLayoutMetrics {})
            .await?
            .css_layout_viewport;
        (v.page_x, v.page_y)
    } else {
        (0.0, 0.0)
    };
    let mut boxes = Vec::new();
    for (uid, id) in listed {
        let node = FrameNodeId::decode(id);
        if node.slot != 0 {
            continue;
        }
        let model = cdp::send(
            tab,
            &GetBoxModel {
                backend_node_id: BackendNodeId(node.backend_node_id),
            },
        )
        .await;
        // Not rendered (display:none, detached): no mark.
        let Ok(model) = model else { continue };
        let quad = &model.model.border;
        let xs = quad.iter().step_by(2).copied();
        let ys = quad.iter().skip(1).step_by(2).copied();
        let (left, right) = xs.fold((f64::MAX, f64::MIN), |(l, r), x| (l.min(x), r.max(x)));
        let (top, bottom) = ys.fold((f64::MAX, f64::MIN), |(t, b), y| (t.min(y), b.max(y)));
        if right < left || bottom < top {
            continue;
        }
        boxes.push(MarkBox {
            uid: uid.0,
            x: left + dx,
            y: top + dy,
            width: right - left,
            height: bottom - top,
        });
    }
    Ok(boxes)
}

/// Image px per CSS px of a capture (`devicePixelRatio`).
///
/// # Errors
/// CDP failures.
pub async fn pixel_ratio(tab: TabId) -> Result<f64, BridgeError> {
    let ratio = cdp::send(tab, &Evaluate::by_value("devicePixelRatio"))
        .await?
        .result
        .value
        .and_then(|v| v.as_f64())
        .filter(|r| *r > 0.0);
    Ok(ratio.unwrap_or(1.0))
}

fn js(what: &str) -> impl Fn(JsValue) -> BridgeError + '_ {
    move |e| BridgeError::internal(format!("screenshot marks: {what}: {e:?}"))
}

/// `bytes` (the capture, `mime_type`) of `width`×`height` px with `boxes` marked,
/// and how many were (those inside the image); `quality` 0..1 for JPEG.
///
/// # Errors
/// `internal_error` when the worker cannot decode, draw or encode the image.
pub async fn draw(
    bytes: &[u8],
    mime_type: &str,
    (width, height): (u32, u32),
    boxes: &[MarkBox],
    ratio: f64,
    quality: Option<f64>,
) -> Result<(Vec<u8>, u32), BridgeError> {
    let area = (f64::from(width) / ratio, f64::from(height) / ratio);
    let marks = layout(boxes, area, ratio);
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let options = BlobPropertyBag::new();
    options.set_type(mime_type);
    let blob =
        Blob::new_with_u8_array_sequence_and_options(&parts, &options).map_err(js("the image"))?;
    let global: WorkerGlobalScope = js_sys::global().unchecked_into();
    let bitmap: ImageBitmap = JsFuture::from(
        global
            .create_image_bitmap_with_blob(&blob)
            .map_err(js("decode"))?,
    )
    .await
    .map_err(js("decode"))?
    .unchecked_into();
    let canvas = OffscreenCanvas::new(width, height).map_err(js("canvas"))?;
    let context: OffscreenCanvasRenderingContext2d = canvas
        .get_context("2d")
        .map_err(js("canvas"))?
        .ok_or_else(|| BridgeError::internal("screenshot marks: no 2d context"))?
        .unchecked_into();
    context
        .draw_image_with_image_bitmap(&bitmap, 0.0, 0.0)
        .map_err(js("draw"))?;
    for mark in &marks {
        paint(&context, mark, ratio).map_err(js("draw"))?;
    }
    let encode = ImageEncodeOptions::new();
    encode.set_type(mime_type);
    if let Some(q) = quality {
        encode.set_quality(q);
    }
    let out: Blob = JsFuture::from(
        canvas
            .convert_to_blob_with_options(&encode)
            .map_err(js("encode"))?,
    )
    .await
    .map_err(js("encode"))?
    .unchecked_into();
    let buffer = JsFuture::from(out.array_buffer())
        .await
        .map_err(js("encode"))?;
    let count = u32::try_from(marks.len()).unwrap_or(u32::MAX);
    Ok((js_sys::Uint8Array::new(&buffer).to_vec(), count))
}

/// One mark: the box's outline inside its edge, the label filled, the uid in white.
fn paint(c: &OffscreenCanvasRenderingContext2d, mark: &Mark, ratio: f64) -> Result<(), JsValue> {
    let line = 2.0 * ratio;
    let f = &mark.frame;
    c.set_stroke_style_str(MARK_COLOUR);
    c.set_line_width(line);
    c.stroke_rect(
        f.x + line / 2.0,
        f.y + line / 2.0,
        (f.width - line).max(0.0),
        (f.height - line).max(0.0),
    );
    let l = &mark.label;
    c.set_fill_style_str(MARK_COLOUR);
    c.fill_rect(l.x, l.y, l.width, l.height);
    c.set_fill_style_str("#ffffff");
    c.set_font(&format!(
        "bold {}px sans-serif",
        (LABEL_HEIGHT - 3.0) * ratio
    ));
    c.set_text_baseline("middle");
    c.fill_text(&mark.uid, l.x + 2.0 * ratio, l.y + l.height / 2.0)
}
