//! End-to-end: every kind of form control is listed by `extract` and operable
//! (PROTOCOL.md §5, §6): date, time, colour and range inputs.

use browser_bridge_tests::harness::{Stack, uid_of};
use serde_json::{Value, json};

/// `(role, value)` of the element named `name`.
fn element(extract: &Value, name: &str) -> (String, Option<String>) {
    let e = extract["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no element {name:?} in {}", extract["elements"]));
    (
        e["role"].as_str().unwrap().to_owned(),
        e["value"].as_str().map(str::to_owned),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn date_time_colour_and_range_inputs_are_listed_and_typed_into() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("controls/native-inputs.html", None)
        .await
        .expect("navigate");
    let page = stack
        .act(json!({ "action": "extract", "tabId": tab }))
        .await
        .expect("extract");
    let listed = [
        ("Day", "date", None),
        ("Set day", "date", Some("2024-02-29")),
        ("Start", "time", None),
        ("Exact time", "time", Some("08:05:09")),
        ("Departure", "datetime-local", None),
        ("Billing month", "month", None),
        ("Sprint week", "week", Some("2025-W07")),
        ("Colour", "color", Some("#888888")),
        ("Volume", "slider", Some("4")),
        ("Count", "spinbutton", Some("1")),
    ];
    for (name, role, value) in listed {
        assert_eq!(
            element(&page, name),
            (role.to_owned(), value.map(str::to_owned)),
            "{name}"
        );
    }
    // The pickers' inner fields and buttons are not elements of their own.
    assert!(
        !page["elements"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["name"] == "Show date picker" || e["name"] == "Year"),
        "{}",
        page["elements"]
    );

    // Each value in the input's own format: set, with `input` then `change`.
    let typed = [
        ("Day", "date", "2025-03-14", "2025-03-14"),
        ("Start", "time", "14:30", "14:30"),
        (
            "Departure",
            "datetime-local",
            "2025-03-14T09:15",
            "2025-03-14T09:15",
        ),
        ("Billing month", "month", "2025-03", "2025-03"),
        ("Sprint week", "week", "2025-W11", "2025-W11"),
        ("Colour", "color", "#2A9D8F", "#2a9d8f"),
        ("Volume", "slider", "10", "10"),
    ];
    for (name, role, text, value) in typed {
        let uid = uid_of(&page, role, name);
        let r = stack
            .act(json!({ "action": "type", "tabId": tab, "uid": uid, "text": text }))
            .await
            .unwrap_or_else(|e| panic!("type into {name}: {e}"));
        assert_eq!(r["value"], value, "{name}");
    }
    assert_eq!(
        stack
            .eval(
                tab,
                "return ['date','time','dtl','month','week','color','range'].map((id) => document.getElementById(id).value).join(' ')"
            )
            .await
            .unwrap(),
        "2025-03-14 14:30 2025-03-14T09:15 2025-03 2025-W11 #2a9d8f 10"
    );
    assert_eq!(
        stack
            .eval(tab, "return window.__events.slice(0, 4).join(' ')")
            .await
            .unwrap(),
        "date:input=2025-03-14 date:change=2025-03-14 time:input=14:30 time:change=14:30"
    );
    // A number input still takes typed text.
    let r = stack
        .act(json!({ "action": "type", "tabId": tab, "uid": uid_of(&page, "spinbutton", "Count"), "text": "3" }))
        .await
        .expect("type a number");
    assert_eq!(r["value"], "3");

    // The next extract shows the new values.
    let page = stack
        .act(json!({ "action": "extract", "tabId": tab }))
        .await
        .expect("extract");
    assert_eq!(element(&page, "Day").1.as_deref(), Some("2025-03-14"));
    assert_eq!(element(&page, "Colour").1.as_deref(), Some("#2a9d8f"));

    // A value in another format is refused, names the format, and changes nothing.
    let events = stack
        .eval(tab, "return window.__events.length")
        .await
        .unwrap();
    let bad = [
        ("Day", "date", "14/03/2025", "yyyy-mm-dd"),
        ("Start", "time", "2:30 PM", "hh:mm"),
        (
            "Departure",
            "datetime-local",
            "tomorrow",
            "yyyy-mm-ddThh:mm",
        ),
        ("Billing month", "month", "March", "yyyy-mm"),
        ("Sprint week", "week", "11", "yyyy-Www"),
        ("Colour", "color", "teal", "#rrggbb"),
        (
            "Volume",
            "slider",
            "5",
            "a number from 2 to 12 in steps of 2",
        ),
        ("Volume", "slider", "40", "a number from 2 to 12"),
    ];
    for (name, role, text, format) in bad {
        let err = stack
            .act(json!({ "action": "type", "tabId": tab, "uid": uid_of(&page, role, name), "text": text }))
            .await
            .expect_err(text);
        assert_eq!(err.code, "invalid_action", "{name}: {err}");
        assert!(err.message.contains(format), "{name}: {err}");
    }
    assert_eq!(
        stack
            .eval(
                tab,
                &format!("return [window.__events.slice({events}).filter((e) => !e.startsWith('number:')), document.getElementById('date').value, document.getElementById('range').value]")
            )
            .await
            .unwrap(),
        // (The number input's `change` fires when it loses focus.)
        json!([[], "2025-03-14", "10"])
    );

    // Read-only and disabled inputs are refused.
    let err = stack
        .act(json!({ "action": "type", "tabId": tab, "uid": uid_of(&page, "date", "Locked day"), "text": "2025-01-01" }))
        .await
        .unwrap_err();
    assert_eq!(err.code, "invalid_action", "{err}");
    assert!(err.message.contains("read-only"), "{err}");
    let err = stack
        .act(json!({ "action": "type", "tabId": tab, "uid": uid_of(&page, "color", "Disabled colour"), "text": "#ffffff" }))
        .await
        .unwrap_err();
    assert_eq!(err.code, "element_not_interactable", "{err}");

    // An empty text empties a date.
    let r = stack
        .act(json!({ "action": "type", "tabId": tab, "uid": uid_of(&page, "date", "Day"), "text": "" }))
        .await
        .expect("clear a date");
    assert_eq!(r["value"], "");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn checkboxes_radios_and_switches_drawn_over_hidden_inputs_are_visible_and_toggle_once() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("controls/custom-checkbox.html", None)
        .await
        .expect("navigate");
    let page = stack
        .act(json!({ "action": "extract", "tabId": tab }))
        .await
        .expect("extract");
    let controls = [
        ("checkbox", "Email me receipts"),
        ("radio", "Weekly"),
        ("checkbox", "Rotate the API keys"),
        ("switch", "Dark mode"),
        ("switch", "Beta features"),
        ("checkbox", "I accept the terms of service"),
    ];
    for (role, name) in controls {
        let e = page["elements"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["role"] == role && e["name"] == name)
            .unwrap_or_else(|| panic!("no {role} {name:?} in {}", page["elements"]));
        assert_eq!(e["visible"], true, "{name}");
        assert_eq!(e["checked"], "false", "{name}");
        stack
            .act(json!({ "action": "click", "tabId": tab, "uid": uid_of(&page, role, name) }))
            .await
            .unwrap_or_else(|e| panic!("click {name}: {e}"));
    }
    // Each click toggled its control once, and the link in a label was not followed.
    assert_eq!(
        stack
            .eval(tab, "return [window.__changes.join(' '), location.hash]")
            .await
            .unwrap(),
        json!(["receipts=on weekly=on todo=on beta=on terms=on", ""])
    );
    let page = stack
        .act(json!({ "action": "extract", "tabId": tab }))
        .await
        .expect("extract");
    for (role, name) in controls {
        let e = page["elements"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["role"] == role && e["name"] == name)
            .unwrap();
        assert_eq!(
            (e["checked"].clone(), e["visible"].clone()),
            (json!("true"), json!(true)),
            "{name}"
        );
    }
    // A second click unticks.
    stack
        .act(json!({ "action": "click", "tabId": tab, "uid": uid_of(&page, "checkbox", "Email me receipts") }))
        .await
        .expect("click again");
    stack
        .act(json!({ "action": "click", "tabId": tab, "uid": uid_of(&page, "button", "Save") }))
        .await
        .expect("save");
    assert_eq!(
        stack
            .eval(tab, "return document.getElementById('out').textContent")
            .await
            .unwrap(),
        "receipts=off digest=weekly todo=on dark=true beta=on terms=on"
    );
    // The link inside a label is still its own element and is followed when clicked.
    stack
        .act(json!({ "action": "click", "tabId": tab, "uid": uid_of(&page, "link", "terms of service") }))
        .await
        .expect("click the link");
    assert_eq!(
        stack
            .eval(
                tab,
                "return [location.hash, document.getElementById('terms').checked]"
            )
            .await
            .unwrap(),
        json!(["#terms-text", true])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn selects_show_their_options_and_an_option_click_selects_it() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("controls/select.html", None)
        .await
        .expect("navigate");
    let page = stack
        .act(json!({ "action": "extract", "tabId": tab }))
        .await
        .expect("extract");
    let line = |page: &Value, name: &str| {
        let e = page["elements"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .unwrap_or_else(|| panic!("no {name:?} in {}", page["elements"]))
            .clone();
        (e["role"].clone(), e["value"].clone(), e["options"].clone())
    };
    assert_eq!(
        line(&page, "Country"),
        (
            json!("combobox"),
            json!("Germany"),
            json!(["Choose…", "France", "Germany", "Spain"])
        )
    );
    assert_eq!(
        line(&page, "Speed"),
        (
            json!("combobox"),
            json!("Standard (3–5 days)"),
            json!(["Standard (3–5 days)", "Express", "Same day"])
        )
    );
    assert_eq!(
        line(&page, "Extras"),
        (
            json!("listbox"),
            json!("Gift wrap, Signature"),
            json!(["Gift wrap", "Insurance", "Signature", "SMS updates"])
        )
    );
    let (_, year, options) = line(&page, "Year");
    assert_eq!(
        (year, options.as_array().unwrap().len()),
        (json!("1990"), 30)
    );
    // Options are chosen on their select, not listed as elements of their own.
    assert!(
        !page["elements"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["role"] == "option"),
        "{}",
        page["elements"]
    );

    // A label shown in `options` is what select_option takes.
    let r = stack
        .act(json!({ "action": "select_option", "tabId": tab, "uid": uid_of(&page, "combobox", "Speed"), "values": ["Express"] }))
        .await
        .expect("select by label");
    assert_eq!(r["selected"], json!(["exp"]));
    let r = stack
        .act(json!({ "action": "select_option", "tabId": tab, "uid": uid_of(&page, "listbox", "Extras"), "values": ["Insurance", "SMS updates"] }))
        .await
        .expect("select several");
    assert_eq!(r["selected"], json!(["ins", "sms"]));

    // A click on an option of a drop-down select selects it alone.
    stack
        .act(json!({ "action": "click", "tabId": tab, "selector": "#country option[value=es]" }))
        .await
        .expect("click an option");
    assert_eq!(
        stack
            .eval(tab, "return [document.getElementById('country').value, window.__events.filter((e) => e.startsWith('country')).join(' ')]")
            .await
            .unwrap(),
        json!(["es", "country:input=es country:change=es"])
    );
    // In a listbox, a click on an option is a real click: it selects that option alone.
    stack
        .act(json!({ "action": "click", "tabId": tab, "selector": "#extras option[value=gift]" }))
        .await
        .expect("click a listbox option");
    let page = stack
        .act(json!({ "action": "extract", "tabId": tab }))
        .await
        .expect("extract");
    assert_eq!(line(&page, "Country").1, json!("Spain"));
    assert_eq!(line(&page, "Speed").1, json!("Express"));
    assert_eq!(line(&page, "Extras").1, json!("Gift wrap"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_fields_show_multiline_readonly_exact_values_and_editors() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("controls/textboxes.html", None)
        .await
        .expect("navigate");
    let page = stack
        .act(json!({ "action": "extract", "tabId": tab }))
        .await
        .expect("extract");
    let field = |page: &Value, name: &str| {
        let e = page["elements"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .unwrap_or_else(|| panic!("no {name:?} in {}", page["elements"]))
            .clone();
        (
            e["role"].clone(),
            e["value"].clone(),
            e["multiline"].clone(),
            e["readonly"].clone(),
        )
    };
    let null = Value::Null;
    assert_eq!(
        field(&page, "Subject"),
        (
            json!("textbox"),
            json!("Quarterly   report"),
            null.clone(),
            null.clone()
        )
    );
    assert_eq!(
        field(&page, "Body"),
        (
            json!("textbox"),
            json!("Line one\nLine two"),
            json!(true),
            null.clone()
        )
    );
    assert_eq!(
        field(&page, "Order number"),
        (json!("textbox"), json!("A-1042"), null.clone(), json!(true))
    );
    assert_eq!(
        field(&page, "Terms"),
        (
            json!("textbox"),
            json!("Read only text"),
            json!(true),
            json!(true)
        )
    );
    assert_eq!(
        field(&page, "Notes"),
        (
            json!("textbox"),
            json!("First bold paragraph"),
            json!(true),
            null.clone()
        )
    );
    assert_eq!(field(&page, "Plain notes").0, json!("textbox"));

    // The contenteditable editor takes typed text; a read-only field is refused.
    let r = stack
        .act(json!({ "action": "type", "tabId": tab, "uid": uid_of(&page, "textbox", "Notes"), "text": "Hello editor" }))
        .await
        .expect("type into the editor");
    assert_eq!(r["value"], "Hello editor");
    let err = stack
        .act(json!({ "action": "type", "tabId": tab, "uid": uid_of(&page, "textbox", "Order number"), "text": "B-1" }))
        .await
        .unwrap_err();
    assert_eq!(err.code, "invalid_action", "{err}");
    assert!(err.message.contains("read-only"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn select_option_opens_a_custom_combobox_and_picks_by_label_or_value() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("controls/aria-combobox.html", None)
        .await
        .expect("navigate");
    let page = stack
        .act(json!({ "action": "extract", "tabId": tab }))
        .await
        .expect("extract");
    let prio = uid_of(&page, "combobox", "Priority");
    let assignee = uid_of(&page, "combobox", "Assignee");

    // Options appear only once the combobox is open (after a delay).
    let r = stack
        .act(json!({ "action": "select_option", "tabId": tab, "uid": prio, "values": ["High"] }))
        .await
        .expect("pick by label");
    assert_eq!(r["selected"], json!(["High"]));
    let r = stack
        .act(json!({ "action": "select_option", "tabId": tab, "uid": prio, "values": ["urgent"] }))
        .await
        .expect("pick by value");
    assert_eq!(r["selected"], json!(["Urgent — page on-call"]));
    let r = stack
        .act(json!({ "action": "select_option", "tabId": tab, "uid": assignee, "values": ["grace hopper"] }))
        .await
        .expect("pick in an autocomplete");
    assert_eq!(r["selected"], json!(["Grace Hopper"]));
    assert_eq!(
        stack
            .eval(tab, "return [window.__state.prio, window.__state.assignee, document.getElementById('assignee').value]")
            .await
            .unwrap(),
        json!(["urgent", "Grace Hopper", "Grace Hopper"])
    );

    // A missing option names the ones there are, and the popup is closed again.
    let err = stack
        .act(
            json!({ "action": "select_option", "tabId": tab, "uid": prio, "values": ["Critical"] }),
        )
        .await
        .unwrap_err();
    assert_eq!(err.code, "invalid_action", "{err}");
    assert!(
        err.message
            .contains("\"Low\",\"Normal\",\"High\",\"Urgent — page on-call\""),
        "{err}"
    );
    assert_eq!(
        stack
            .eval(
                tab,
                "return document.getElementById('prio').getAttribute('aria-expanded')"
            )
            .await
            .unwrap(),
        "false"
    );
    // Something that is neither a select nor a combobox is refused as before.
    let err = stack
        .act(json!({ "action": "select_option", "tabId": tab, "selector": "h1", "values": ["x"] }))
        .await
        .unwrap_err();
    assert_eq!(err.code, "invalid_action", "{err}");
}
