//! The CDP calls that `extract` gathers a page with (PROTOCOL.md §6), declared once
//! for the extension (`extension/src/extract`) and the corpus capture
//! (`tests/src/corpus/capture.rs`), so that what the corpus measures is what the
//! extension reads. `S` and `A` are the caller's decoded shapes (the page
//! crate's `CapturedSnapshot` and `AxTree`); `computed_styles` is the page crate's
//! `COMPUTED_STYLES`.

use crate::accessibility::GetFullAxTree;
use crate::dom_snapshot::CaptureSnapshot;
use crate::page::FrameId;
use crate::runtime::Evaluate;

/// `document.body.innerText` (§6 `text`), empty for a document without body.
pub const INNER_TEXT: &str = "document.body ? document.body.innerText : ''";

/// `[status, modal]`: the main document's HTTP status
/// (`PerformanceNavigationTiming.responseStatus`, Chromium ≥ 109; 0 when unknown:
/// no navigation entry, a `file:` or cached document; PROTOCOL.md §8 reads
/// 401/403/429/503 from it) and the index among `document.querySelectorAll('dialog')`
/// of the one open modally (`:modal`, the last when several; -1 for none), which
/// makes the rest of the document inert. One evaluate for both: no round trip.
pub const DOCUMENT_STATE: &str = "(() => { let m = -1; try { \
    document.querySelectorAll('dialog').forEach((d, i) => { if (d.matches(':modal')) m = i; }); \
    } catch (e) {} \
    return [(performance.getEntriesByType('navigation')[0] || {}).responseStatus || 0, m]; })()";

/// The main document's status and modal dialog, by value (see [`DOCUMENT_STATE`]).
pub fn document_state() -> Evaluate {
    Evaluate::by_value(DOCUMENT_STATE)
}

/// The DOM snapshot: layout and `computed_styles` for every same-origin document.
pub fn snapshot<S>(computed_styles: &[&str]) -> CaptureSnapshot<S> {
    CaptureSnapshot::new(computed_styles)
}

/// The page's text, by value.
pub fn inner_text() -> Evaluate {
    Evaluate::by_value(INNER_TEXT)
}

/// The accessibility tree of one frame (`None`: the main frame).
pub fn ax_tree<A>(frame: Option<FrameId>) -> GetFullAxTree<A> {
    GetFullAxTree::new(frame)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Command;
    use serde_json::{Value, json};

    #[test]
    fn the_gather_calls() {
        assert_eq!(
            CaptureSnapshot::<Value>::METHOD,
            "DOMSnapshot.captureSnapshot"
        );
        assert_eq!(
            serde_json::to_value(snapshot::<Value>(&["display", "opacity"])).unwrap(),
            json!({"computedStyles": ["display", "opacity"]})
        );
        assert_eq!(
            serde_json::to_value(inner_text()).unwrap(),
            json!({"expression": INNER_TEXT, "returnByValue": true})
        );
        assert_eq!(
            serde_json::to_value(document_state()).unwrap(),
            json!({"expression": DOCUMENT_STATE, "returnByValue": true})
        );
        assert_eq!(
            serde_json::to_value(ax_tree::<Value>(None)).unwrap(),
            json!({})
        );
        assert_eq!(
            serde_json::to_value(ax_tree::<Value>(Some(FrameId("F".into())))).unwrap(),
            json!({"frameId": "F"})
        );
    }
}
