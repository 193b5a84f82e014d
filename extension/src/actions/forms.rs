//! `type`, `select_option`, `upload_file`.
//!
//! `type` focuses with `DOM.focus` and inserts with `Input.insertText` (trusted
//! `beforeinput`/`input` events, so React/Vue controlled inputs and contenteditable
//! see a real edit), replacing the content by default; never writes `.value` of a
//! text field. Date, time, colour and range inputs have no text to edit (Chromium
//! draws them with its own widgets): their value is set in the input's own format,
//! then `input` and `change` are dispatched, as a picker does (PROTOCOL.md §5).

use browser_bridge_cdp::dom::{DescribeNode, Focus, SetFileInputFiles};
use browser_bridge_cdp::input::InsertText;
use browser_bridge_cdp::runtime::{CallArgument, CallFunctionOn};
use browser_bridge_protocol::action::{SelectOption, Type, UploadFile};
use browser_bridge_protocol::result::{SelectOptionResult, TypeResult, UploadFileResult};
use browser_bridge_protocol::{ActionResult, BridgeError, ErrorCode, TabId};
use serde_json::{Value, json};

use crate::actions::{dom, input, point};
use crate::app::App;
use crate::cdp;
use crate::core::messages::{cap, quote, with_article};

/// `{editable, readonly?, disabled, what, picked?}`: can `type` write here, and is it a
/// date, time, colour or range input (`picked`: its value is set, see [`SET_VALUE`])?
const EDITABLE: &str = r#"function () {
  const textTypes = ['text','search','email','url','tel','password','number',''];
  const pickedTypes = ['date','time','datetime-local','month','week','color','range'];
  const what = this.tagName ? this.tagName.toLowerCase() + (this.type ? '[type=' + this.type + ']' : '') : 'node';
  if (this.isContentEditable) return { editable: true, disabled: false, what };
  if (this instanceof HTMLInputElement && pickedTypes.includes(this.type)) return { editable: !this.readOnly || this.type === 'range', readonly: this.readOnly && this.type !== 'range', picked: true, disabled: this.disabled, what };
  if (this instanceof HTMLTextAreaElement) return { editable: !this.readOnly, readonly: this.readOnly, disabled: this.disabled, what };
  if (this instanceof HTMLInputElement && textTypes.includes(this.type)) return { editable: !this.readOnly, readonly: this.readOnly, disabled: this.disabled, what };
  return { editable: false, disabled: false, what };
}"#;

/// Selects the whole content (`clear`) or puts the caret at the end.
const SELECT_CONTENT: &str = r#"function (all) {
  if (this instanceof HTMLInputElement || this instanceof HTMLTextAreaElement) {
    if (all) { this.select(); return; }
    try { const n = this.value.length; this.setSelectionRange(n, n); } catch (_) {}
    return;
  }
  const range = document.createRange();
  range.selectNodeContents(this);
  if (!all) range.collapse(false);
  const sel = window.getSelection();
  sel.removeAllRanges();
  sel.addRange(range);
}"#;

/// Sets the value of a date, time, colour or range input (`text` in the input's own
/// format; `''` empties it) and dispatches `input` and `change` like its picker:
/// `{value}`, or `{error: 'format', format}` (the value is left as it was) when the
/// input does not take `text` as it is.
const SET_VALUE: &str = r#"function (text) {
  const t = this.type;
  const formats = { date: 'yyyy-mm-dd (e.g. 2025-03-14)', time: 'hh:mm or hh:mm:ss, 24-hour (e.g. 14:30)',
    'datetime-local': 'yyyy-mm-ddThh:mm (e.g. 2025-03-14T14:30)', month: 'yyyy-mm (e.g. 2025-03)',
    week: 'yyyy-Www (e.g. 2025-W11)', color: '#rrggbb (e.g. #2a9d8f)' };
  const want = text.trim();
  const before = this.value;
  this.value = want;
  let ok;
  if (t === 'range') {
    ok = want !== '' && Number.isFinite(Number(want)) && Number(this.value) === Number(want);
  } else if (t === 'color') {
    ok = this.value === want.toLowerCase();
  } else {
    ok = want === '' || this.value !== '';
  }
  if (!ok) {
    this.value = before;
    if (t === 'range') {
      const min = this.min === '' ? '0' : this.min, max = this.max === '' ? '100' : this.max;
      const step = this.step === '' ? '1' : this.step;
      return { error: 'format', format: 'a number from ' + min + ' to ' + max + (step === 'any' ? '' : ' in steps of ' + step) };
    }
    return { error: 'format', format: formats[t] || t };
  }
  this.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  this.dispatchEvent(new Event('change', { bubbles: true }));
  return { value: this.value };
}"#;

