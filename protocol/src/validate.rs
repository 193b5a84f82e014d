//! Decoding and validation of actions (PROTOCOL.md §5): the rules serde cannot
//! express (target rule, uid pattern, bounds, non-empty lists) and the URL scheme
//! rule. Every failure is `invalid_request` naming the action and the field, except
//! the URL scheme, which is `invalid_action`.

use serde_json::Value;

use crate::action::{
    ACTION_NAMES, Action, CLICK_COUNT, SCREENSHOT_QUALITY_MAX, WAIT_FOR_MAX_TIMEOUT_MS,
    exactly_one_target,
};
use crate::error::BridgeError;
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
        match self {
            Action::Navigate(p) if p.url.trim().is_empty() => fail("url must not be empty".into()),
            Action::OpenTab(p) if p.url.trim().is_empty() => fail("url must not be empty".into()),
            Action::Click(p) => {
                target(&p.uid, &p.selector)?;
                match p.click_count {
                    Some(n) if !CLICK_COUNT.contains(&n) => fail(format!(
                        "clickCount must be {}..{}, got {n}",
                        CLICK_COUNT.start(),
                        CLICK_COUNT.end()
                    )),
                    _ => Ok(()),
                }
            }
            Action::Hover(p) => target(&p.uid, &p.selector),
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
            Action::PressKey(p) if p.key.is_empty() => fail("key must not be empty".into()),
            Action::Screenshot(p) => match p.quality {
                Some(q) if q > SCREENSHOT_QUALITY_MAX => fail(format!(
                    "quality must be 0..{SCREENSHOT_QUALITY_MAX}, got {q}"
                )),
                _ => Ok(()),
            },
            Action::CallPageTool(p) if p.tool.is_empty() => fail("tool must not be empty".into()),
            _ => Ok(()),
        }
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
    use crate::error::ErrorCode;

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
