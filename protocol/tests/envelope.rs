//! Envelope and action behaviour that the golden vectors do not reach: building
//! messages in Rust, defaults, deadlines, the URL-scheme rule, evaluate shaping.

use browser_bridge_protocol::action::{
    Click, ImageFormat, Modifier, Screenshot, Scroll, ScrollDirection, Type, WaitFor, WaitState,
};
use browser_bridge_protocol::deadline::{
    CAPTURE_DEADLINE_MS, DEFAULT_DEADLINE_MS, EVALUATE_DEADLINE_MS, NAVIGATION_DEADLINE_MS,
};
use browser_bridge_protocol::event::{GlobalStop, SessionEnded};
use browser_bridge_protocol::extract::Truncated;
use browser_bridge_protocol::pointer::HoverResult;
use browser_bridge_protocol::result::{EVALUATE_MAX_BYTES, EvaluateValue};
use browser_bridge_protocol::{
    ACTION_NAMES, Action, ActionResult, BridgeError, ElementTarget, ErrorCode, Event, EventMessage,
    MAX_MESSAGE_BYTES, Message, Ping, PointerTarget, Request, RequestId, Response,
    SessionEndReason, TabId, Uid, check_url_scheme,
};
use serde_json::{Value, json};

fn id() -> RequestId {
    RequestId("9d2f7c1a-4b3e-4f5a-8c6d-1e2f3a4b5c6d".into())
}

fn click_uid(uid: &str) -> Click {
    Click {
        uid: Some(Uid(uid.into())),
        selector: None,
        x: None,
        y: None,
        tab_id: None,
        button: None,
        click_count: None,
        modifiers: None,
        observe: None,
    }
}

fn wire(message: &Message) -> Value {
    serde_json::from_str(&message.encode()).expect("encode gives JSON")
}

#[test]
fn request_built_in_rust_encodes_to_the_wire_shape() {
    let action = Action::Click(click_uid("e4"));
    let message = Message::Request(Request {
        id: id(),
        timeout_ms: action.deadline_ms(),
        action,
        client: None,
    });
    assert_eq!(
        wire(&message),
        json!({"type": "request", "id": id().0, "timeoutMs": 15000,
               "action": {"action": "click", "uid": "e4"}})
    );
    assert_eq!(
        Message::decode(&message.encode()).expect("decodes"),
        message
    );
}

/// §3: `client` names the backend's client; a malformed one is refused for
/// the request's id, so the extension can still answer it.
#[test]
fn a_request_names_its_client() {
    let action = Action::Click(click_uid("e4"));
    let message = Message::Request(Request {
        id: id(),
        timeout_ms: 15000,
        action,
        client: Some("mcp-1f2e3d4c5b6a".into()),
    });
    assert_eq!(wire(&message)["client"], "mcp-1f2e3d4c5b6a");
    assert_eq!(
        Message::decode_from_backend(&message.encode()).expect("decodes"),
        message
    );
    let longest = "~".repeat(128);
    for bad in [
        json!(""),
        json!("two words"),
        json!(7),
        json!("é"),
        json!(format!("{longest}x")),
    ] {
        let frame = json!({"type": "request", "id": id().0, "timeoutMs": 100,
                           "client": bad, "action": {"action": "list_tabs"}});
        let error = Message::decode(&frame.to_string()).expect_err("refused");
        assert_eq!(error.id, Some(id()), "{bad}");
        assert!(error.error.message.contains("`client`"), "{bad}: {error}");
    }
    let frame = json!({"type": "request", "id": id().0, "timeoutMs": 100,
                       "client": longest, "action": {"action": "list_tabs"}});
    assert!(Message::decode(&frame.to_string()).is_ok());
}

#[test]
fn response_holds_exactly_one_of_result_or_error() {
    let ok = Message::Response(Response::ok(
        id(),
        ActionResult::Hover(HoverResult {
            tab_id: TabId(5),
            hit: None,
        }),
    ));
    assert_eq!(
        wire(&ok),
        json!({"type": "response", "id": id().0, "result": {"action": "hover", "tabId": 5}})
    );
    let err = Message::Response(Response::err(
        id(),
        BridgeError::new(ErrorCode::ElementStale, "extract again"),
    ));
    assert_eq!(
        wire(&err),
        json!({"type": "response", "id": id().0,
               "error": {"code": "element_stale", "message": "extract again"}})
    );
    for message in [ok, err] {
        assert_eq!(
            Message::decode(&message.encode()).expect("decodes"),
            message
        );
    }
}

#[test]
fn response_deserialize_refuses_both_and_neither() {
    let both = json!({"id": "a", "result": {"action": "hover", "tabId": 1},
                      "error": {"code": "timeout", "message": "m"}});
    let e = serde_json::from_value::<Response>(both)
        .unwrap_err()
        .to_string();
    assert!(e.contains("both"), "{e}");
    let neither = json!({"id": "a"});
    let e = serde_json::from_value::<Response>(neither)
        .unwrap_err()
        .to_string();
    assert!(e.contains("exactly one"), "{e}");
}

