//! `fill_form`'s decisions (PROTOCOL.md §5): which kind of control a field is,
//! what its value asks of it, the value read back, and the error naming the
//! field's index.

use browser_bridge_page::elements::PASSWORD_MASK;
use browser_bridge_protocol::action::FieldValue;
use serde::Deserialize;

use crate::core::messages::quote;

/// What the page says of a field before and after it is filled (`PROBE` in
/// `actions/fill.rs`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct Probe {
    /// Lower-case tag name (`input`, `select`, `div`).
    pub tag: String,
    /// An `<input>`'s `type` (`checkbox`, `date`, `password`), else empty.
    #[serde(rename = "type")]
    pub input_type: String,
    /// The first token of the `role` attribute, lower-case.
    pub role: String,
    /// The checked state: an `<input>`'s `checked`, else `aria-checked`.
    pub checked: Option<bool>,
    /// The value: a text field's, a contenteditable's text, a `<select>`'s
    /// selected option values joined with `, `, a custom combobox's text.
    pub value: String,
}

/// The kind of control a field is, by the setter that fills it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A checkbox, radio or switch (native or ARIA), set by `true`/`false`
    /// through a click; the word names it in messages.
    Checkable(&'static str),
    /// A `<select>` or a custom combobox/listbox: `select_option`.
    Select,
    /// Anything `type` fills: text inputs, textareas, contenteditable, and the
    /// date, time, colour and range inputs in their own format.
    Text,
}

/// ARIA roles of a checked state a click toggles.
const CHECKABLE_ROLES: [&str; 5] = [
    "checkbox",
    "radio",
    "switch",
    "menuitemcheckbox",
    "menuitemradio",
];

/// The [`Kind`] of a probed field.
pub fn kind(p: &Probe) -> Kind {
    let native = p.tag == "input" && matches!(p.input_type.as_str(), "checkbox" | "radio");
    if native && p.role == "switch" {
        return Kind::Checkable("switch");
    }
    if native {
        return Kind::Checkable(if p.input_type == "radio" {
            "radio"
        } else {
            "checkbox"
        });
    }
    if let Some(role) = CHECKABLE_ROLES.iter().find(|r| **r == p.role) {
        return Kind::Checkable(match *role {
            "menuitemradio" => "radio",
            "menuitemcheckbox" => "checkbox",
            other => other,
        });
    }
    if p.tag == "select" {
        return Kind::Select;
    }
    let text_control = matches!(p.tag.as_str(), "input" | "textarea");
    if !text_control && matches!(p.role.as_str(), "combobox" | "listbox") {
        return Kind::Select;
    }
    Kind::Text
}

/// What filling one field takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// `type` the text (replacing the content).
    Type(String),
    /// `select_option` the one value (an option's value or label).
    Select(String),
    /// Click it once: its checked state is not the one asked for.
    Click,
    /// Nothing: it is already checked or unchecked as asked.
    Keep,
}

/// The [`Plan`] for `value` on a field of [`kind`] `k`, whose checked state is
/// `checked`; `Err` is the reason the value does not fit the field
/// (`invalid_action`).
///
/// # Errors
/// A boolean for a text field or a select, a string for a checkable control, or
/// `false` for a checked radio (a radio is unchecked by checking another).
pub fn plan(k: Kind, checked: Option<bool>, value: &FieldValue) -> Result<Plan, String> {
    match (k, value) {
        (Kind::Checkable(what), FieldValue::Checked(want)) => {
            let now = checked.unwrap_or(false);
            if now == *want {
                Ok(Plan::Keep)
            } else if what == "radio" && !want {
                Err(
                    "is a checked radio button: uncheck it by checking another radio of its group"
                        .into(),
                )
            } else {
                Ok(Plan::Click)
            }
        }
        (Kind::Checkable(what), FieldValue::Text(text)) => Err(format!(
            "is a {what}: give true or false, not {}",
            quote(text)
        )),
        (Kind::Select, FieldValue::Text(text)) => Ok(Plan::Select(text.clone())),
        (Kind::Select, FieldValue::Checked(b)) => Err(format!(
            "is a select: give an option's value or label, not {b}"
        )),
        (Kind::Text, FieldValue::Text(text)) => Ok(Plan::Type(text.clone())),
        (Kind::Text, FieldValue::Checked(b)) => Err(format!(
            "takes text, not {b} (true and false are for a checkbox, radio or switch)"
        )),
    }
}

/// The field's value as `fill_form` reports it: a checkable control's checked
/// state, a password as [`PASSWORD_MASK`] (never its text or length, as in
/// `extract`), else the value.
pub fn read_back(p: &Probe) -> FieldValue {
    match kind(p) {
        Kind::Checkable(_) => FieldValue::Checked(p.checked.unwrap_or(false)),
        _ if p.tag == "input" && p.input_type == "password" && !p.value.is_empty() => {
            FieldValue::Text(PASSWORD_MASK.to_owned())
        }
        _ => FieldValue::Text(p.value.clone()),
    }
}

/// After a click on a checkable control: `Err` when its state is still not
/// `want` (the page did not take the click; `element_not_interactable`).
///
/// # Errors
/// The control's state after the click is not `want`.
pub fn check_toggled(what: &str, want: bool, after: Option<bool>) -> Result<(), String> {
    if after.unwrap_or(false) == want {
        return Ok(());
    }
    let state = if want { "unchecked" } else { "checked" };
    Err(format!(
        "the {what} is still {state} after a click on it: look at the page (extract) before retrying"
    ))
}

