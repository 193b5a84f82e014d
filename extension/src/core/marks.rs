//! Set-of-marks layout for `screenshot` `marks` (PROTOCOL.md §5 "Pointer
//! targets"): where each element's box and uid label go on the image, so a
//! vision model's choice maps back to a uid.

/// One element to mark: its uid and its border box in CSS px, relative to the
/// captured area's top-left corner.
#[derive(Debug, Clone, PartialEq)]
pub struct MarkBox {
    /// `e7`.
    pub uid: String,
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

/// A rectangle in image px.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

impl Rect {
    fn overlaps(&self, other: &Rect) -> bool {
        self.x < other.x + other.width
            && other.x < self.x + self.width
            && self.y < other.y + other.height
            && other.y < self.y + self.height
    }
}

/// One mark to draw, in image px.
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    /// The label's text (the uid).
    pub uid: String,
    /// The element's box, clipped to the image.
    pub frame: Rect,
    /// The label's box (filled, the uid written inside).
    pub label: Rect,
}

/// Label height (CSS px; scaled with the image).
pub const LABEL_HEIGHT: f64 = 14.0;
/// Width of one label character (CSS px, 11 px bold digits) and the padding on
/// each side.
const CHAR_WIDTH: f64 = 7.0;
const PADDING: f64 = 2.0;

/// The marks for `boxes` on an image of `image` px showing an area `area` CSS px
/// wide and high (`scale` = image px per CSS px). A box outside the area or under
/// 1 CSS px gets none. Each label goes at its box's top-left corner — above it,
/// else inside it, else below it — at the first place no earlier label takes,
/// always inside the image.
pub fn layout(boxes: &[MarkBox], area: (f64, f64), scale: f64) -> Vec<Mark> {
    let (aw, ah) = area;
    let mut placed: Vec<Rect> = Vec::new();
    let mut marks = Vec::new();
    for b in boxes {
        let (left, top) = (b.x.max(0.0), b.y.max(0.0));
        let (right, bottom) = ((b.x + b.width).min(aw), (b.y + b.height).min(ah));
        if b.width < 1.0 || b.height < 1.0 || right - left < 1.0 || bottom - top < 1.0 {
            continue;
        }
        let frame = Rect {
            x: left * scale,
            y: top * scale,
            width: (right - left) * scale,
            height: (bottom - top) * scale,
        };
        let (lw, lh) = (
            (CHAR_WIDTH * b.uid.chars().count() as f64 + 2.0 * PADDING) * scale,
            LABEL_HEIGHT * scale,
        );
        let (iw, ih) = (aw * scale, ah * scale);
        let at = |x: f64, y: f64| Rect {
            x: x.clamp(0.0, (iw - lw).max(0.0)),
            y: y.clamp(0.0, (ih - lh).max(0.0)),
            width: lw,
            height: lh,
        };
        let candidates = [
            at(frame.x, frame.y - lh),
            at(frame.x, frame.y),
            at(frame.x, frame.y + frame.height),
            at(frame.x + frame.width - lw, frame.y + frame.height - lh),
        ];
        let label = candidates
            .iter()
            .copied()
            .find(|c| !placed.iter().any(|p| p.overlaps(c)))
            .unwrap_or(candidates[0]);
        placed.push(label);
        marks.push(Mark {
            uid: b.uid.clone(),
            frame,
            label,
        });
    }
    marks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(uid: &str, x: f64, y: f64, width: f64, height: f64) -> MarkBox {
        MarkBox {
            uid: uid.into(),
            x,
            y,
            width,
            height,
        }
    }

    #[test]
    fn a_label_sits_above_its_box_and_scales_with_the_image() {
        let marks = layout(&[mark("e3", 100.0, 50.0, 80.0, 30.0)], (800.0, 600.0), 2.0);
        assert_eq!(marks.len(), 1);
        let m = &marks[0];
        assert_eq!(
            m.frame,
            Rect {
                x: 200.0,
                y: 100.0,
                width: 160.0,
                height: 60.0
            }
        );
        // Two chars: 2 × 7 + 2 × 2 = 18 CSS px wide, 14 high, doubled.
        assert_eq!(
            m.label,
            Rect {
                x: 200.0,
                y: 72.0,
                width: 36.0,
                height: 28.0
            }
        );
    }

    #[test]
    fn labels_at_the_top_edge_go_inside_and_never_leave_the_image() {
        let marks = layout(&[mark("e10", 790.0, 0.0, 40.0, 40.0)], (800.0, 600.0), 1.0);
        let m = &marks[0];
        // The box is clipped to the image; the label is pushed inside it.
        assert_eq!(m.frame.x + m.frame.width, 800.0);
        assert_eq!(m.label.y, 0.0);
        assert!(m.label.x + m.label.width <= 800.0);
    }

    #[test]
    fn a_label_moves_off_an_earlier_one() {
        let marks = layout(
            &[
                mark("e1", 10.0, 100.0, 60.0, 40.0),
                mark("e2", 12.0, 102.0, 60.0, 40.0),
            ],
            (800.0, 600.0),
            1.0,
        );
        assert_eq!(marks[0].label.y, 86.0);
        assert!(!marks[0].label.overlaps(&marks[1].label));
    }

    #[test]
    fn boxes_outside_the_area_or_empty_get_no_mark() {
        let marks = layout(
            &[
                mark("e1", 10.0, 700.0, 60.0, 40.0),
                mark("e2", -80.0, 10.0, 60.0, 40.0),
                mark("e3", 10.0, 10.0, 0.0, 40.0),
                mark("e4", 10.0, 10.0, 30.0, 30.0),
            ],
            (800.0, 600.0),
            1.0,
        );
        let uids: Vec<&str> = marks.iter().map(|m| m.uid.as_str()).collect();
        assert_eq!(uids, ["e4"]);
    }
}
