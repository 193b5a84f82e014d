//! `fill_form` (PROTOCOL.md §5): each field by its kind, in order, through the
//! same steps as `type`, `select_option` and `click` ([`super::run`], dialogs
//! included), under the one tab lock and debugger session of the request; then
//! the `submit` click. The decisions are [`crate::core::fill`]'s.

use browser_bridge_protocol::action::{Click, FieldValue, FillForm, SelectOption, Target, Type};
use browser_bridge_protocol::result::{ClickResult, FillFormResult, FilledField};
use browser_bridge_protocol::{Action, ActionResult, BridgeError, ErrorCode, TabId};

use super::dom;
use crate::app::App;
use crate::core::fill::{self, Kind, Plan, Probe};

/// `{tag, type, role, checked, value}` of a field ([`Probe`]).
const PROBE: &str = r#"function () {
  const tag = this.tagName ? this.tagName.toLowerCase() : '';
  const type = this instanceof HTMLInputElement ? this.type : '';
  const role = ((this.getAttribute && this.getAttribute('role')) || '').trim().split(/\s+/)[0].toLowerCase();
  let checked = null;
  if (this instanceof HTMLInputElement && (type === 'checkbox' || type === 'radio')) checked = this.checked;
  else if (this.hasAttribute && this.hasAttribute('aria-checked')) checked = this.getAttribute('aria-checked') === 'true';
  let value;
  if (this instanceof HTMLSelectElement) value = Array.from(this.selectedOptions).map((o) => o.value).join(', ');
  else if (this instanceof HTMLInputElement || this instanceof HTMLTextAreaElement) value = String(this.value ?? '');
  else value = (this.innerText || '').trim();
  if (this.isContentEditable) value = this.innerText;
  return { tag, type, role, checked, value };
}"#;

/// `fill_form`.
///
/// # Errors
/// The first field's failure, with the code of the step that failed
/// (`invalid_action` for a value that does not fit the field) and a message
/// naming its index (`fields[2]: …`); then the `submit` click's (`submit: …`).
pub async fn fill_form(app: &App, tab: TabId, p: FillForm) -> Result<ActionResult, BridgeError> {
    let mut fields = Vec::with_capacity(p.fields.len());
    for (index, field) in p.fields.iter().enumerate() {
        let target = Target {
            uid: field.uid.clone(),
            selector: field.selector.clone(),
        };
        let value = fill_field(app, tab, &target, &field.value)
            .await
            .map_err(|e| BridgeError::new(e.code, fill::field_error(index, &e.message)))?;
        fields.push(FilledField {
            index: index as u32,
            value,
        });
    }
    let submit =
        match &p.submit {
            None => None,
            Some(target) => Some(click(app, tab, target).await.map_err(|e| {
                BridgeError::new(e.code, fill::submit_error(fields.len(), &e.message))
            })?),
        };
    Ok(ActionResult::FillForm(FillFormResult {
        tab_id: tab,
        fields,
        submit,
        changes: None,
    }))
}

/// Fills one field and reads its value back.
async fn fill_field(
    app: &App,
    tab: TabId,
    target: &Target,
    value: &FieldValue,
) -> Result<FieldValue, BridgeError> {
    let node = dom::resolve(app, tab, target.target()?).await?;
    let before = probe(&node).await?;
    let kind = fill::kind(&before);
    let plan = fill::plan(kind, before.checked, value)
        .map_err(|why| BridgeError::invalid_action(format!("{} {why}", node.label)))?;
    match plan {
        Plan::Keep => {}
        Plan::Type(text) => {
            let p = Type {
                uid: target.uid.clone(),
                selector: target.selector.clone(),
                tab_id: Some(tab),
                observe: None,
                text,
                clear: None,
                submit: None,
                keystrokes: None,
            };
            step(app, tab, Action::Type(p)).await?;
        }
        Plan::Select(option) => {
            let p = SelectOption {
                uid: target.uid.clone(),
                selector: target.selector.clone(),
                tab_id: Some(tab),
                observe: None,
                values: vec![option],
            };
            step(app, tab, Action::SelectOption(p)).await?;
        }
        Plan::Click => {
            click(app, tab, target)
                .await?
                .effects
                .dialog
                .map_or(Ok(()), |d| Err(super::dialog_error(tab, "fill_form", &d)))?;
            let after = probe(&node).await?;
            if let (Kind::Checkable(what), FieldValue::Checked(want)) = (kind, value) {
                fill::check_toggled(what, *want, after.checked).map_err(|why| {
                    BridgeError::new(
                        ErrorCode::ElementNotInteractable,
                        format!("{}: {why}", node.label),
                    )
                })?;
            }
            return Ok(fill::read_back(&after));
        }
    }
    Ok(fill::read_back(&probe(&node).await?))
}

/// A `click` on the target, as the action (side effects reported).
async fn click(app: &App, tab: TabId, target: &Target) -> Result<ClickResult, BridgeError> {
    let p = Click {
        uid: target.uid.clone(),
        selector: target.selector.clone(),
        x: None,
        y: None,
        tab_id: Some(tab),
        observe: None,
        button: None,
        click_count: None,
        modifiers: None,
    };
    match step(app, tab, Action::Click(p)).await? {
        ActionResult::Click(result) => Ok(result),
        other => Err(BridgeError::internal(format!(
            "click answered {}",
            other.action_name()
        ))),
    }
}

/// [`PROBE`] on the node.
async fn probe(node: &dom::Node) -> Result<Probe, BridgeError> {
    let value = dom::call_with(&node.target, &node.object_id, PROBE, &[]).await?;
    serde_json::from_value(value).map_err(|e| BridgeError::internal(format!("field probe: {e}")))
}

/// One step of the form as its own action ([`super::run`]: its dialog rule too),
/// boxed: `run` is what called `fill_form`.
async fn step(app: &App, tab: TabId, action: Action) -> Result<ActionResult, BridgeError> {
    Box::pin(super::run(app, tab, action)).await
}