#[test]
fn decode_error_displays_code_and_message_and_keeps_the_request_id() {
    let frame = json!({"type": "request", "id": "r-1", "timeoutMs": 15000,
                       "action": {"action": "click", "uid": "e1", "selector": "#x"}});
    let err = Message::decode(&frame.to_string()).unwrap_err();
    assert_eq!(err.id, Some(RequestId("r-1".into())));
    assert_eq!(
        err.to_string(),
        "invalid_request: click: give exactly one of uid or selector, not both"
    );
    // The answer the receiver sends back is an ordinary error response.
    let answer = Message::Response(Response::err(err.id.clone().expect("id"), err.error));
    assert_eq!(wire(&answer)["error"]["code"], "invalid_request");
}

#[test]
fn events_encode_with_their_tag_and_unknown_ones_reencode_whole() {
    let ended = Message::Event(EventMessage {
        event: Event::SessionEnded(SessionEnded {
            tab_id: TabId(3),
            reason: SessionEndReason::SystemIdle,
            action_count: 9,
            ended_at: 1_764_410_000_000,
        }),
    });
    assert_eq!(
        wire(&ended),
        json!({"type": "event", "event": {"event": "session_ended", "tabId": 3,
               "reason": "system_idle", "actionCount": 9, "endedAt": 1_764_410_000_000u64}})
    );
    let stop = Event::GlobalStop(GlobalStop {
        session_count: 2,
        at: 1,
    });
    assert_eq!(stop.name(), "global_stop");
    let raw = json!({"type": "event", "event": {"event": "tab_muted", "tabId": 1, "x": [1]}});
    let decoded = Message::decode(&raw.to_string()).expect("unknown event decodes");
    let Message::Event(EventMessage { event }) = &decoded else {
        panic!("not an event: {decoded:?}");
    };
    assert_eq!(event.name(), "tab_muted");
    assert_eq!(wire(&decoded), raw);
}

#[test]
fn ping_and_pong_carry_the_nonce() {
    let ping = Message::Ping(Ping { nonce: u64::MAX });
    assert_eq!(wire(&ping), json!({"type": "ping", "nonce": u64::MAX}));
    assert_eq!(Message::decode(&ping.encode()).expect("decodes"), ping);
    assert_eq!(MAX_MESSAGE_BYTES, 32 * 1024 * 1024);
}

#[test]
fn deadlines_per_action() {
    let parse = |v: Value| Action::from_value(v).expect("valid action");
    let cases = [
        (
            json!({"action": "navigate", "url": "https://a.example/"}),
            NAVIGATION_DEADLINE_MS,
        ),
        (json!({"action": "reload"}), NAVIGATION_DEADLINE_MS),
        (json!({"action": "extract"}), CAPTURE_DEADLINE_MS),
        (json!({"action": "screenshot"}), CAPTURE_DEADLINE_MS),
        (
            json!({"action": "evaluate", "expression": "return 1"}),
            EVALUATE_DEADLINE_MS,
        ),
        (json!({"action": "wait_for", "uid": "e1"}), 10_000),
        (
            json!({"action": "wait_for", "uid": "e1", "timeoutMs": 30000}),
            35_000,
        ),
        (json!({"action": "click", "uid": "e1"}), DEFAULT_DEADLINE_MS),
        (json!({"action": "list_tabs"}), DEFAULT_DEADLINE_MS),
        (
            json!({"action": "handoff", "reason": "log in", "timeoutMs": 600000}),
            605_000,
        ),
    ];
    for (action, ms) in cases {
        assert_eq!(parse(action.clone()).deadline_ms(), ms, "{action}");
    }
    assert_eq!(NAVIGATION_DEADLINE_MS, 30_000);
    assert_eq!(CAPTURE_DEADLINE_MS, 20_000);
}

#[test]
fn every_action_name_decodes_and_names_itself() {
    let minimal = |name: &str| -> Value {
        match name {
            "navigate" | "open_tab" => json!({"action": name, "url": "https://a.example/"}),
            "close_tab" => json!({"action": name, "tabId": 1}),
            "click" | "hover" => json!({"action": name, "uid": "e1"}),
            "drag" => json!({"action": name, "from": {"uid": "e1"}, "to": {"x": 1, "y": 2}}),
            "type" => json!({"action": name, "uid": "e1", "text": "x"}),
            "press_key" => json!({"action": name, "key": "Enter"}),
            "select_option" => json!({"action": name, "uid": "e1", "values": ["a"]}),
            "scroll" => json!({"action": name, "direction": "down"}),
            "wait_for" => json!({"action": name, "selector": "p"}),
            "evaluate" => json!({"action": name, "expression": "return 1"}),
            "upload_file" => json!({"action": name, "uid": "e1", "paths": ["/tmp/a"]}),
            "handle_dialog" => json!({"action": name, "accept": false}),
            "call_page_tool" => json!({"action": name, "tool": "t", "input": {}}),
            "fill_form" => json!({"action": name, "fields": [{"uid": "e1", "value": "x"}]}),
            "batch" => json!({"action": name, "actions": [{"action": "extract"}]}),
            "network_response_body" => json!({"action": name, "requestId": "1.2"}),
            "handoff" => json!({"action": name, "reason": "solve the captcha", "timeoutMs": 1}),
            _ => json!({"action": name}),
        }
    };
    for &name in ACTION_NAMES {
        let action = Action::from_value(minimal(name)).expect(name);
        // strum's name, serde's tag on the way in and on the way out agree.
        assert_eq!(action.name(), name);
        assert_eq!(
            serde_json::to_value(&action).expect("encodes")["action"],
            name
        );
    }
}