/// The field's value afterwards.
const VALUE: &str =
    r#"function () { return this.isContentEditable ? this.innerText : String(this.value ?? ''); }"#;

/// After focusing: `{refused, active}`: why the focused field cannot take text now
/// (`disabled`, `read-only`, `focus moved`: a focus handler changed it), and a
/// short description of the element that has the focus instead.
const FOCUS_STATE: &str = r#"function () {
  let active = document.activeElement;
  while (active && active.shadowRoot && active.shadowRoot.activeElement) active = active.shadowRoot.activeElement;
  const mine = (n) => { for (; n; n = n.parentNode || n.host) if (n === this) return true; return false; };
  let refused = null;
  if (this.disabled) refused = 'disabled';
  else if (this.readOnly || (this.isContentEditable === false && this.contentEditable === 'false')) refused = 'read-only';
  else if (!mine(active)) refused = 'focus moved';
  let what = active && active.tagName ? active.tagName.toLowerCase() : 'nothing';
  if (active && active.id) what += '#' + active.id;
  return { refused, active: what };
}"#;

/// `type`.
///
/// # Errors
/// `invalid_action` for a non-editable element, `element_not_interactable` when
/// disabled or hidden, or when nothing was typed (a focus handler disabled the
/// field or moved the focus, or the page refused the text), `element_not_found` /
/// `element_stale`.
pub async fn type_text(app: &App, tab: TabId, p: Type) -> Result<ActionResult, BridgeError> {
    let node = dom::resolve(app, tab, p.target()?).await?;
    let state = dom::call_with(&node.target, &node.object_id, EDITABLE, &[]).await?;
    if state["readonly"] == true {
        return Err(BridgeError::invalid_action(format!(
            "{} is read-only ({})",
            node.label,
            state["what"].as_str().unwrap_or("element")
        )));
    }
    if state["editable"] != true {
        let what = state["what"].as_str().unwrap_or("element");
        // A form control that takes no text (read-only, a checkbox) stays refused;
        // any other element may be a key-driven widget.
        if ["input", "textarea", "select", "button"]
            .iter()
            .any(|tag| what.starts_with(tag))
        {
            return Err(BridgeError::invalid_action(format!(
                "{} is not editable ({what}): type into an input, a textarea or a contenteditable element",
                node.label
            )));
        }
        return type_keys(tab, &node, &p, what).await;
    }
    if state["disabled"] == true {
        return Err(BridgeError::new(
            ErrorCode::ElementNotInteractable,
            format!("{} is disabled", node.label),
        ));
    }
    point::click_point(tab, &node).await?;
    let focus = Focus {
        backend_node_id: node.backend_node_id.clone(),
    };
    cdp::send(&node.target, &focus).await.map_err(|e| {
        BridgeError::new(
            ErrorCode::ElementNotInteractable,
            format!("{} cannot take focus: {}", node.label, e.detail()),
        )
    })?;
    if state["picked"] == true {
        return set_value(tab, &node, &state, p).await;
    }
    let clear = p.clear();
    let before = dom::call_with(&node.target, &node.object_id, VALUE, &[])
        .await?
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let now = dom::call_with(&node.target, &node.object_id, FOCUS_STATE, &[]).await?;
    if let Some(why) = now["refused"].as_str() {
        let detail = match why {
            "focus moved" => format!(
                "the focus moved to {} when it was focused",
                now["active"].as_str().unwrap_or("another element")
            ),
            other => format!("it became {other} when it was focused"),
        };
        return Err(BridgeError::new(
            ErrorCode::ElementNotInteractable,
            format!(
                "nothing was typed into {}: {detail} (the page's focus handler); look at the page before retrying",
                node.label
            ),
        ));
    }
    dom::call_with(
        &node.target,
        &node.object_id,
        SELECT_CONTENT,
        &[json!(clear)],
    )
    .await?;
    if p.text.is_empty() {
        if clear {
            input::press(tab, "Backspace", 0).await?;
        }
    } else {
        let expected = if clear {
            p.text.clone()
        } else {
            format!("{before}{}", p.text)
        };
        if p.keystrokes.unwrap_or(false) {
            keystrokes(tab, &p.text).await?;
        } else {
            cdp::send(tab, &InsertText { text: p.text }).await?;
        }
        let after = dom::call_with(&node.target, &node.object_id, VALUE, &[])
            .await
            .unwrap_or_default();
        let after = after.as_str().unwrap_or_default();
        if after == before && after != expected {
            return Err(BridgeError::new(
                ErrorCode::ElementNotInteractable,
                format!(
                    "nothing was typed into {}: its value stayed {} (the page refused the text)",
                    node.label,
                    quote(&before)
                ),
            ));
        }
    }
    if p.submit.unwrap_or(false) {
        input::press(tab, "Enter", 0).await?;
    }
    let value = dom::call_with(&node.target, &node.object_id, VALUE, &[])
        .await
        .unwrap_or_default();
    Ok(ActionResult::Type(TypeResult {
        tab_id: tab,
        value: value.as_str().unwrap_or_default().to_owned(),
        changes: None,
    }))
}

