//! Pointer targets and drag paths (PROTOCOL.md §5 "Pointer targets"): which
//! points may be pressed, and where the mouse goes between a drag's ends.

use browser_bridge_cdp::accessibility::AxNode;
use browser_bridge_cdp::dom::BackendNodeId;
use browser_bridge_protocol::BridgeError;

/// Checks that `(x, y)` (CSS px) lies in a viewport of `width`×`height` CSS px.
///
/// # Errors
/// `invalid_action` for a negative point or one past the viewport's right or
/// bottom edge, naming the viewport's size, so the caller can fix the call.
pub fn check_point((x, y): (f64, f64), (width, height): (f64, f64)) -> Result<(), BridgeError> {
    if x < 0.0 || y < 0.0 {
        return Err(BridgeError::invalid_action(format!(
            "x, y ({x}, {y}) must not be negative: CSS px from the viewport's top-left corner"
        )));
    }
    if x >= width || y >= height {
        return Err(BridgeError::invalid_action(format!(
            "x, y ({x}, {y}) is outside the viewport ({width:.0}×{height:.0} CSS px): scroll, \
             then give a point inside it"
        )));
    }
    Ok(())
}

/// The mouse positions of a drag after the press at `from`: `steps` equal moves
/// along the straight line, the last one exactly at `to` (at least one).
pub fn drag_path(from: (f64, f64), to: (f64, f64), steps: u8) -> Vec<(f64, f64)> {
    let n = steps.max(1);
    (1..=n)
        .map(|i| {
            if i == n {
                return to;
            }
            let t = f64::from(i) / f64::from(n);
            (from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t)
        })
        .collect()
}

/// What a hit test names (§5 `hit`), from `Accessibility.getPartialAXTree` of
/// the node hit with its relatives: the node itself, or its nearest ancestor
/// the accessibility tree does not ignore (a presentational `<span>` inside a
/// button names the button). `(role, name, the DOM node it stands for)`;
/// `generic` and no name when nothing in `nodes` describes it.
pub fn hit_of(nodes: &[AxNode], hit: &BackendNodeId) -> (String, String, Option<BackendNodeId>) {
    let by_id = |id: &str| nodes.iter().find(|n| n.node_id == id);
    let mut at = nodes
        .iter()
        .find(|n| n.backend_dom_node_id.as_ref() == Some(hit))
        .or(nodes.first());
    // Bounded: a malformed tree with a parent cycle must not spin.
    for _ in 0..nodes.len() {
        match at {
            Some(n) if n.ignored => at = n.parent_id.as_deref().and_then(by_id),
            _ => break,
        }
    }
    match at {
        Some(n) if !n.ignored => (
            n.role
                .as_ref()
                .map(|r| r.text())
                .filter(|r| !r.is_empty())
                .unwrap_or("generic")
                .to_owned(),
            n.name
                .as_ref()
                .map(|v| v.text().to_owned())
                .unwrap_or_default(),
            n.backend_dom_node_id.clone(),
        ),
        _ => ("generic".into(), String::new(), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use browser_bridge_protocol::ErrorCode;
    use serde_json::json;

    #[test]
    fn a_hit_on_an_ignored_node_names_its_nearest_described_ancestor() {
        let nodes: Vec<AxNode> = serde_json::from_value(json!([
            {"nodeId": "9", "ignored": true, "role": {"value": "none"}, "parentId": "5", "backendDOMNodeId": 31},
            {"nodeId": "5", "ignored": false, "role": {"value": "button"}, "name": {"value": "Save"}, "parentId": "1", "backendDOMNodeId": 30},
            {"nodeId": "1", "ignored": false, "role": {"value": "RootWebArea"}, "name": {"value": "Doc"}}
        ]))
        .unwrap();
        assert_eq!(
            hit_of(&nodes, &BackendNodeId(31)),
            ("button".into(), "Save".into(), Some(BackendNodeId(30)))
        );
        assert_eq!(
            hit_of(&nodes, &BackendNodeId(30)),
            ("button".into(), "Save".into(), Some(BackendNodeId(30)))
        );
        assert_eq!(
            hit_of(&[], &BackendNodeId(4)),
            ("generic".into(), String::new(), None)
        );
        // A parent cycle of ignored nodes ends.
        let cycle: Vec<AxNode> = serde_json::from_value(json!([
            {"nodeId": "2", "ignored": true, "parentId": "3", "backendDOMNodeId": 4},
            {"nodeId": "3", "ignored": true, "parentId": "2"}
        ]))
        .unwrap();
        assert_eq!(hit_of(&cycle, &BackendNodeId(4)).0, "generic");
    }

    #[test]
    fn points_inside_the_viewport_pass_and_others_are_invalid_action() {
        assert!(check_point((0.0, 0.0), (800.0, 600.0)).is_ok());
        assert!(check_point((799.5, 599.0), (800.0, 600.0)).is_ok());
        for point in [(-1.0, 10.0), (10.0, -0.5), (800.0, 10.0), (10.0, 600.0)] {
            let e = check_point(point, (800.0, 600.0)).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidAction, "{point:?}");
        }
        let e = check_point((900.0, 10.0), (800.0, 600.0)).unwrap_err();
        assert!(e.message.contains("800×600"), "{}", e.message);
        let e = check_point((-3.0, 10.0), (800.0, 600.0)).unwrap_err();
        assert!(e.message.contains("negative"), "{}", e.message);
    }

    #[test]
    fn a_path_moves_in_equal_steps_and_ends_at_to() {
        assert_eq!(
            drag_path((0.0, 0.0), (100.0, 50.0), 4),
            vec![(25.0, 12.5), (50.0, 25.0), (75.0, 37.5), (100.0, 50.0)]
        );
        assert_eq!(drag_path((3.0, 4.0), (9.0, 9.0), 1), vec![(9.0, 9.0)]);
        // Zero steps cannot reach the decoder; still one move, to `to`.
        assert_eq!(drag_path((3.0, 4.0), (9.0, 9.0), 0), vec![(9.0, 9.0)]);
        let long = drag_path((10.0, 10.0), (10.0, 510.0), 50);
        assert_eq!(long.len(), 50);
        assert_eq!(long[0], (10.0, 20.0));
        assert_eq!(long[49], (10.0, 510.0));
    }
}
