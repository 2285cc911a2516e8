//! Strict reading of cfx's JSON documents (schemas, models, policies).
//!
//! A credit system that loads a schema with a misspelled key (`"mutabel": false`)
//! must not silently fall back to the default and let a protected attribute
//! change. So every struct cfx reads from JSON refuses unknown keys
//! (`#[serde(deny_unknown_fields)]`, with flat representations where serde's
//! `flatten` would otherwise let unknown keys through), and this module turns
//! serde's error into one that says where the key was found, in the caller's
//! terms: `unknown key 'mutabel' in features[3] ('age').actionability; expected
//! one of: mutable, direction, …`.
//!
//! Every reader goes through [`format_version`] first (a file of another
//! version is refused as such, before its keys are judged) and then
//! [`from_value`].

use crate::error::{Error, Result};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Parses `json` into a JSON value, with serde's line and column on a syntax error.
pub fn parse(json: &str, what: &str) -> Result<Value> {
    serde_json::from_str(json).map_err(|e| Error::Format(format!("{what}: {e}")))
}

/// Import options given as JSON, or the defaults when none are given (a NULL
/// pointer across the C ABI, `None` in Rust). One reader for every importer, so
/// a misspelt option is refused the same way whichever door the model came in;
/// the error is prefixed with `what` (`"ONNX import options"`).
pub fn options_or_default<T: DeserializeOwned + Default>(
    json: Option<&str>,
    what: &str,
) -> Result<T> {
    match json {
        None => Ok(T::default()),
        Some(j) => serde_json::from_str(j).map_err(|e| Error::Format(format!("{what}: {e}"))),
    }
}

/// Reads the required unsigned `key` of the top-level object (a format version).
pub fn format_version(v: &Value, what: &str) -> Result<u32> {
    let obj = v
        .as_object()
        .ok_or_else(|| Error::Format(format!("{what}: expected a JSON object")))?;
    let raw = obj
        .get("format_version")
        .ok_or_else(|| Error::Format(format!("{what}: missing key 'format_version'")))?;
    raw.as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| {
            Error::Format(format!(
                "{what}: format_version must be a small unsigned integer, got {raw}"
            ))
        })
}

/// Deserialises `value` into `T`; an error names where in the document it
/// arose (`features[3] ('age').actionability`) and, for an unknown key, the
/// keys that are allowed there.
pub fn from_value<T: DeserializeOwned>(value: &Value, what: &str) -> Result<T> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let inner = e.inner().to_string();
        let unknown_key = inner.starts_with("unknown field `");
        // serde_path_to_error's path ends with the unknown key itself.
        let place = describe_path(value, e.path(), unknown_key);
        Error::Format(format!("{what}: {}", reword(&inner, &place)))
    })
}

/// `features[3] ('age').actionability`: the path of an error, with the `name`
/// of every array element that has one (so a reader finds the feature
/// without counting); without its last segment when `drop_last`.
fn describe_path(root: &Value, path: &serde_path_to_error::Path, drop_last: bool) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    let mut here = Some(root);
    let segments: Vec<&Segment> = path.iter().collect();
    let keep = segments.len() - usize::from(drop_last && !segments.is_empty());
    for seg in &segments[..keep] {
        match seg {
            Segment::Seq { index } => {
                out.push_str(&format!("[{index}]"));
                here = here.and_then(|v| v.get(*index));
                if let Some(name) = here.and_then(|v| v.get("name")).and_then(Value::as_str) {
                    out.push_str(&format!(" ('{name}')"));
                }
            }
            Segment::Map { key } => {
                here = here.and_then(|v| v.get(key.as_str()));
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    out
}

/// Turns serde's "unknown field `x`, expected one of `a`, `b`, `c`" (or
/// "expected `a` or `b`", "expected `a`", "there are no fields") into cfx's
/// wording; other messages get the place prepended.
fn reword(inner: &str, place: &str) -> String {
    let where_ = if place.is_empty() {
        "the top-level object".to_string()
    } else {
        place.to_string()
    };
    if let Some(rest) = inner.strip_prefix("unknown field `") {
        if let Some((key, tail)) = rest.split_once('`') {
            let tail = tail.trim_start_matches(',').trim();
            let expected = if tail.starts_with("there are no fields") {
                "no keys are allowed here".to_string()
            } else {
                let list = tail
                    .trim_start_matches("expected")
                    .trim()
                    .trim_start_matches("one of")
                    .trim()
                    .replace(" or ", ", ")
                    .replace('`', "");
                format!("expected one of: {list}")
            };
            return format!("unknown key '{key}' in {where_}; {expected}");
        }
    }
    if place.is_empty() {
        inner.to_string()
    } else {
        format!("{place}: {inner}")
    }
}

/// 64-bit FNV-1a of a byte string: tiny, dependency-free and stable; an
/// identity check for audit logs and advice ledgers, not a cryptographic
/// signature.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// `"fnv1a64:<16 hex digits>"` of a document.
pub fn fingerprint(text: &str) -> String {
    format!("fnv1a64:{:016x}", fnv1a64(text.as_bytes()))
}

/// Fingerprint of a schema's canonical JSON ([`crate::schema::Schema::to_json`]).
pub fn schema_fingerprint(schema: &crate::schema::Schema) -> String {
    fingerprint(&schema.to_json())
}

/// Fingerprint of a model's canonical JSON ([`crate::model::AnyModel::to_json`]).
pub fn model_fingerprint(model: &crate::model::AnyModel) -> String {
    fingerprint(&model.to_json())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Inner {
        #[allow(dead_code)]
        a: Option<u32>,
        #[allow(dead_code)]
        b: Option<u32>,
    }
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Item {
        #[allow(dead_code)]
        name: String,
        #[allow(dead_code)]
        inner: Inner,
    }
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Doc {
        #[allow(dead_code)]
        items: Vec<Item>,
    }

    #[test]
    fn unknown_key_is_named_with_its_place_and_the_allowed_keys() {
        let v = parse(
            r#"{"items": [{"name": "x", "inner": {}}, {"name": "age", "inner": {"c": 1}}]}"#,
            "doc",
        )
        .unwrap();
        let e = from_value::<Doc>(&v, "doc").unwrap_err();
        assert_eq!(
            e,
            Error::Format(
                "doc: unknown key 'c' in items[1] ('age').inner; expected one of: a, b".into()
            )
        );
        let v = parse(r#"{"items": [], "itemz": 1}"#, "doc").unwrap();
        let e = from_value::<Doc>(&v, "doc").unwrap_err();
        assert_eq!(
            e,
            Error::Format(
                "doc: unknown key 'itemz' in the top-level object; expected one of: items".into()
            )
        );
    }

    #[test]
    fn other_errors_name_their_place() {
        let v = parse(r#"{"items": [{"name": 3, "inner": {}}]}"#, "doc").unwrap();
        let e = from_value::<Doc>(&v, "doc").unwrap_err().to_string();
        assert!(e.contains("items[0].name: invalid type"), "{e}");
        assert!(matches!(parse("{", "doc"), Err(Error::Format(_))));
        let v = parse(r#"{"format_version": -1}"#, "doc").unwrap();
        assert!(format_version(&v, "doc").is_err());
        let v = parse(r#"{"format_version": 2}"#, "doc").unwrap();
        assert_eq!(format_version(&v, "doc").unwrap(), 2);
        let v = parse(r#"[]"#, "doc").unwrap();
        assert!(format_version(&v, "doc").is_err());
    }
}