/// `type` into a date, time, colour or range input: [`SET_VALUE`], then Enter when
/// `submit`.
async fn set_value(
    tab: TabId,
    node: &dom::Node,
    state: &Value,
    p: Type,
) -> Result<ActionResult, BridgeError> {
    let r = dom::call_with(&node.target, &node.object_id, SET_VALUE, &[json!(p.text)]).await?;
    if r["error"] == "format" {
        return Err(BridgeError::invalid_action(format!(
            "{} ({}) does not take {}: give the value as {}",
            node.label,
            state["what"].as_str().unwrap_or("input"),
            quote(&p.text),
            r["format"].as_str().unwrap_or("the input's own format")
        )));
    }
    if p.submit.unwrap_or(false) {
        input::press(tab, "Enter", 0).await?;
    }
    Ok(ActionResult::Type(TypeResult {
        tab_id: tab,
        value: r["value"].as_str().unwrap_or_default().to_owned(),
        changes: None,
    }))
}

/// Presses one key per character of `text` (`keyDown` with the text, `keyUp`;
/// a line break is Enter), as a person typing does.
async fn keystrokes(tab: TabId, text: &str) -> Result<(), BridgeError> {
    for c in text.chars() {
        let key = match c {
            '\n' | '\r' => "Enter".to_owned(),
            '\t' => "Tab".to_owned(),
            c => c.to_string(),
        };
        input::press(tab, &key, 0).await?;
    }
    Ok(())
}

/// Is `this` (or something inside it) focused, and can it be? `{focused, focusable}`.
const KEY_TARGET: &str = r#"function () {
  const focusable = this.tabIndex >= 0 || this.hasAttribute('tabindex');
  let active = document.activeElement;
  while (active && active.shadowRoot && active.shadowRoot.activeElement) active = active.shadowRoot.activeElement;
  const mine = (n) => { for (; n; n = n.parentNode || n.host) if (n === this) return true; return false; };
  return { focused: mine(active), focusable };
}"#;

