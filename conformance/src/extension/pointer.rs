//! Pointer targets (PROTOCOL.md §5 "Pointer targets"): a point as the third
//! target form, its bounds, the hit it answers, and `drag`.

use serde_json::{Value, json};

use super::answers::{ACTION_MS, error_of, result_of};
use super::conn::Conn;
use crate::report::{Outcome, ensure};
use crate::wire::{expect_error, short, str_field};

/// Each malformed pointer target is `invalid_request` naming the field at fault.
pub(super) async fn bad_targets(conn: &mut Conn) -> Outcome {
    let bad = [
        (
            json!({"action": "click", "uid": "e1", "x": 5, "y": 5}),
            "x+y",
        ),
        (json!({"action": "hover", "x": 5}), "y"),
        (
            json!({"action": "drag", "from": {"x": 1, "y": 1}, "to": {"x": 9, "y": 9}, "steps": 51}),
            "steps",
        ),
        (
            json!({"action": "drag", "from": {"x": 1, "y": 1}, "to": {"selector": "#a", "x": 9, "y": 9}}),
            "to",
        ),
    ];
    for (action, field) in bad {
        let response = conn.call(action.clone(), ACTION_MS).await?;
        let error = error_of(&response).map_err(|e| format!("{action}: {e}"))?;
        expect_error(error, "invalid_request").map_err(|e| format!("{action}: {e}"))?;
        let message = str_field(error, "message")?;
        ensure(message.contains(field), || {
            format!("{action}: the message does not name `{field}`: `{message}`")
        })?;
    }
    Ok(())
}

/// A click at x, y presses what is there and names it in `hit`; a point
/// outside the viewport is `invalid_action` and presses nothing.
pub(super) async fn click_at_point(conn: &mut Conn, tab: u64) -> Outcome {
    let setup = json!({"action": "evaluate", "tabId": tab, "expression":
        "document.body.innerHTML = '<button id=\"conformance-point\" style=\"position:fixed;\
         left:0;top:0;width:120px;height:40px\">Point here</button>'; window.conformanceClicks = 0; \
         document.getElementById('conformance-point').onclick = () => window.conformanceClicks++; \
         return 1"});
    result_of(&conn.call(setup, ACTION_MS).await?, "evaluate")?;
    let outside = json!({"action": "click", "tabId": tab, "x": -4, "y": 10});
    expect_error(
        error_of(&conn.call(outside, ACTION_MS).await?)?,
        "invalid_action",
    )?;
    let click = json!({"action": "click", "tabId": tab, "x": 60, "y": 20});
    let response = conn.call(click, ACTION_MS).await?;
    let result = result_of(&response, "click")?;
    let hit = result.get("hit").cloned().unwrap_or(Value::Null);
    ensure(
        hit["role"] == json!("button") && hit["name"] == json!("Point here"),
        || format!("hit is not the button: {}", short(result)),
    )?;
    let count = json!({"action": "evaluate", "tabId": tab, "expression": "return window.conformanceClicks"});
    let response = conn.call(count, ACTION_MS).await?;
    let clicks = result_of(&response, "evaluate")?;
    ensure(clicks.get("value") == Some(&json!(1)), || {
        format!("one click at the point, the page counted {}", short(clicks))
    })
}

/// A drag between points presses at `from`, moves with the button held and
/// releases at `to`: the page sees mousedown, mousemove with buttons 1, mouseup.
pub(super) async fn drag_between_points(conn: &mut Conn, tab: u64) -> Outcome {
    let setup = json!({"action": "evaluate", "tabId": tab, "expression":
        "document.body.innerHTML = ''; const seen = window.conformanceDrag = []; \
         for (const t of ['mousedown', 'mousemove', 'mouseup']) addEventListener(t, (e) => \
           seen.push([t, e.clientX, e.clientY, e.buttons])); return 1"});
    result_of(&conn.call(setup, ACTION_MS).await?, "evaluate")?;
    let drag = json!({"action": "drag", "tabId": tab, "from": {"x": 20, "y": 30},
                      "to": {"x": 120, "y": 80}, "steps": 5});
    let response = conn.call(drag, ACTION_MS).await?;
    let result = result_of(&response, "drag")?;
    ensure(result.get("dragAndDrop") == Some(&json!(false)), || {
        format!(
            "a drag on nothing draggable is no drag-and-drop: {}",
            short(result)
        )
    })?;
    let read =
        json!({"action": "evaluate", "tabId": tab, "expression": "return window.conformanceDrag"});
    let response = conn.call(read, ACTION_MS).await?;
    let seen = result_of(&response, "evaluate")?
        .get("value")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let of = |t: &str| {
        seen.iter()
            .filter(|e| e[0] == json!(t))
            .cloned()
            .collect::<Vec<_>>()
    };
    let (down, moves, up) = (of("mousedown"), of("mousemove"), of("mouseup"));
    ensure(
        down.first()
            .is_some_and(|d| d[1] == json!(20) && d[2] == json!(30)),
        || format!("no mousedown at (20, 30): {seen:?}"),
    )?;
    ensure(moves.iter().any(|m| m[3] == json!(1)), || {
        format!("no mousemove with the button held: {seen:?}")
    })?;
    ensure(
        up.last()
            .is_some_and(|u| u[1] == json!(120) && u[2] == json!(80)),
        || format!("no mouseup at (120, 80): {seen:?}"),
    )
}
