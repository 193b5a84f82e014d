//! Each wire name is declared once, by a variant's name, and spelled by two
//! derive rules: serde's `rename_all = "snake_case"` (the wire) and strum's
//! `serialize_all = "snake_case"` (`name()`, `as_str()`, [`ACTION_NAMES`]). These
//! tests check that the two rules agree for every name.

use browser_bridge_protocol::SessionEndReason;
use browser_bridge_protocol::action::WaitState;
use browser_bridge_protocol::devtools::ConsoleLevel;
use browser_bridge_protocol::extract::{Confidence, ObstacleType};
use browser_bridge_protocol::result::DialogType;
use browser_bridge_protocol::schema::envelope_schema;
use browser_bridge_protocol::{ACTION_NAMES, ActionResult, ErrorCode};
use serde_json::Value;
use strum::{IntoEnumIterator, VariantNames};

/// The `const` of `tag` in each branch of the union `def` of the envelope schema.
fn tags(def: &str, tag: &str) -> Vec<String> {
    let schema = envelope_schema();
    schema["$defs"][def]["oneOf"]
        .as_array()
        .unwrap_or_else(|| panic!("{def} is a oneOf"))
        .iter()
        .filter_map(|v| v["properties"][tag]["const"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn action_and_result_names_are_the_wire_tags() {
    assert_eq!(tags("Action", "action"), ACTION_NAMES);
    assert_eq!(tags("ActionResult", "action"), ACTION_NAMES);
    assert_eq!(<ActionResult as VariantNames>::VARIANTS, ACTION_NAMES);
}

/// Unit enums: `as_str()` is what serde writes and reads.
fn agree<T>(values: impl Iterator<Item = T>, name: impl Fn(&T) -> String)
where
    T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let mut seen = 0;
    for value in values {
        let wire = serde_json::to_value(&value).expect("serialises");
        assert_eq!(wire, Value::String(name(&value)), "{value:?}");
        assert_eq!(serde_json::from_value::<T>(wire).expect("decodes"), value);
        seen += 1;
    }
    assert!(seen > 0);
}

#[test]
fn unit_enum_names_are_their_wire_names() {
    agree(ErrorCode::known(), |c| c.as_str().to_owned());
    agree(ObstacleType::iter(), |t| t.as_str().to_owned());
    agree(Confidence::iter(), |c| c.as_str().to_owned());
    agree(DialogType::iter(), |t| t.as_str().to_owned());
    agree(WaitState::iter(), |s| s.as_str().to_owned());
    agree(SessionEndReason::iter(), |r| r.as_str().to_owned());
    agree(ConsoleLevel::iter(), |l| l.as_str().to_owned());
}

#[test]
fn confidence_orders_low_medium_high() {
    let levels: Vec<Confidence> = Confidence::iter().collect();
    assert_eq!(
        levels,
        [Confidence::Low, Confidence::Medium, Confidence::High]
    );
    assert!(levels.windows(2).all(|w| w[0] < w[1]));
}
