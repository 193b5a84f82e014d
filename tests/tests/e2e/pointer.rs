//! End-to-end: pointer targets beyond elements (PROTOCOL.md §5 "Pointer
//! targets"): a button painted on a canvas clicked and hovered by coordinates,
//! the hit named (with the uid of an extracted element), points outside the
//! viewport refused; `drag` on a sortable list and a drop zone (HTML5
//! drag-and-drop), a drag whose `dragstart` is cancelled, a slider built from
//! pointer events, a drawing app on mouse events; `screenshot` with marks.

use browser_bridge_tests::harness::{Stack, uid_of};
use serde_json::{Value, json};

async fn act(stack: &Stack, action: Value) -> Result<Value, String> {
    stack
        .act(action)
        .await
        .map_err(|e| format!("{}: {}", e.code, e.message))
}

fn point(v: &Value) -> (f64, f64) {
    (v[0].as_f64().unwrap(), v[1].as_f64().unwrap())
}

/// The viewport centre of the element `selector`.
async fn centre(stack: &Stack, tab: i64, selector: &str) -> (f64, f64) {
    let js = format!(
        "const r = document.querySelector({selector:?}).getBoundingClientRect(); \
         return [r.left + r.width / 2, r.top + r.height / 2]"
    );
    point(&stack.eval(tab, &js).await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_painted_button_is_clicked_and_hovered_by_coordinates() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("pointer/canvas-button.html", None)
        .await
        .expect("open");
    let (x, y) = point(
        &stack
            .eval(tab, "return window.__buyCentre()")
            .await
            .unwrap(),
    );
    let hovered = act(
        &stack,
        json!({"action": "hover", "tabId": tab, "x": x, "y": y}),
    )
    .await
    .expect("hover at the painted button");
    // As the accessibility tree names it: the canvas and its aria-label.
    assert_eq!(hovered["hit"]["role"], "Canvas", "{hovered}");
    assert_eq!(hovered["hit"]["name"], "Shop", "{hovered}");
    assert!(hovered["hit"].get("uid").is_none(), "{hovered}");
    assert_eq!(
        stack.eval(tab, "return window.__hover").await.unwrap(),
        "Buy"
    );
    act(
        &stack,
        json!({"action": "hover", "tabId": tab, "x": x + 200.0, "y": y}),
    )
    .await
    .expect("hover beside it");
    assert_eq!(
        stack.eval(tab, "return window.__hover").await.unwrap(),
        "none"
    );
    let clicked = act(
        &stack,
        json!({"action": "click", "tabId": tab, "x": x, "y": y}),
    )
    .await
    .expect("click at the painted button");
    assert_eq!(clicked["navigated"], false, "{clicked}");
    assert_eq!(clicked["hit"]["name"], "Shop", "{clicked}");
    assert_eq!(
        stack.eval(tab, "return window.__clicks").await.unwrap(),
        json!([{"buy": true, "trusted": true, "x": x as i64, "y": y as i64}])
    );
    // The hit names an extracted element by its uid.
    let read = stack.extract(tab).await;
    let uid = uid_of(&read, "button", "Real button");
    let (bx, by) = centre(&stack, tab, "#real").await;
    let clicked = act(
        &stack,
        json!({"action": "click", "tabId": tab, "x": bx, "y": by}),
    )
    .await
    .expect("click at the real button");
    assert_eq!(
        clicked["hit"],
        json!({"role": "button", "name": "Real button", "uid": uid})
    );
    assert_eq!(stack.eval(tab, "return window.__real").await.unwrap(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn points_outside_the_viewport_press_nothing() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("pointer/canvas-button.html", None)
        .await
        .expect("open");
    let width = stack.eval(tab, "return innerWidth").await.unwrap();
    for (x, y) in [
        (-1.0, 100.0),
        (100.0, -0.5),
        (width.as_f64().unwrap() + 10.0, 100.0),
    ] {
        let e = act(
            &stack,
            json!({"action": "click", "tabId": tab, "x": x, "y": y}),
        )
        .await
        .unwrap_err();
        assert!(e.starts_with("invalid_action"), "({x}, {y}): {e}");
        let e = act(
            &stack,
            json!({"action": "hover", "tabId": tab, "x": x, "y": y}),
        )
        .await
        .unwrap_err();
        assert!(e.starts_with("invalid_action"), "({x}, {y}): {e}");
    }
    let e = act(&stack, json!({"action": "click", "tabId": tab, "x": 10}))
        .await
        .unwrap_err();
    assert!(
        e.starts_with("invalid_request") && e.contains("x without y"),
        "{e}"
    );
    assert_eq!(
        stack
            .eval(tab, "return window.__clicks.length")
            .await
            .unwrap(),
        0
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sortable_list_is_reordered_by_html5_drag_and_drop() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("pointer/sortable.html", None)
        .await
        .expect("open");
    let dragged = act(
        &stack,
        json!({"action": "drag", "tabId": tab, "from": {"selector": "#alpha"},
               "to": {"selector": "#gamma"}}),
    )
    .await
    .expect("drag Alpha onto Gamma");
    assert_eq!(dragged["dragAndDrop"], true, "{dragged}");
    assert_eq!(
        stack.eval(tab, "return window.__order()").await.unwrap(),
        json!(["Beta", "Alpha", "Gamma", "Delta"])
    );
    assert_eq!(
        stack.eval(tab, "return window.__dropped").await.unwrap(),
        "alpha"
    );
    // Up, by coordinates: Delta into the top half of Beta goes before it.
    let from = centre(&stack, tab, "#delta").await;
    let top = stack
        .eval(tab, "const r = document.getElementById('beta').getBoundingClientRect(); return [r.left + 20, r.top + 8]")
        .await
        .unwrap();
    let (tx, ty) = point(&top);
    act(
        &stack,
        json!({"action": "drag", "tabId": tab, "from": {"x": from.0, "y": from.1},
               "to": {"x": tx, "y": ty}, "steps": 4}),
    )
    .await
    .expect("drag Delta up");
    assert_eq!(
        stack.eval(tab, "return window.__order()").await.unwrap(),
        json!(["Delta", "Beta", "Alpha", "Gamma"])
    );
    assert_eq!(
        stack.eval(tab, "return window.__events").await.unwrap(),
        json!([
            "dragstart",
            "drop",
            "dragend",
            "dragstart",
            "drop",
            "dragend"
        ])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drop_zone_receives_a_dragged_card_and_a_cancelled_drag_stays_mouse_events() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("pointer/dropzone.html", None)
        .await
        .expect("open");
    let dropped = act(
        &stack,
        json!({"action": "drag", "tabId": tab, "from": {"selector": "#invoice"},
               "to": {"selector": "#zone"}, "steps": 5}),
    )
    .await
    .expect("drag the card onto the zone");
    assert_eq!(dropped["dragAndDrop"], true, "{dropped}");
    assert_eq!(dropped["hit"]["name"], "Drop zone", "{dropped}");
    assert_eq!(
        stack
            .eval(tab, "return document.getElementById('zone').textContent")
            .await
            .unwrap(),
        "Dropped: invoice"
    );
    assert_eq!(
        stack.eval(tab, "return window.__events").await.unwrap(),
        json!(["dragstart", "dragenter", "dragover", "drop"])
    );
    // The page cancels this card's dragstart: no drag-and-drop, the mouse is
    // released over the zone.
    let moved = act(
        &stack,
        json!({"action": "drag", "tabId": tab, "from": {"selector": "#locked"},
               "to": {"selector": "#zone"}}),
    )
    .await
    .expect("drag the locked card");
    assert_eq!(moved["dragAndDrop"], false, "{moved}");
    assert_eq!(
        stack
            .eval(tab, "return window.__mouse.slice(-2)")
            .await
            .unwrap(),
        json!([["mousedown", "locked"], ["mouseup", "zone"]])
    );
    assert_eq!(
        stack
            .eval(tab, "return document.getElementById('zone').textContent")
            .await
            .unwrap(),
        "Dropped: invoice"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pointer_event_slider_follows_the_drag() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("pointer/slider.html", None).await.expect("open");
    let read = stack.extract(tab).await;
    let slider = uid_of(&read, "slider", "Volume");
    // Its centre is 50; three quarters along the track is 75.
    let to = point(
        &stack
            .eval(tab, "const r = document.getElementById('track').getBoundingClientRect(); return [r.left + r.width * 0.75, r.top + 10]")
            .await
            .unwrap(),
    );
    let dragged = act(
        &stack,
        json!({"action": "drag", "tabId": tab, "from": {"uid": slider},
               "to": {"x": to.0, "y": to.1}, "steps": 8}),
    )
    .await
    .expect("drag the slider");
    assert_eq!(dragged["dragAndDrop"], false, "{dragged}");
    assert_eq!(dragged["hit"]["uid"], json!(slider), "{dragged}");
    assert_eq!(
        stack
            .eval(
                tab,
                "return document.getElementById('track').getAttribute('aria-valuenow')"
            )
            .await
            .unwrap(),
        "75"
    );
    assert_eq!(
        stack.eval(tab, "return window.__events").await.unwrap(),
        json!(["down", "move", "up"])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drawing_app_records_the_stroke() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("pointer/drawing.html", None)
        .await
        .expect("open");
    let pad = stack
        .eval(tab, "const r = document.getElementById('pad').getBoundingClientRect(); return [r.left, r.top]")
        .await
        .unwrap();
    let (left, top) = point(&pad);
    let (from, to) = ((left + 50.0, top + 60.0), (left + 350.0, top + 210.0));
    act(
        &stack,
        json!({"action": "drag", "tabId": tab, "from": {"x": from.0, "y": from.1},
               "to": {"x": to.0, "y": to.1}, "steps": 20}),
    )
    .await
    .expect("draw a stroke");
    let strokes = stack.eval(tab, "return window.__strokes").await.unwrap();
    let strokes = strokes.as_array().unwrap();
    assert_eq!(strokes.len(), 1, "{strokes:?}");
    let stroke: Vec<(f64, f64)> = strokes[0].as_array().unwrap().iter().map(point).collect();
    // Moves may be coalesced per frame; the stroke still runs from end to end
    // along the line.
    assert!(stroke.len() >= 3, "{stroke:?}");
    assert_eq!(stroke[0], (50.0, 60.0));
    assert_eq!(*stroke.last().unwrap(), (350.0, 210.0));
    for &(x, y) in &stroke {
        assert!(
            ((y - 60.0) - (x - 50.0) * 0.5).abs() <= 1.0,
            "({x}, {y}) off the line"
        );
    }
    // And it is painted: the middle of the line is red.
    assert_eq!(
        stack
            .eval(tab, "return window.__pixel(200, 135)")
            .await
            .unwrap(),
        json!([255, 0, 0])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn marks_box_each_extracted_element_on_the_image_only() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("pointer/marks.html", None).await.expect("open");
    let e = act(
        &stack,
        json!({"action": "screenshot", "tabId": tab, "marks": true}),
    )
    .await
    .unwrap_err();
    assert!(
        e.starts_with("invalid_action") && e.contains("extract first"),
        "{e}"
    );
    let read = stack.extract(tab).await;
    uid_of(&read, "button", "Save");
    let ratio = stack.eval(tab, "return devicePixelRatio").await.unwrap();
    let ratio = ratio.as_f64().unwrap();
    // Just inside each element's left border, half-way down, in image px; and a
    // point of the page background between the two.
    let probes = stack
        .eval(
            tab,
            &format!(
                "return ['save', 'email'].map((id) => {{ const r = document.getElementById(id).getBoundingClientRect(); \
                 return [Math.round((r.left + 1) * {ratio}), Math.round((r.top + r.height / 2) * {ratio})]; }}) \
                 .concat([[Math.round(250 * {ratio}), Math.round(150 * {ratio})]])"
            ),
        )
        .await
        .unwrap();
    let pixels = |data: &Value| {
        let js = format!("return window.__pixels({data}, {probes})");
        let stack = &stack;
        async move { stack.eval(tab, &js).await.unwrap() }
    };
    let plain = act(&stack, json!({"action": "screenshot", "tabId": tab}))
        .await
        .expect("screenshot");
    // From here on, any node added to the document is recorded.
    stack
        .eval(tab, "window.__added = []; return 1")
        .await
        .unwrap();
    let marked = act(
        &stack,
        json!({"action": "screenshot", "tabId": tab, "marks": true}),
    )
    .await
    .expect("screenshot with marks");
    assert_eq!(marked["mimeType"], "image/png");
    // Save, Help and Email: all three extracted elements are in view.
    assert_eq!(marked["marked"], 3, "{marked}");
    assert!(plain.get("marked").is_none(), "{plain}");
    assert_eq!(
        (marked["width"].clone(), marked["height"].clone()),
        (plain["width"].clone(), plain["height"].clone())
    );
    let magenta = json!([255, 0, 255]);
    let before = pixels(&plain["data"]).await;
    assert_ne!(before[0], magenta, "{before}");
    let after = pixels(&marked["data"]).await;
    assert_eq!(after[0], magenta, "save: {after}");
    assert_eq!(after[1], magenta, "email: {after}");
    // Between the elements the page shows as it is.
    assert_eq!(after[2], json!([255, 255, 255]), "{after}");
    // The page never saw a mark: no node was added while it was drawn.
    assert_eq!(
        stack.eval(tab, "return window.__added").await.unwrap(),
        json!([])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn full_page_marks_follow_the_document_while_it_is_scrolled() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("pointer/marks-long.html", None)
        .await
        .expect("open");
    let read = stack.extract(tab).await;
    uid_of(&read, "button", "Later");
    // Scrolled: the document's offsets are not the viewport's.
    let scrolled = stack
        .eval(tab, "scrollTo(0, 900); return scrollY")
        .await
        .unwrap();
    assert_eq!(scrolled, 900, "the page scrolls");
    let ratio = stack.eval(tab, "return devicePixelRatio").await.unwrap();
    let ratio = ratio.as_f64().unwrap();
    let marked = act(
        &stack,
        json!({"action": "screenshot", "tabId": tab, "fullPage": true, "marks": true}),
    )
    .await
    .expect("full-page screenshot with marks");
    assert_eq!(marked["marked"], 4, "{marked}");
    // Just inside the left border of Save (top of the document) and of Later
    // (1 400 px down), in document px; and the background beside Later.
    let probes = json!([
        [(41.0 * ratio).round(), (80.0 * ratio).round()],
        [(61.0 * ratio).round(), (1420.0 * ratio).round()],
        [(400.0 * ratio).round(), (1420.0 * ratio).round()]
    ]);
    let js = format!("return window.__pixels({}, {probes})", marked["data"]);
    let pixels = stack.eval(tab, &js).await.unwrap();
    assert_eq!(
        pixels,
        json!([[255, 0, 255], [255, 0, 255], [255, 255, 255]]),
        "{pixels}"
    );
}