/// `type` into an element that is no text control (a web terminal, a key-driven
/// widget): it is focused (`DOM.focus`), then each character is a key press.
async fn type_keys(
    tab: TabId,
    node: &dom::Node,
    p: &Type,
    what: &str,
) -> Result<ActionResult, BridgeError> {
    let not_focusable = || {
        BridgeError::invalid_action(format!(
            "{} is not editable ({what}) and does not take the keyboard focus: type into \
             an input, a textarea, a contenteditable element or a focusable widget",
            node.label
        ))
    };
    let state = dom::call_with(&node.target, &node.object_id, KEY_TARGET, &[]).await?;
    if state["focusable"] != true {
        return Err(not_focusable());
    }
    point::click_point(tab, node).await?;
    let focus = Focus {
        backend_node_id: node.backend_node_id.clone(),
    };
    cdp::send(&node.target, &focus)
        .await
        .map_err(|_| not_focusable())?;
    let state = dom::call_with(&node.target, &node.object_id, KEY_TARGET, &[]).await?;
    if state["focused"] != true {
        return Err(BridgeError::new(
            ErrorCode::ElementNotInteractable,
            format!(
                "nothing was typed into {}: the focus moved elsewhere when it was focused",
                node.label
            ),
        ));
    }
    keystrokes(tab, &p.text).await?;
    if p.submit.unwrap_or(false) {
        input::press(tab, "Enter", 0).await?;
    }
    let value = dom::call_with(&node.target, &node.object_id, VALUE, &[])
        .await
        .unwrap_or_default();
    Ok(ActionResult::Type(TypeResult {
        tab_id: tab,
        value: value.as_str().unwrap_or_default().to_owned(),
        changes: None,
    }))
}

/// Picks options by value, then by label; fires `input` and `change`.
const SELECT: &str = r#"function (values) {
  if (!(this instanceof HTMLSelectElement)) return { error: 'not_select', what: this.tagName ? this.tagName.toLowerCase() : 'node' };
  if (this.disabled) return { error: 'disabled' };
  const opts = Array.from(this.options);
  const picked = [];
  for (const v of values) {
    const o = opts.find((o) => o.value === v) || opts.find((o) => o.label.trim() === v.trim() || o.text.trim() === v.trim());
    if (!o) return { error: 'missing', value: v, available: opts.slice(0, 20).map((o) => o.value) };
    picked.push(o);
  }
  if (!this.multiple && picked.length > 1) return { error: 'single' };
  for (const o of opts) o.selected = picked.includes(o);
  this.dispatchEvent(new Event('input', { bubbles: true }));
  this.dispatchEvent(new Event('change', { bubbles: true }));
  return { selected: Array.from(this.selectedOptions).map((o) => o.value) };
}"#;

/// The visible `role=option` elements of the combobox `cb`: those in the popups it
/// names (`aria-controls`, `aria-owns`), else every one in its document.
const ARIA_OPTIONS: &str = r#"const ariaOptions = (cb) => {
  const root = cb.getRootNode();
  const ids = ((cb.getAttribute('aria-controls') || '') + ' ' + (cb.getAttribute('aria-owns') || '')).split(/\s+/).filter(Boolean);
  const opts = [];
  for (const id of ids) {
    const r = root.getElementById ? root.getElementById(id) : document.getElementById(id);
    if (!r) continue;
    if (r.getAttribute('role') === 'option') opts.push(r);
    opts.push(...r.querySelectorAll('[role=option]'));
  }
  const all = opts.length ? opts : Array.from(root.querySelectorAll('[role=option]'));
  return all.filter((o) => { const b = o.getBoundingClientRect(); return b.width > 0 && b.height > 0 && getComputedStyle(o).visibility !== 'hidden'; });
};
const optionLabel = (o) => (o.getAttribute('aria-label') || o.innerText || o.textContent || '').trim().replace(/\s+/g, ' ');
const optionValue = (o) => o.getAttribute('data-value') ?? o.getAttribute('value') ?? o.id;
const pick = (opts, want) => {
  const w = want.trim().replace(/\s+/g, ' ');
  let i = opts.findIndex((o) => optionLabel(o) === w);
  if (i < 0) i = opts.findIndex((o) => optionLabel(o).toLowerCase() === w.toLowerCase());
  if (i < 0) i = opts.findIndex((o) => optionValue(o) === want);
  return i;
};"#;

/// `{combobox, expanded}`: is this a custom (ARIA) combobox, and is it open?
const ARIA_COMBOBOX: &str = r#"function () {
  const role = (this.getAttribute('role') || '').trim().split(/\s+/)[0];
  const popup = this.getAttribute('aria-haspopup');
  return { combobox: role === 'combobox' || popup === 'listbox' || popup === 'true', expanded: this.getAttribute('aria-expanded') === 'true' };
}"#;

