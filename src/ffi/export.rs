//! Versioned result JSON, shared by every method's `cfx_<noun>_to_json`.
//!
//! An audit log must read the same whichever language wrote it, so the bytes
//! depend only on the inputs: keys in a fixed order (struct order, then
//! serde_json's sorted maps), numbers in serde_json's shortest round-trip
//! form, and the inputs identified by fingerprints of their canonical JSON.

use crate::model::AnyModel;
use crate::schema::Schema;
use serde::Serialize;

/// Version of the result envelope (bump when its fields change meaning).
pub const RESULT_FORMAT_VERSION: u32 = 1;

pub use crate::json::{fingerprint, fnv1a64, model_fingerprint, schema_fingerprint};

/// What produced a result.
#[derive(Debug, Clone, Default)]
pub struct Provenance<'a> {
    pub schema: Option<&'a Schema>,
    pub model: Option<&'a AnyModel>,
    /// Fingerprints of further inputs (e.g. `("config", fingerprint(..))`).
    pub extra_inputs: Vec<(String, String)>,
    /// The seed of every random step, when there were any.
    pub seed: Option<u64>,
}

#[derive(Serialize)]
struct Envelope<'a, T: Serialize> {
    format: &'static str,
    result_format_version: u32,
    cfx_version: &'static str,
    kind: &'a str,
    inputs: std::collections::BTreeMap<String, String>,
    seed: Option<u64>,
    result: &'a T,
}

/// The envelope every result is exported in:
/// `{"format":"cfx-result","result_format_version":1,"cfx_version":..,
/// "kind":..,"inputs":{"model":"fnv1a64:..","schema":"fnv1a64:.."},"seed":..,"result":{..}}`
/// (pretty-printed). `result` carries the method's own fields, including its
/// certificates (solver status, gap, bounds, confidence).
pub fn result_json<T: Serialize>(
    kind: &str,
    provenance: &Provenance,
    result: &T,
) -> crate::Result<String> {
    let mut inputs = std::collections::BTreeMap::new();
    if let Some(s) = provenance.schema {
        inputs.insert("schema".to_string(), schema_fingerprint(s));
    }
    if let Some(m) = provenance.model {
        inputs.insert("model".to_string(), model_fingerprint(m));
    }
    for (k, v) in &provenance.extra_inputs {
        inputs.insert(k.clone(), v.clone());
    }
    let env = Envelope {
        format: "cfx-result",
        result_format_version: RESULT_FORMAT_VERSION,
        cfx_version: env!("CARGO_PKG_VERSION"),
        kind,
        inputs,
        seed: provenance.seed,
        result,
    };
    Ok(serde_json::to_string_pretty(&env)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_reference_values() {
        // Reference values of the FNV-1a 64 specification (isthe.com/chongo/tech/comp/fnv).
        assert_eq!(fnv1a64(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a64(b"a"), 0xaf63dc4c8601ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x85944171f73967e8);
    }

    #[test]
    fn envelope_is_stable_and_versioned() {
        let schema = crate::schema::Schema::new(vec![crate::schema::Feature::contiguous(
            "income", 0.0, 10.0,
        )])
        .unwrap();
        let p = Provenance {
            schema: Some(&schema),
            seed: Some(7),
            ..Default::default()
        };
        let a = result_json("test", &p, &serde_json::json!({"b": 1.5, "a": [1, 2]})).unwrap();
        let b = result_json("test", &p, &serde_json::json!({"a": [1, 2], "b": 1.5})).unwrap();
        assert_eq!(a, b);
        let v: serde_json::Value = serde_json::from_str(&a).unwrap();
        assert_eq!(v["format"], "cfx-result");
        assert_eq!(v["result_format_version"], 1);
        assert_eq!(v["cfx_version"], env!("CARGO_PKG_VERSION"));
        assert_eq!(v["seed"], 7);
        assert_eq!(v["inputs"]["schema"], schema_fingerprint(&schema));
        assert!(a.find("\"format\"").unwrap() < a.find("\"result\"").unwrap());
    }
}
