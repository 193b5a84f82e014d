use browser_bridge_protocol::ErrorCode;
use serde_json::json;

use super::*;

fn console(event: serde_json::Value) -> ConsoleMessage {
    from_console_api(&serde_json::from_value(event).expect("consoleAPICalled"))
}

fn message(level: ConsoleLevel, text: &str) -> ConsoleMessage {
    ConsoleMessage {
        level,
        text: text.into(),
        url: None,
        line: None,
        timestamp: 0.0,
    }
}

#[test]
fn console_levels_follow_devtools() {
    for (kind, level) in [
        ("log", ConsoleLevel::Info),
        ("info", ConsoleLevel::Info),
        ("table", ConsoleLevel::Info),
        ("trace", ConsoleLevel::Info),
        ("debug", ConsoleLevel::Debug),
        ("warning", ConsoleLevel::Warning),
        ("error", ConsoleLevel::Error),
        ("assert", ConsoleLevel::Error),
    ] {
        assert_eq!(console_api_level(kind), level, "{kind}");
    }
    for (level, expected) in [
        ("verbose", ConsoleLevel::Debug),
        ("info", ConsoleLevel::Info),
        ("warning", ConsoleLevel::Warning),
        ("error", ConsoleLevel::Error),
    ] {
        assert_eq!(log_entry_level(level), expected, "{level}");
    }
}

#[test]
fn console_arguments_print_as_devtools_prints_them() {
    let m = console(json!({
        "type": "log",
        "timestamp": 1764412800123.5,
        "args": [
            {"type": "string", "value": "total"},
            {"type": "number", "value": 3},
            {"type": "number", "unserializableValue": "NaN", "description": "NaN"},
            {"type": "undefined"},
            {"type": "object", "subtype": "null", "value": null},
            {"type": "object", "subtype": "array", "className": "Array", "description": "Array(2)", "objectId": "1"},
            {"type": "boolean", "value": true}
        ],
        "stackTrace": {"callFrames": [{"url": "https://a.test/app.js", "lineNumber": 9, "functionName": "f"}]}
    }));
    assert_eq!(m.text, "total 3 NaN undefined null Array(2) true");
    assert_eq!(m.level, ConsoleLevel::Info);
    assert_eq!(m.url.as_deref(), Some("https://a.test/app.js"));
    assert_eq!(m.line, Some(10));
    assert_eq!(m.timestamp, 1764412800123.5);

    let m = console(json!({"type": "assert", "args": [{"type": "string", "value": "x > 1"}]}));
    assert_eq!(m.text, "Assertion failed: x > 1");
    assert_eq!(m.level, ConsoleLevel::Error);
    assert_eq!(m.url, None);
}

#[test]
fn an_uncaught_exception_is_an_error_with_its_stack() {
    let event: ExceptionThrown = serde_json::from_value(json!({
        "timestamp": 5.0,
        "exceptionDetails": {
            "text": "Uncaught", "lineNumber": 3, "columnNumber": 7,
            "url": "https://a.test/page.html",
            "exception": {"type": "object", "subtype": "error",
                "description": "Error: boom\n    at https://a.test/page.html:4:7"}
        }
    }))
    .unwrap();
    let m = from_exception(&event);
    assert_eq!(m.level, ConsoleLevel::Error);
    assert_eq!(
        m.text,
        "Uncaught Error: boom\n    at https://a.test/page.html:4:7"
    );
    assert_eq!(m.line, Some(4));
    let thrown_string: ExceptionThrown = serde_json::from_value(json!({
        "exceptionDetails": {"text": "Uncaught", "exception": {"type": "string", "value": "oops"}}
    }))
    .unwrap();
    assert_eq!(from_exception(&thrown_string).text, "Uncaught oops");
}

#[test]
fn long_texts_are_cut_and_marked_within_the_cap() {
    let long = "é".repeat(3_000);
    let m = console(json!({"type": "log", "args": [{"type": "string", "value": long}]}));
    assert!(m.text.len() <= CONSOLE_TEXT_MAX_BYTES, "{}", m.text.len());
    assert!(m.text.ends_with(CUT_MARK));
    assert!(m.text.len() > CONSOLE_TEXT_MAX_BYTES - 10);
    assert_eq!(cut("short", 2_048), "short");
}

