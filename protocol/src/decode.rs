//! Serde errors that name the field (PROTOCOL.md §1, §4: an `invalid_request`
//! message names the field at fault).
//!
//! serde reports a missing field by name but a wrong type, an unknown enum value or
//! an out-of-range number without one (`invalid type: string "3", expected i64`).
//! On such a failure, [`from_object`] decodes once more through
//! `serde_path_to_error`, which records the path while it decodes, and puts the
//! path in front (`clickCount: invalid value: integer `300`, expected u8`).
//!
//! Cost is linear in the message size: one decode on success, two on failure. (An
//! earlier version re-decoded the object once per key to find the culprit, which
//! is quadratic: a 175 KiB `hello` with 12 000 keys took 74 s of CPU.)
//!
//! Without the `field-paths` feature (the wasm extension, which only decodes what
//! the backend already validated) the second decode is left out, and with it a
//! quarter of the wasm; serde's own message is returned as it is.
//!
//! serde's internally tagged enums (`Message` by `type`, `Action` and
//! `ActionResult` by `action`) buffer their input before picking the variant, which
//! hides the path; [`NamedDecode`] lets them pick the variant's struct by the tag
//! and decode that directly on the error path.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// A type [`from_object`] can decode with the failing field named.
pub(crate) trait NamedDecode: DeserializeOwned {
    /// The plain decode of `value` (serde's own error). An internally tagged enum
    /// overrides it to decode the variant's struct by the tag ([`by_tag!`]): the
    /// same outcome without buffering the input, and without serde's buffered
    /// decoder of every variant in a build that needs only this one.
    fn decode(value: &Value) -> Result<Self, serde_json::Error> {
        Self::deserialize(value)
    }

    /// Decodes `value` again after a plain decode failed, naming the field: the
    /// error text prefixed with the path (`files[2]: invalid type…`) when the path
    /// is known. Linear in the size of `value`.
    fn decode_naming_field(value: &Value) -> Result<Self, String> {
        with_path(value)
    }
}

/// Decodes `value` as `T` through `serde_path_to_error`; the error is prefixed with
/// the path unless it is the root (`missing field` errors name the field already).
pub(crate) fn with_path<T: DeserializeOwned>(value: &Value) -> Result<T, String> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        if path == "." {
            inner
        } else {
            format!("{path}: {inner}")
        }
    })
}

/// Deserializes a JSON object into `T`; on failure, the error text, prefixed with
/// the path to the offending field (`clickCount: invalid value: integer `300`,
/// expected u8`) when serde did not name it. A path that starts at a key in `tags`
/// (the union's tag, whose own decoder names the variant) is not prefixed.
pub(crate) fn from_object<T: NamedDecode>(value: &Value, tags: &[&str]) -> Result<T, String> {
    let error = match T::decode(value) {
        Ok(decoded) => return Ok(decoded),
        Err(e) => e.to_string(),
    };
    if error.starts_with("missing field") || !value.is_object() || !cfg!(feature = "field-paths") {
        return Err(error);
    }
    match T::decode_naming_field(value) {
        // The two decoders disagree only for a type whose tag dispatch is
        // incomplete; the plain decoder is the one that counts.
        Ok(_) => Err(error),
        Err(named) => Err(strip_tag_prefix(named, tags)),
    }
}

/// Drops a `tag: ` or `tag.` prefix: errors inside a tag's value are named by that
/// value's own decoder (an event names `session_started: tabId`).
fn strip_tag_prefix(message: String, tags: &[&str]) -> String {
    for tag in tags {
        if let Some(rest) = message.strip_prefix(tag)
            && let Some(rest) = rest.strip_prefix(": ")
        {
            return rest.to_owned();
        }
    }
    message
}

/// The object without its tag key, as serde's internally tagged enums see a variant.
pub(crate) fn without(map: &Map<String, Value>, tag: &str) -> Value {
    let mut map = map.clone();
    map.remove(tag);
    Value::Object(map)
}

/// `match tag { Kind::Variant => decode Variant(Type) … }` for an internally tagged
/// enum of newtype variants: parses the tag with the enum's derived names (`$kind`,
/// strum's `EnumString`) and decodes the variant's struct with its path.
///
/// `by_tag!(variant_plain, untagged; …)` decodes the variant with [`variant_plain`]
/// instead of [`variant_with_path`], and a value without a known tag with
/// [`untagged`] instead of [`with_path`].
macro_rules! by_tag {
    ($value:expr, $tag:literal, $kind:ident => $enum:ident { $($variant:ident($ty:ty),)* }) => {
        $crate::decode::by_tag!(variant_with_path, with_path; $value, $tag, $kind => $enum {
            $($variant($ty),)*
        })
    };
    ($decode:ident, $fallback:ident; $value:expr, $tag:literal, $kind:ident => $enum:ident { $($variant:ident($ty:ty),)* }) => {{
        let Value::Object(map) = $value else {
            return $crate::decode::$fallback($value);
        };
        match map.get($tag).and_then(Value::as_str).and_then(|t| t.parse::<$kind>().ok()) {
            $(Some($kind::$variant) => $crate::decode::$decode::<$ty>($value, map, $tag)
                .map($enum::$variant),)*
            _ => $crate::decode::$fallback($value),
        }
    }};
}

