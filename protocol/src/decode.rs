//! Serde errors that name the field (PROTOCOL.md §1, §4: an `invalid_request`
//! message names the field at fault).
//!
//! serde reports a missing field by name but a wrong type, an unknown enum value or
//! an out-of-range number without one (`invalid type: string "3", expected i64`).
//! On such a failure, [`from_object`] finds the key whose removal changes the error
//! and puts its name in front. Only the error path pays for the search.

use serde::de::DeserializeOwned;
use serde_json::Value;

/// Deserializes a JSON object into `T`; on failure, the error text, prefixed with
/// the offending key (`clickCount: invalid value: integer `300`, expected u8`) when
/// serde did not name it. Keys in `tags` (the union's tag) are never blamed.
pub(crate) fn from_object<T: DeserializeOwned>(value: &Value, tags: &[&str]) -> Result<T, String> {
    let error = match T::deserialize(value) {
        Ok(decoded) => return Ok(decoded),
        Err(e) => e.to_string(),
    };
    let Value::Object(map) = value else {
        return Err(error);
    };
    if error.starts_with("missing field") {
        return Err(error);
    }
    for key in map.keys().filter(|k| !tags.contains(&k.as_str())) {
        let mut without = map.clone();
        without.remove(key);
        match T::deserialize(&Value::Object(without)) {
            Err(e) if e.to_string() == error => {}
            _ => return Err(format!("{key}: {error}")),
        }
    }
    Err(error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Sample {
        name: String,
        count: Option<u8>,
    }

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
}