/// The message of a field's failure: `fields[i]: <label> <reason>`, saying which
/// fields before it were filled.
pub fn field_error(index: usize, message: &str) -> String {
    let filled = match index {
        0 => String::new(),
        1 => " (fields[0] was filled)".to_owned(),
        n => format!(" (fields[0]..fields[{}] were filled)", n - 1),
    };
    format!("fields[{index}]: {message}{filled}; the fields after it were not filled")
}

/// The message of a failed `submit` click once every field was filled.
pub fn submit_error(fields: usize, message: &str) -> String {
    format!("submit: {message} (all {fields} fields were filled)")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(tag: &str, input_type: &str, role: &str) -> Probe {
        Probe {
            tag: tag.into(),
            input_type: input_type.into(),
            role: role.into(),
            ..Probe::default()
        }
    }

    #[test]
    fn kinds_follow_the_control() {
        assert_eq!(
            kind(&probe("input", "checkbox", "")),
            Kind::Checkable("checkbox")
        );
        assert_eq!(
            kind(&probe("input", "checkbox", "switch")),
            Kind::Checkable("switch")
        );
        assert_eq!(kind(&probe("input", "radio", "")), Kind::Checkable("radio"));
        assert_eq!(
            kind(&probe("button", "", "switch")),
            Kind::Checkable("switch")
        );
        assert_eq!(
            kind(&probe("div", "", "checkbox")),
            Kind::Checkable("checkbox")
        );
        assert_eq!(
            kind(&probe("li", "", "menuitemradio")),
            Kind::Checkable("radio")
        );
        assert_eq!(kind(&probe("select", "", "")), Kind::Select);
        assert_eq!(kind(&probe("div", "", "combobox")), Kind::Select);
        // An autocomplete text field is typed into.
        assert_eq!(kind(&probe("input", "text", "combobox")), Kind::Text);
        for t in [
            "text", "email", "password", "date", "time", "range", "color",
        ] {
            assert_eq!(kind(&probe("input", t, "")), Kind::Text, "{t}");
        }
        assert_eq!(kind(&probe("textarea", "", "")), Kind::Text);
        assert_eq!(kind(&probe("div", "", "textbox")), Kind::Text);
    }

    #[test]
    fn values_map_to_plans() {
        let text = |s: &str| FieldValue::Text(s.into());
        let cb = Kind::Checkable("checkbox");
        assert_eq!(
            plan(cb, Some(false), &FieldValue::Checked(true)),
            Ok(Plan::Click)
        );
        assert_eq!(
            plan(cb, Some(true), &FieldValue::Checked(false)),
            Ok(Plan::Click)
        );
        assert_eq!(
            plan(cb, Some(true), &FieldValue::Checked(true)),
            Ok(Plan::Keep)
        );
        assert_eq!(plan(cb, None, &FieldValue::Checked(false)), Ok(Plan::Keep));
        let e = plan(cb, None, &text("yes")).unwrap_err();
        assert!(e.contains("give true or false, not \"yes\""), "{e}");
        let radio = Kind::Checkable("radio");
        assert_eq!(
            plan(radio, Some(false), &FieldValue::Checked(true)),
            Ok(Plan::Click)
        );
        assert!(plan(radio, Some(true), &FieldValue::Checked(false)).is_err());
        assert_eq!(
            plan(radio, Some(false), &FieldValue::Checked(false)),
            Ok(Plan::Keep)
        );
        assert_eq!(
            plan(Kind::Select, None, &text("fr")),
            Ok(Plan::Select("fr".into()))
        );
        assert!(plan(Kind::Select, None, &FieldValue::Checked(true)).is_err());
        assert_eq!(
            plan(Kind::Text, None, &text("Ada")),
            Ok(Plan::Type("Ada".into()))
        );
        let e = plan(Kind::Text, None, &FieldValue::Checked(true)).unwrap_err();
        assert!(e.starts_with("takes text, not true"), "{e}");
    }

    #[test]
    fn read_back_masks_passwords_and_reports_checked_states() {
        let mut p = probe("input", "password", "");
        p.value = "hunter2".into();
        assert_eq!(read_back(&p), FieldValue::Text(PASSWORD_MASK.into()));
        p.value.clear();
        assert_eq!(read_back(&p), FieldValue::Text(String::new()));
        let mut c = probe("div", "", "switch");
        c.checked = Some(true);
        assert_eq!(read_back(&c), FieldValue::Checked(true));
        let mut s = probe("select", "", "");
        s.value = "fr".into();
        assert_eq!(read_back(&s), FieldValue::Text("fr".into()));
    }

    #[test]
    fn errors_name_the_index_and_what_was_filled() {
        assert_eq!(
            field_error(0, "uid e4 is stale"),
            "fields[0]: uid e4 is stale; the fields after it were not filled"
        );
        assert!(field_error(1, "x").contains("(fields[0] was filled)"));
        assert!(field_error(3, "x").contains("(fields[0]..fields[2] were filled)"));
        assert!(check_toggled("switch", true, Some(true)).is_ok());
        let e = check_toggled("switch", true, Some(false)).unwrap_err();
        assert!(e.contains("still unchecked"), "{e}");
        assert!(submit_error(3, "covered").contains("all 3 fields were filled"));
    }
}