#[test]
fn defaults_and_targets() {
    let click = click_uid("e2");
    assert_eq!(click.click_count(), 1);
    assert_eq!(
        click.target().expect("one target"),
        PointerTarget::Element(ElementTarget::Uid(&Uid("e2".into())))
    );
    let at: Click = serde_json::from_value(json!({"x": 3.5, "y": 0})).expect("click");
    assert_eq!(
        at.target().expect("a point"),
        PointerTarget::Point { x: 3.5, y: 0.0 }
    );
    let typed: Type = serde_json::from_value(json!({"selector": "#q", "text": "x"})).expect("type");
    assert!(typed.clear());
    assert_eq!(
        typed.target().expect("target"),
        ElementTarget::Selector("#q")
    );
    let wait: WaitFor = serde_json::from_value(json!({"uid": "e1"})).expect("wait_for");
    assert_eq!(wait.timeout_ms(), 5_000);
    assert_eq!(wait.state(), WaitState::Visible);
    let scroll = Scroll {
        direction: ScrollDirection::Down,
        amount: None,
        uid: None,
        selector: None,
        tab_id: None,
        observe: None,
    };
    assert_eq!(scroll.target().expect("no container is fine"), None);
    let neither = Click {
        uid: None,
        ..click_uid("e0")
    };
    assert_eq!(
        neither.target().unwrap_err().code,
        ErrorCode::InvalidRequest
    );
    assert_eq!(Modifier::mask(&[Modifier::Control, Modifier::Shift]), 2 | 8);
    let shot = Screenshot {
        format: Some(ImageFormat::Jpeg),
        ..Default::default()
    };
    assert_eq!(Action::Screenshot(shot).tab_id(), None);
    assert_eq!(
        Action::from_value(json!({"action": "close_tab", "tabId": 8}))
            .expect("close_tab")
            .tab_id(),
        Some(TabId(8))
    );
}

#[test]
fn url_scheme_rule() {
    for ok in [
        "https://example.com/",
        "http://127.0.0.1:8080/x",
        "about:blank",
        "HTTPS://A.B/",
    ] {
        assert!(check_url_scheme(ok).is_ok(), "{ok}");
    }
    for (bad, named) in [
        ("file:///etc/passwd", "file:"),
        ("javascript:alert(1)", "javascript:"),
        ("data:text/html,hi", "data:"),
        ("chrome://settings", "chrome:"),
        ("blob:https://a/1", "blob:"),
        ("example.com", "no scheme"),
    ] {
        let e = check_url_scheme(bad).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidAction, "{bad}");
        assert!(e.message.contains(named), "{bad}: {}", e.message);
    }
}

#[test]
fn evaluate_values_are_cut_at_8192_bytes() {
    assert_eq!(
        EvaluateValue::from_json(json!({"a": 1})),
        EvaluateValue::Value {
            value: json!({"a": 1})
        }
    );
    let long = "é".repeat(EVALUATE_MAX_BYTES); // 2 bytes each: the cut falls mid-string
    match EvaluateValue::from_json(Value::String(long)) {
        EvaluateValue::Truncated { truncated, preview } => {
            assert!(truncated);
            let (head, tail) = preview.split_once('…').expect("marker");
            assert!(head.len() <= EVALUATE_MAX_BYTES, "{}", head.len());
            // Serialised: quote + 8192 'é' + quote = 8194 chars; the head keeps
            // the quote and 4095 'é' (8191 bytes, 4096 chars), so 4098 are cut.
            assert_eq!(head.chars().count(), 4096);
            assert_eq!(tail, "[truncated 4098 chars]");
        }
        other => panic!("expected a truncated preview, got {other:?}"),
    }
}

#[test]
fn error_codes_are_the_fourteen_of_section_4() {
    assert_eq!(ErrorCode::known().count(), 14);
    for code in ErrorCode::known() {
        let wire = serde_json::to_value(&code).expect("code");
        assert_eq!(wire, json!(code.as_str()));
        assert_eq!(code.to_string(), code.as_str());
        assert_eq!(
            serde_json::from_value::<ErrorCode>(wire).expect("decodes"),
            code
        );
        assert_eq!(ErrorCode::from_wire(code.as_str()), Some(code.clone()));
        assert!(!matches!(code, ErrorCode::Unknown(_)));
    }
    assert_eq!(Truncated::default().into_option(), None);
    let t = Truncated {
        markdown: true,
        ..Default::default()
    };
    assert_eq!(
        serde_json::to_value(t.into_option()).expect("t"),
        json!({"markdown": true})
    );
}
