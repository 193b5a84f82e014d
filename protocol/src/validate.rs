//! Decoding and validation of actions (PROTOCOL.md §5): the rules serde cannot
//! express (target rule, uid pattern, bounds, non-empty lists) and the URL scheme
//! rule. Every failure is `invalid_request` naming the action and the field, except
//! the URL scheme, which is `invalid_action`.

use serde_json::Value;

use crate::action::{
    ACTION_NAMES, Action, BATCH_MAX_ACTIONS, CLICK_COUNT, DRAG_STEPS, FILL_FORM_MAX_FIELDS,
    NOT_BATCHABLE, SCREENSHOT_QUALITY_MAX, WAIT_FOR_MAX_TIMEOUT_MS, exactly_one_pointer,
    exactly_one_target,
};
use crate::devtools::LIST_LIMIT_MAX;
use crate::downloads::{DOWNLOADS_LIMIT_MAX, WAIT_FOR_DOWNLOAD_MAX_TIMEOUT_MS};
use crate::error::BridgeError;
use crate::handoff::{HANDOFF_MAX_TIMEOUT_MS, HANDOFF_REASON_MAX_CHARS};
use crate::ids::Uid;

impl Action {
    /// Decodes and validates an action object. Unknown action, missing or
    /// ill-typed field, target rule or bound → `invalid_request` naming the field.
    ///
    /// # Errors
    /// `invalid_request` only.
    pub fn from_value(value: Value) -> Result<Action, BridgeError> {
        let Some(object) = value.as_object() else {
            return Err(BridgeError::invalid_request("action must be a JSON object"));
        };
        let name = match object.get("action") {
            Some(Value::String(name)) => name.clone(),
            Some(_) => return Err(BridgeError::invalid_request("action must be a string")),
            None => return Err(BridgeError::invalid_request("missing field `action`")),
        };
        if !ACTION_NAMES.contains(&name.as_str()) {
            return Err(BridgeError::invalid_request(format!(
                "unknown action `{name}`; expected one of: {}",
                ACTION_NAMES.join(", ")
            )));
        }
        if name == "batch" {
            check_batch_parts(object.get("actions"))?;
        }
        let action: Action = crate::decode::from_object(&value, &["action"])
            .map_err(|e| BridgeError::invalid_request(format!("{name}: {e}")))?;
        action.validate()?;
        Ok(action)
    }