#[test]
fn the_console_log_keeps_the_last_500_and_filters_by_level() {
    let mut log = ConsoleLog::default();
    for i in 0..600 {
        let level = if i % 3 == 0 {
            ConsoleLevel::Error
        } else {
            ConsoleLevel::Info
        };
        log.push(message(level, &format!("m{i}")));
    }
    let all = log.list(&ConsoleMessages {
        limit: Some(200),
        ..Default::default()
    });
    assert_eq!(all.len(), 200);
    assert_eq!(all.first().unwrap().text, "m400");
    assert_eq!(all.last().unwrap().text, "m599");
    let default = log.list(&ConsoleMessages::default());
    assert_eq!(default.len(), LIST_LIMIT_DEFAULT as usize);
    assert_eq!(default.last().unwrap().text, "m599");
    let errors = log.list(&ConsoleMessages {
        level: Some(ConsoleLevel::Error),
        limit: Some(200),
        ..Default::default()
    });
    // 100..600 kept: the multiples of 3 among them, the newest 200.
    let kept_errors: Vec<String> = (100..600)
        .filter(|i| i % 3 == 0)
        .map(|i| format!("m{i}"))
        .collect();
    assert_eq!(kept_errors.len(), 166);
    assert_eq!(errors.len(), 166);
    assert_eq!(
        errors.iter().map(|m| m.text.clone()).collect::<Vec<_>>(),
        kept_errors
    );
}

fn sent(log: &mut NetworkLog, id: &str, url: &str, kind: &str, at: f64) {
    let event: RequestWillBeSent = serde_json::from_value(json!({
        "requestId": id, "timestamp": at, "type": kind,
        "request": {"url": url, "method": "GET"}
    }))
    .unwrap();
    log.sent(&event, None);
}

fn finish(log: &mut NetworkLog, id: &str, status: u16, at: f64, bytes: f64) {
    log.responded(
        &serde_json::from_value(json!({"requestId": id,
            "response": {"status": status, "mimeType": "application/json"}}))
        .unwrap(),
    );
    log.finished(
        &serde_json::from_value(
            json!({"requestId": id, "timestamp": at, "encodedDataLength": bytes}),
        )
        .unwrap(),
    );
}

#[test]
fn requests_gather_their_response_and_end() {
    let mut log = NetworkLog::default();
    sent(&mut log, "1", "https://a.test/api", "Fetch", 10.0);
    sent(&mut log, "2", "http://127.0.0.1:9/x", "Fetch", 10.5);
    finish(&mut log, "1", 404, 10.25, 321.0);
    log.failed(
        &serde_json::from_value(
            json!({"requestId": "2", "timestamp": 10.75, "type": "Fetch",
            "errorText": "net::ERR_CONNECTION_REFUSED", "canceled": false}),
        )
        .unwrap(),
    );
    let list = log.list(&NetworkRequests::default());
    assert_eq!(list.len(), 2);
    let ok = &list[0];
    assert_eq!(
        (ok.status, ok.bytes, ok.ms, ok.mime_type.as_deref()),
        (Some(404), Some(321), Some(250), Some("application/json"))
    );
    let failed = &list[1];
    assert_eq!(failed.status, None);
    assert_eq!(failed.error.as_deref(), Some("net::ERR_CONNECTION_REFUSED"));
    assert_eq!(failed.ms, Some(250));
    let e = log.body_source("2").unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidAction);
    assert!(e.message.contains("failed"), "{}", e.message);
    assert_eq!(log.body_source("1").unwrap(), BodySource { session: None });
}

#[test]
fn a_redirect_moves_the_request_to_its_new_url() {
    let mut log = NetworkLog::default();
    sent(&mut log, "7", "https://a.test/old", "Document", 1.0);
    let hop: RequestWillBeSent = serde_json::from_value(json!({
        "requestId": "7", "timestamp": 1.1, "type": "Document",
        "request": {"url": "https://a.test/new", "method": "GET"},
        "redirectResponse": {"status": 302, "mimeType": ""}
    }))
    .unwrap();
    log.sent(&hop, None);
    let list = log.list(&NetworkRequests::default());
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].url, "https://a.test/new");
    assert_eq!(list[0].status, None);
}