/// `select_option`.
///
/// A custom combobox (`role=combobox`, `aria-haspopup=listbox`) is opened with a
/// click, and the `role=option` matching each value (label, then case-insensitive
/// label, then `data-value`/`value`/`id`) is clicked, as a person picks it.
///
/// # Errors
/// `invalid_action` when an option is missing (naming the available ones), the
/// element is neither a `<select>` nor a combobox, or several values go to a
/// single select; `element_not_interactable` when disabled.
pub async fn select_option(
    app: &App,
    tab: TabId,
    p: SelectOption,
) -> Result<ActionResult, BridgeError> {
    let node = dom::resolve(app, tab, p.target()?).await?;
    let focus = Focus {
        backend_node_id: node.backend_node_id.clone(),
    };
    let _ = cdp::send(&node.target, &focus).await;
    let r = dom::call_with(&node.target, &node.object_id, SELECT, &[json!(p.values)]).await?;
    if r["error"] == "not_select"
        && dom::call_with(&node.target, &node.object_id, ARIA_COMBOBOX, &[]).await?["combobox"]
            == true
    {
        return select_aria(tab, &node, &p.values).await;
    }
    match r["error"].as_str() {
        None => Ok(ActionResult::SelectOption(SelectOptionResult {
            tab_id: tab,
            selected: serde_json::from_value(r["selected"].clone()).unwrap_or_default(),
            changes: None,
        })),
        Some("missing") => Err(BridgeError::invalid_action(format!(
            "{} has no option with value or label {}; options: {}",
            node.label,
            quote(r["value"].as_str().unwrap_or_default()),
            cap(&r["available"].to_string())
        ))),
        Some("disabled") => Err(BridgeError::new(
            ErrorCode::ElementNotInteractable,
            format!("{} is disabled", node.label),
        )),
        Some("single") => Err(BridgeError::invalid_action(format!(
            "{} takes one value, got {}",
            node.label,
            p.values.len()
        ))),
        Some(_) => Err(BridgeError::invalid_action(format!(
            "{} is {}, not a <select>",
            node.label,
            with_article(r["what"].as_str().unwrap_or("?"))
        ))),
    }
}

/// Did the combobox take the clicked option: its value or text shows the label,
/// the option is `aria-selected`, or the popup closed?
const TOOK: &str = r#"function (option, label) {
  const shown = String(this.value ?? '') + ' ' + (this.innerText || '');
  return shown.includes(label) || option.getAttribute('aria-selected') === 'true' || !option.isConnected
    || this.getAttribute('aria-expanded') !== 'true';
}"#;

/// How long a combobox's options may take to appear after it opens (ms).
const OPTIONS_WAIT_MS: u32 = 2_000;