/// A variant's struct from the tagged object `map`, without its tag, through
/// [`with_path`].
pub(crate) fn variant_with_path<T: DeserializeOwned>(
    _: &Value,
    map: &Map<String, Value>,
    tag: &str,
) -> Result<T, String> {
    with_path(&without(map, tag))
}

/// A variant's struct from the tagged object `value` as it is: the tag is one
/// more unknown field, ignored (§1), and nothing is copied.
pub(crate) fn variant_plain<T: DeserializeOwned>(
    value: &Value,
    _: &Map<String, Value>,
    _: &str,
) -> Result<T, serde_json::Error> {
    T::deserialize(value)
}

/// The error of a value that is not an object with a known tag, for
/// [`by_tag!`]'s plain form, whose callers checked the tag first: it keeps the
/// enum's buffered decoder out of the build.
pub(crate) fn untagged<T>(_: &Value) -> Result<T, serde_json::Error> {
    Err(serde::de::Error::custom(
        "expected an object with a known tag",
    ))
}
pub(crate) use by_tag;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Action, ActionResult, Message};
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Sample {
        name: String,
        count: Option<u8>,
        #[serde(default)]
        items: Vec<Item>,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Item {
        n: u32,
    }

    impl NamedDecode for Sample {}

    #[test]
    fn names_the_field() {
        let bad = serde_json::json!({"name": "x", "count": 300});
        let e = from_object::<Sample>(&bad, &[]).unwrap_err();
        assert!(e.starts_with("count: invalid value: integer `300`"), "{e}");
        let bad = serde_json::json!({"name": 7});
        let e = from_object::<Sample>(&bad, &[]).unwrap_err();
        assert!(e.starts_with("name: invalid type"), "{e}");
        let missing = serde_json::json!({});
        assert_eq!(
            from_object::<Sample>(&missing, &[]).unwrap_err(),
            "missing field `name`"
        );
        assert!(from_object::<Sample>(&serde_json::json!({"name": "ok"}), &[]).is_ok());
    }

    #[test]
    fn names_a_nested_field_by_its_path() {
        let bad = serde_json::json!({"name": "x", "items": [{"n": 1}, {"n": "2"}]});
        let e = from_object::<Sample>(&bad, &[]).unwrap_err();
        assert!(e.starts_with("items[1].n: invalid type: string"), "{e}");
    }

    #[test]
    fn names_the_field_among_many_keys_in_tagged_unions() {
        let mut map = Map::new();
        for i in 0..20_000 {
            map.insert(format!("k{i}"), Value::from("v"));
        }
        let mut action = map.clone();
        action.insert("action".into(), "click".into());
        action.insert("selector".into(), "#a".into());
        action.insert("clickCount".into(), "2".into());
        let e = from_object::<Action>(&Value::Object(action), &["action"]).unwrap_err();
        assert!(e.starts_with("clickCount: invalid type: string"), "{e}");

        let mut result = map.clone();
        result.insert("action".into(), "navigate".into());
        result.insert("tabId".into(), "one".into());
        result.insert("url".into(), "https://a.test/".into());
        result.insert("title".into(), "A".into());
        let e = from_object::<ActionResult>(&Value::Object(result), &["action"]).unwrap_err();
        assert!(e.starts_with("tabId: invalid type: string"), "{e}");

        let mut hello = map;
        hello.insert("type".into(), "hello".into());
        hello.insert("protocolVersion".into(), "4".into());
        hello.insert("extensionVersion".into(), "1".into());
        hello.insert("clientId".into(), "c".into());
        let e = from_object::<Message>(&Value::Object(hello), &["type"]).unwrap_err();
        assert!(
            e.starts_with("protocolVersion: invalid type: string"),
            "{e}"
        );
    }

    #[test]
    fn a_tag_key_is_not_blamed() {
        assert_eq!(
            strip_tag_prefix(
                "event: session_started: tabId: bad".into(),
                &["type", "event"]
            ),
            "session_started: tabId: bad"
        );
        assert_eq!(
            strip_tag_prefix("eventual: x".into(), &["event"]),
            "eventual: x"
        );
    }
}