#[test]
fn requests_filter_by_url_and_type_and_keep_the_last_500() {
    let mut log = NetworkLog::default();
    for i in 0..600 {
        let kind = if i % 2 == 0 { "Fetch" } else { "Image" };
        sent(
            &mut log,
            &format!("r{i}"),
            &format!("https://a.test/n/{i}.json"),
            kind,
            1.0,
        );
        finish(&mut log, &format!("r{i}"), 200, 2.0, 10.0);
    }
    let all = log.list(&NetworkRequests {
        limit: Some(200),
        ..Default::default()
    });
    assert_eq!(all.len(), 200);
    assert_eq!(all[0].request_id, "r400");
    let images = log.list(&NetworkRequests {
        resource_type: Some("image".into()),
        limit: Some(3),
        ..Default::default()
    });
    let ids: Vec<&str> = images.iter().map(|r| r.request_id.as_str()).collect();
    assert_eq!(ids, ["r595", "r597", "r599"]);
    let one = log.list(&NetworkRequests {
        url_contains: Some("/n/42.".into()),
        ..Default::default()
    });
    assert!(one.is_empty(), "r42 was evicted");
    let one = log.list(&NetworkRequests {
        url_contains: Some("/n/523.".into()),
        ..Default::default()
    });
    assert_eq!(one.len(), 1);

    let evicted = log.body_source("r99").unwrap_err();
    assert_eq!(evicted.code, ErrorCode::InvalidAction);
    assert!(evicted.message.contains("evicted"), "{}", evicted.message);
    let unknown = log.body_source("nope").unwrap_err();
    assert_eq!(unknown.code, ErrorCode::InvalidAction);
    assert!(
        unknown.message.contains("no request nope"),
        "{}",
        unknown.message
    );
    assert!(log.body_source("r100").is_ok());
}

#[test]
fn a_request_still_loading_has_no_body_yet() {
    let mut log = NetworkLog::default();
    sent(&mut log, "9", "https://a.test/slow", "Fetch", 1.0);
    let e = log.body_source("9").unwrap_err();
    assert!(e.message.contains("still loading"), "{}", e.message);
}

#[test]
fn bodies_are_capped_at_one_mib() {
    let text = "a".repeat(RESPONSE_BODY_MAX_BYTES + 5);
    let (body, cut) = capped_body(text, false);
    assert_eq!((body.len(), cut), (RESPONSE_BODY_MAX_BYTES, true));
    let (body, cut) = capped_body("é".repeat(RESPONSE_BODY_MAX_BYTES), false);
    assert!(cut && body.len() <= RESPONSE_BODY_MAX_BYTES && body.len() % 2 == 0);
    let b64 = "QUJD".repeat(RESPONSE_BODY_MAX_BYTES / 3 + 10);
    let (body, cut) = capped_body(b64, true);
    assert!(cut && body.len() % 4 == 0 && body.len() / 4 * 3 <= RESPONSE_BODY_MAX_BYTES);
    assert_eq!(capped_body("QUJD".into(), true), ("QUJD".to_owned(), false));
}

#[test]
fn a_failure_after_the_response_keeps_its_status() {
    let mut log = NetworkLog::default();
    sent(&mut log, "3", "https://a.test/missing.json", "Fetch", 1.0);
    log.responded(
        &serde_json::from_value(
            json!({"requestId": "3", "response": {"status": 404, "mimeType": "text/plain"}}),
        )
        .unwrap(),
    );
    log.failed(
        &serde_json::from_value(json!({"requestId": "3", "timestamp": 1.5,
            "errorText": "net::ERR_ABORTED", "canceled": true}))
        .unwrap(),
    );
    let list = log.list(&NetworkRequests::default());
    assert_eq!(list[0].status, Some(404));
    assert_eq!(list[0].error.as_deref(), Some("net::ERR_ABORTED"));
    assert_eq!(list[0].ms, Some(500));
}