/// [`select_option`] on a custom combobox: for each value, open it when closed,
/// wait for its options, click the matching one, and check that it took.
async fn select_aria(
    tab: TabId,
    node: &dom::Node,
    values: &[String],
) -> Result<ActionResult, BridgeError> {
    let find = format!(
        "function (want) {{ {ARIA_OPTIONS} const opts = ariaOptions(this); \
         return {{ index: pick(opts, want), labels: opts.slice(0, 30).map(optionLabel) }}; }}"
    );
    let option_at = format!("function (i) {{ {ARIA_OPTIONS} return ariaOptions(this)[i]; }}");
    let mut selected = Vec::new();
    for want in values {
        let state = dom::call_with(&node.target, &node.object_id, ARIA_COMBOBOX, &[]).await?;
        if state["expanded"] != true {
            input::click_node(tab, node).await?;
        }
        let mut waited = 0;
        let found = loop {
            let found =
                dom::call_with(&node.target, &node.object_id, &find, &[json!(want)]).await?;
            let ready = found["index"].as_i64().is_some_and(|i| i >= 0);
            if ready || waited >= OPTIONS_WAIT_MS {
                break found;
            }
            gloo_timers::future::TimeoutFuture::new(100).await;
            waited += 100;
        };
        let Some(index) = found["index"].as_i64().filter(|&i| i >= 0) else {
            let _ = input::press(tab, "Escape", 0).await;
            let labels = found["labels"].as_array().cloned().unwrap_or_default();
            return Err(BridgeError::invalid_action(if labels.is_empty() {
                format!(
                    "{} showed no options (role=option) after opening",
                    node.label
                )
            } else {
                format!(
                    "{} has no option with label or value {}; options: {}",
                    node.label,
                    quote(want),
                    cap(&Value::Array(labels).to_string())
                )
            }));
        };
        let call = CallFunctionOn {
            object_id: node.object_id.clone(),
            function_declaration: option_at.clone(),
            arguments: vec![CallArgument::Value(json!(index))],
            return_by_value: Some(false),
            await_promise: Some(false),
            user_gesture: Some(true),
        };
        let object_id = cdp::send(&node.target, &call)
            .await?
            .result
            .object_id
            .ok_or_else(|| BridgeError::internal("the option vanished"))?;
        let described = cdp::send(
            &node.target,
            &DescribeNode {
                object_id: Some(object_id.clone()),
                ..DescribeNode::default()
            },
        )
        .await?;
        let label = found["labels"][index as usize]
            .as_str()
            .unwrap_or(want)
            .to_owned();
        let option = dom::Node {
            backend_node_id: described.node.backend_node_id,
            object_id,
            label: format!("option {}", quote(&label)),
            target: node.target.clone(),
            frames: node.frames.clone(),
        };
        input::click_node(tab, &option).await?;
        let took = dom::call_on(
            &node.target,
            &node.object_id,
            TOOK,
            vec![
                CallArgument::ObjectId(option.object_id.clone()),
                CallArgument::Value(json!(label)),
            ],
        )
        .await?;
        if took != Value::Bool(true) {
            return Err(BridgeError::invalid_action(format!(
                "{} did not take {} after a click on it",
                node.label, option.label
            )));
        }
        selected.push(label);
    }
    Ok(ActionResult::SelectOption(SelectOptionResult {
        tab_id: tab,
        selected,
        changes: None,
    }))
}

/// The files now on a file input (`null` when it is not one); empty ones are read,
/// since a path that does not exist yields an empty `File` whose read fails.
const FILES: &str = r#"async function () {
  if (!(this instanceof HTMLInputElement) || this.type !== 'file') return null;
  const out = [];
  for (const f of Array.from(this.files || [])) {
    let readable = true;
    // A missing path shows as an empty File whose read fails (NotFoundError).
    if (f.size === 0) { try { await f.arrayBuffer(); } catch (_) { readable = false; } }
    out.push({ name: f.name, size: f.size, readable });
  }
  return out;
}"#;

/// `upload_file` through `DOM.setFileInputFiles`.
///
/// # Errors
/// `invalid_action` when the target is not a file input or a path cannot be read
/// (the input is then emptied again).
pub async fn upload_file(
    app: &App,
    tab: TabId,
    p: UploadFile,
) -> Result<ActionResult, BridgeError> {
    let node = dom::resolve(app, tab, p.target()?).await?;
    if dom::call_with(&node.target, &node.object_id, FILES, &[])
        .await?
        .is_null()
    {
        return Err(BridgeError::invalid_action(format!(
            "{} is not an <input type=file>",
            node.label
        )));
    }
    let set = |files: &[String]| SetFileInputFiles {
        files: files.to_vec(),
        backend_node_id: node.backend_node_id.clone(),
    };
    cdp::send(&node.target, &set(&p.paths)).await.map_err(|e| {
        BridgeError::invalid_action(format!("could not set the files: {}", e.detail()))
    })?;
    let files = dom::call_with(&node.target, &node.object_id, FILES, &[]).await?;
    let files = files.as_array().cloned().unwrap_or_default();
    let unreadable: Vec<&str> = files
        .iter()
        .zip(&p.paths)
        .filter(|(f, _)| f["readable"] == false)
        .map(|(_, path)| path.as_str())
        .collect();
    if !unreadable.is_empty() {
        let _ = cdp::send(&node.target, &set(&[])).await;
        return Err(BridgeError::invalid_action(format!(
            "cannot read {}: give absolute paths of existing files on the backend's machine",
            unreadable.join(", ")
        )));
    }
    let names = files
        .iter()
        .filter_map(|f| f["name"].as_str().map(str::to_owned))
        .collect();
    Ok(ActionResult::UploadFile(UploadFileResult {
        tab_id: tab,
        files: names,
    }))
}