    /// [`Action::from_value`] on JSON text.
    ///
    /// # Errors
    /// `invalid_request` when the text is not JSON or the action is invalid.
    pub fn from_json(text: &str) -> Result<Action, BridgeError> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| BridgeError::invalid_request(format!("not valid JSON: {e}")))?;
        Self::from_value(value)
    }

    /// Checks the rules serde cannot: the target rule, uid pattern, bounds, non-empty
    /// lists. Messages start with the action name and name the field.
    ///
    /// # Errors
    /// `invalid_request`.
    pub fn validate(&self) -> Result<(), BridgeError> {
        let name = self.name();
        let fail = |msg: String| Err(BridgeError::invalid_request(format!("{name}: {msg}")));
        let target = |uid: &Option<Uid>, selector: &Option<String>| {
            check_target(uid, selector)
                .map_err(|e| BridgeError::invalid_request(format!("{name}: {}", e.message)))
        };
        let pointer = |at: &str, uid: &Option<Uid>, selector: &Option<String>, x, y| {
            check_pointer(uid, selector, x, y)
                .map_err(|e| BridgeError::invalid_request(format!("{name}: {at}{}", e.message)))
        };
        match self {
            Action::Navigate(p) if p.url.trim().is_empty() => fail("url must not be empty".into()),
            Action::OpenTab(p) if p.url.trim().is_empty() => fail("url must not be empty".into()),
            Action::Click(p) => {
                pointer("", &p.uid, &p.selector, p.x, p.y)?;
                match p.click_count {
                    Some(n) if !CLICK_COUNT.contains(&n) => fail(format!(
                        "clickCount must be {}..{}, got {n}",
                        CLICK_COUNT.start(),
                        CLICK_COUNT.end()
                    )),
                    _ => Ok(()),
                }
            }
            Action::Hover(p) => pointer("", &p.uid, &p.selector, p.x, p.y),
            Action::Drag(p) => {
                let (from, to) = (&p.from, &p.to);
                pointer("from: ", &from.uid, &from.selector, from.x, from.y)?;
                pointer("to: ", &to.uid, &to.selector, to.x, to.y)?;
                match p.steps {
                    Some(n) if !DRAG_STEPS.contains(&n) => fail(format!(
                        "steps must be {}..{}, got {n}",
                        DRAG_STEPS.start(),
                        DRAG_STEPS.end()
                    )),
                    _ => Ok(()),
                }
            }
            Action::Type(p) => target(&p.uid, &p.selector),
            Action::SelectOption(p) => {
                target(&p.uid, &p.selector)?;
                if p.values.is_empty() {
                    return fail("values must hold at least one value".into());
                }
                Ok(())
            }
            Action::UploadFile(p) => {
                target(&p.uid, &p.selector)?;
                if p.paths.is_empty() {
                    return fail("paths must hold at least one path".into());
                }
                if let Some(rel) = p.paths.iter().find(|path| !is_absolute_path(path)) {
                    return fail(format!("paths must be absolute, got {rel:?}"));
                }
                Ok(())
            }
            Action::WaitFor(p) => {
                target(&p.uid, &p.selector)?;
                match p.timeout_ms {
                    Some(ms) if ms > WAIT_FOR_MAX_TIMEOUT_MS => fail(format!(
                        "timeoutMs must be at most {WAIT_FOR_MAX_TIMEOUT_MS}, got {ms}"
                    )),
                    _ => Ok(()),
                }
            }
            Action::Scroll(p) => {
                if p.uid.is_some() && p.selector.is_some() {
                    return fail("give at most one of uid or selector, not both".into());
                }
                if let Some(uid) = &p.uid
                    && !Uid::is_valid(&uid.0)
                {
                    return fail(format!("uid must match {}, got {:?}", Uid::PATTERN, uid.0));
                }
                match p.amount {
                    Some(a) if !(a.is_finite() && a > 0.0) => fail(format!(
                        "amount must be a positive number of CSS px, got {a}"
                    )),
                    _ => Ok(()),
                }
            }
            Action::Extract(p) => {
                if let Some(uid) = &p.scope
                    && !Uid::is_valid(&uid.0)
                {
                    return fail(format!(
                        "scope must be a uid matching {}, got {:?}",
                        Uid::PATTERN,
                        uid.0
                    ));
                }
                if p.query.as_ref().is_some_and(|q| q.trim().is_empty()) {
                    return fail("query must not be empty".into());
                }
                if p.since.is_some() && (p.scope.is_some() || p.query.is_some() || p.part.is_some())
                {
                    return fail(
                        "since compares whole pages: leave out scope, query and part".into(),
                    );
                }
                match p.part {
                    Some(0) => fail("part must be at least 1 (parts count from 1)".into()),
                    _ => Ok(()),
                }
            }
            Action::PressKey(p) if p.key.is_empty() => fail("key must not be empty".into()),
            Action::Screenshot(p) => match p.quality {
                Some(q) if q > SCREENSHOT_QUALITY_MAX => fail(format!(
                    "quality must be 0..{SCREENSHOT_QUALITY_MAX}, got {q}"
                )),
                _ => Ok(()),
            },
            Action::CallPageTool(p) if p.tool.is_empty() => fail("tool must not be empty".into()),
            Action::ConsoleMessages(p) => check_limit(p.limit).or_else(fail),
            Action::WaitForDownload(p) => match p.timeout_ms {
                Some(t) if t > WAIT_FOR_DOWNLOAD_MAX_TIMEOUT_MS => fail(format!(
                    "timeoutMs must be at most {WAIT_FOR_DOWNLOAD_MAX_TIMEOUT_MS}, got {t}"
                )),
                _ => Ok(()),
            },
            Action::ListDownloads(p) => match p.limit {
                Some(n) if n == 0 || n > DOWNLOADS_LIMIT_MAX => {
                    fail(format!("limit must be 1..{DOWNLOADS_LIMIT_MAX}, got {n}"))
                }
                _ => Ok(()),
            },
            Action::NetworkRequests(p) => {
                if p.url_contains.as_deref() == Some("") {
                    return fail("urlContains must not be empty".into());
                }
                if p.resource_type.as_deref() == Some("") {
                    return fail("resourceType must not be empty".into());
                }
                check_limit(p.limit).or_else(fail)
            }
            Action::NetworkResponseBody(p) if p.request_id.is_empty() => {
                fail("requestId must not be empty: take one from network_requests".into())
            }
            Action::Handoff(p) => {
                if p.reason.trim().is_empty() {
                    return fail("reason must not be empty: say what the person should do".into());
                }
                let chars = p.reason.chars().count();
                if chars > HANDOFF_REASON_MAX_CHARS {
                    return fail(format!(
                        "reason must be at most {HANDOFF_REASON_MAX_CHARS} characters, got {chars}"
                    ));
                }
                match p.timeout_ms {
                    0 => fail("timeoutMs must be at least 1".into()),
                    ms if ms > HANDOFF_MAX_TIMEOUT_MS => fail(format!(
                        "timeoutMs must be at most {HANDOFF_MAX_TIMEOUT_MS}, got {ms}"
                    )),
                    _ => Ok(()),
                }
            }
            Action::FillForm(p) => {
                if p.fields.is_empty() || p.fields.len() > FILL_FORM_MAX_FIELDS {
                    return fail(format!(
                        "fields must hold 1 to {FILL_FORM_MAX_FIELDS} fields, got {}",
                        p.fields.len()
                    ));
                }
                for (i, field) in p.fields.iter().enumerate() {
                    check_target(&field.uid, &field.selector).map_err(|e| {
                        BridgeError::invalid_request(format!("{name}: fields[{i}]: {}", e.message))
                    })?;
                }
                if let Some(submit) = &p.submit {
                    check_target(&submit.uid, &submit.selector).map_err(|e| {
                        BridgeError::invalid_request(format!("{name}: submit: {}", e.message))
                    })?;
                }
                Ok(())
            }
            Action::Batch(p) => {
                if p.actions.is_empty() || p.actions.len() > BATCH_MAX_ACTIONS {
                    return fail(format!(
                        "actions must hold 1 to {BATCH_MAX_ACTIONS} actions, got {}",
                        p.actions.len()
                    ));
                }
                let mut tab = p.tab_id;
                for (i, part) in p.actions.iter().enumerate() {
                    let part_name = part.name();
                    if NOT_BATCHABLE.contains(&part_name) {
                        return fail(format!("actions[{i}]: {}", not_batchable(part_name)));
                    }
                    part.validate().map_err(|e| {
                        BridgeError::invalid_request(format!("{name}: actions[{i}]: {}", e.message))
                    })?;
                    match (tab, part.tab_id()) {
                        (Some(a), Some(b)) if a != b => {
                            return fail(format!(
                                "actions[{i}]: tabId {b} is not tab {a} of the actions before: \
                                 a batch runs on one tab; send one batch per tab"
                            ));
                        }
                        (None, Some(b)) => tab = Some(b),
                        _ => {}
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

/// Decodes each part of a `batch` as an action on its own, so that an error names
/// its index (`batch: actions[2]: click: give exactly one of uid or selector…`);
/// refuses the actions a batch may not hold before decoding them.
fn check_batch_parts(actions: Option<&Value>) -> Result<(), BridgeError> {
    let Some(Value::Array(parts)) = actions else {
        // serde names the missing or ill-typed field.
        return Ok(());
    };
    if parts.is_empty() || parts.len() > BATCH_MAX_ACTIONS {
        return Err(BridgeError::invalid_request(format!(
            "batch: actions must hold 1 to {BATCH_MAX_ACTIONS} actions, got {}",
            parts.len()
        )));
    }
    for (i, part) in parts.iter().enumerate() {
        if let Some(name) = part.get("action").and_then(Value::as_str)
            && NOT_BATCHABLE.contains(&name)
        {
            return Err(BridgeError::invalid_request(format!(
                "batch: actions[{i}]: {}",
                not_batchable(name)
            )));
        }
        Action::from_value(part.clone()).map_err(|e| {
            BridgeError::invalid_request(format!("batch: actions[{i}]: {}", e.message))
        })?;
    }
    Ok(())
}

/// Why `name` cannot be part of a batch.
fn not_batchable(name: &str) -> String {
    if name == "batch" {
        "a batch cannot hold another batch: put its actions in this one".into()
    } else if name == "handoff" {
        "handoff cannot be part of a batch (it waits for the person): call it on its own".into()
    } else {
        format!(
            "{name} cannot be part of a batch (a batch runs actions of one tab): call it on its own"
        )
    }
}

fn check_target(uid: &Option<Uid>, selector: &Option<String>) -> Result<(), BridgeError> {
    exactly_one_target(uid, selector)?;
    if let Some(uid) = uid
        && !Uid::is_valid(&uid.0)
    {
        return Err(BridgeError::invalid_request(format!(
            "uid must match {}, got {:?}",
            Uid::PATTERN,
            uid.0
        )));
    }
    if let Some(selector) = selector
        && selector.trim().is_empty()
    {
        return Err(BridgeError::invalid_request("selector must not be empty"));
    }
    Ok(())
}

/// A list's `limit` (§10.1): 1..=[`LIST_LIMIT_MAX`] when given.
fn check_limit(limit: Option<u32>) -> Result<(), String> {
    match limit {
        Some(n) if n == 0 || n > LIST_LIMIT_MAX => {
            Err(format!("limit must be 1..{LIST_LIMIT_MAX}, got {n}"))
        }
        _ => Ok(()),
    }
}

/// The pointer target rule (§5 "Pointer targets"): exactly one of uid, selector
/// or x+y, each well formed. Negative or off-viewport points are the extension's
/// `invalid_action`: only it knows the viewport.
fn check_pointer(
    uid: &Option<Uid>,
    selector: &Option<String>,
    x: Option<f64>,
    y: Option<f64>,
) -> Result<(), BridgeError> {
    exactly_one_pointer(uid, selector, x, y)?;
    if x.is_none() {
        check_target(uid, selector)?;
    }
    Ok(())
}

fn is_absolute_path(path: &str) -> bool {
    let bytes = path.as_bytes();
    path.starts_with('/')
        || path.starts_with("\\\\")
        || (bytes.len() >= 3
            && bytes[0].is_ascii_alphabetic()
            && bytes[1] == b':'
            && (bytes[2] == b'\\' || bytes[2] == b'/'))
}

/// Checks a `navigate`/`open_tab` URL scheme (§5): only `http:`, `https:` and
/// `about:blank`.
///
/// # Errors
/// `invalid_action` naming the refused scheme.
pub fn check_url_scheme(url: &str) -> Result<(), BridgeError> {
    let trimmed = url.trim();
    let lower = trimmed.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") || lower == "about:blank" {
        return Ok(());
    }
    let scheme = lower.split_once(':').map(|(s, _)| s).unwrap_or("");
    Err(BridgeError::invalid_action(if scheme.is_empty() {
        format!("url {trimmed:?} has no scheme: give an absolute http:// or https:// URL")
    } else if scheme == "http" || scheme == "https" {
        format!("url {trimmed:?} lacks the `//` after `{scheme}:`: give {scheme}://host/…")
    } else if scheme == "about" {
        format!("url {trimmed:?} is not allowed: of the about: URLs only about:blank is")
    } else {
        format!("url scheme `{scheme}:` is not allowed: only http:, https: and about:blank")
    }))
}

#[cfg(test)]
mod tests {
    use super::check_url_scheme;
    use crate::Action;
    use crate::error::ErrorCode;
    use serde_json::json;

    fn refused(value: serde_json::Value) -> String {
        let e = Action::from_value(value).expect_err("refused");
        assert_eq!(e.code, ErrorCode::InvalidRequest, "{}", e.message);
        e.message
    }

    /// `batch.actions` decode part by part by their tag: plain serde gives the
    /// same actions as `Action::from_value`, and refuses a part with no known tag.
    #[test]
    fn batch_parts_decode_by_tag_through_plain_serde() {
        let batch = json!({"action": "batch", "stopOnError": false, "actions": [
            {"action": "click", "uid": "e1", "clickCount": 2},
            {"action": "type", "selector": "#q", "text": "x"},
            {"action": "extract", "tabId": 12}]});
        let checked = Action::from_value(batch.clone()).expect("valid batch");
        let plain: Action = serde_json::from_value(batch).expect("plain serde");
        assert_eq!(plain, checked);
        let Action::Batch(b) = &plain else {
            panic!("not a batch: {plain:?}")
        };
        assert_eq!(b.actions.len(), 3);
        assert_eq!(b.actions[2].name(), "extract");
        for bad in [
            json!([{"action": "nope"}]),
            json!([7]),
            json!([{"uid": "e1"}]),
        ] {
            let e = serde_json::from_value::<crate::action::Batch>(json!({ "actions": bad }))
                .expect_err("refused");
            assert!(e.to_string().contains("known tag"), "{e}");
        }
    }

    /// A batch names the index of the part at fault, refuses nested batches,
    /// tab-management actions and parts of two tabs.
    #[test]
    fn batch_parts_are_checked_by_index() {
        let click = json!({"action": "click", "uid": "e1"});
        let m = refused(json!({"action": "batch", "actions": [click, {"action": "click"}]}));
        assert!(m.starts_with("batch: actions[1]: click: "), "{m}");
        let m = refused(json!({"action": "batch", "actions": [click, {"action": "nope"}]}));
        assert!(
            m.starts_with("batch: actions[1]: unknown action `nope`"),
            "{m}"
        );
        let m = refused(
            json!({"action": "batch", "actions": [{"action": "batch", "actions": [click]}]}),
        );
        assert!(
            m.contains("actions[0]: a batch cannot hold another batch"),
            "{m}"
        );
        let m = refused(
            json!({"action": "batch", "actions": [{"action": "open_tab", "url": "https://a.test/"}]}),
        );
        assert!(
            m.contains("actions[0]: open_tab cannot be part of a batch"),
            "{m}"
        );
        let m = refused(json!({"action": "batch", "actions": [
            {"action": "extract", "tabId": 1}, {"action": "extract", "tabId": 2}]}));
        assert!(m.contains("actions[1]: tabId 2 is not tab 1"), "{m}");
        let m = refused(
            json!({"action": "batch", "tabId": 3, "actions": [{"action": "extract", "tabId": 2}]}),
        );
        assert!(m.contains("actions[0]: tabId 2 is not tab 3"), "{m}");
        let m = refused(json!({"action": "batch", "actions": []}));
        assert!(m.contains("1 to 10"), "{m}");
        let eleven = vec![click.clone(); 11];
        let m = refused(json!({"action": "batch", "actions": eleven}));
        assert!(m.contains("1 to 10 actions, got 11"), "{m}");
        let ok = Action::from_value(json!({"action": "batch", "stopOnError": false, "actions": [
            click, {"action": "extract", "tabId": 4}]}))
        .expect("valid batch");
        assert_eq!(ok.tab_id(), Some(crate::TabId(4)));
    }

    /// fill_form fields and submit keep the target rule, naming the field's index.
    #[test]
    fn since_reads_the_whole_page_only() {
        for narrowed in [
            json!({"action": "extract", "since": "last", "scope": "e1"}),
            json!({"action": "extract", "since": "last", "query": "total"}),
            json!({"action": "extract", "since": "last", "part": 2}),
        ] {
            let m = refused(narrowed.clone());
            assert!(m.contains("since compares whole pages"), "{narrowed}: {m}");
        }
        assert!(Action::from_value(json!({"action": "extract", "since": "last"})).is_ok());
    }

    #[test]
    fn fill_form_fields_are_checked_by_index() {
        let m = refused(json!({"action": "fill_form", "fields": [
            {"uid": "e1", "value": "a"}, {"uid": "e2", "selector": "#b", "value": true}]}));
        assert!(
            m.starts_with("fill_form: fields[1]: give exactly one"),
            "{m}"
        );
        let m = refused(json!({"action": "fill_form", "fields": [{"uid": "e1", "value": 3}]}));
        assert!(m.contains("fields[0].value") || m.contains("value"), "{m}");
        let m = refused(
            json!({"action": "fill_form", "fields": [{"uid": "e1", "value": "a"}], "submit": {}}),
        );
        assert!(m.starts_with("fill_form: submit: give exactly one"), "{m}");
        let m = refused(json!({"action": "fill_form", "fields": []}));
        assert!(m.contains("1 to 50"), "{m}");
        Action::from_value(json!({"action": "fill_form", "fields": [
            {"uid": "e1", "value": "a"}, {"selector": "#c", "value": false}], "submit": {"uid": "e9"}}))
        .expect("valid fill_form");
    }

    /// A batch's deadline is the sum of its parts', capped; a fill_form's counts
    /// each field and the submit click as one action.
    #[test]
    fn composite_deadlines_sum_their_parts() {
        use crate::deadline::{
            COMPOSITE_DEADLINE_MAX_MS, DEFAULT_DEADLINE_MS, NAVIGATION_DEADLINE_MS,
        };
        let batch = Action::from_value(json!({"action": "batch", "actions": [
            {"action": "navigate", "url": "https://a.test/"}, {"action": "click", "uid": "e1"}]}))
        .expect("valid");
        assert_eq!(
            batch.deadline_ms(),
            NAVIGATION_DEADLINE_MS + DEFAULT_DEADLINE_MS
        );
        let many = vec![json!({"action": "navigate", "url": "https://a.test/"}); 10];
        let batch = Action::from_value(json!({"action": "batch", "actions": many})).expect("valid");
        assert_eq!(batch.deadline_ms(), COMPOSITE_DEADLINE_MAX_MS);
        let form = Action::from_value(json!({"action": "fill_form",
            "fields": [{"uid": "e1", "value": "a"}, {"uid": "e2", "value": true}], "submit": {"uid": "e3"}}))
        .expect("valid");
        assert_eq!(form.deadline_ms(), 3 * DEFAULT_DEADLINE_MS);
    }

    /// Every scheme that could read local files, run script or reach browser and
    /// extension pages is refused, however it is cased or padded, with a message
    /// that says what to give instead.
    #[test]
    fn only_web_urls_pass() {
        for ok in [
            "https://a.test/",
            "HTTP://a.test",
            " about:blank ",
            "ABOUT:BLANK",
        ] {
            assert!(check_url_scheme(ok).is_ok(), "{ok}");
        }
        for (bad, named) in [
            ("javascript:alert(1)", "`javascript:`"),
            ("JAVASCRIPT:alert(1)", "`javascript:`"),
            ("\u{1}javascript:alert(1)", "is not allowed"),
            ("java\tscript:alert(1)", "`java\tscript:`"),
            ("file:///etc/passwd", "`file:`"),
            ("data:text/html,x", "`data:`"),
            ("blob:https://a.test/1", "`blob:`"),
            ("chrome://settings", "`chrome:`"),
            ("chrome-extension://id/popup.html", "`chrome-extension:`"),
            ("view-source:https://a.test/", "`view-source:`"),
            ("filesystem:https://a.test/x", "`filesystem:`"),
            ("about:srcdoc", "only about:blank"),
            ("about:blank#x", "only about:blank"),
            ("https:a.test", "lacks the `//`"),
            ("http:/a.test", "lacks the `//`"),
            ("a.test/path", "no scheme"),
        ] {
            let e = check_url_scheme(bad).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidAction, "{bad:?}");
            assert!(e.message.contains(named), "{bad:?}: {}", e.message);
        }
    }
}
