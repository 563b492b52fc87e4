//! A free-form member held as its compact JSON text.

use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

/// A free-form member (a tile's `config`, a pipe's settings and mappings) held as its compact
/// JSON text. A large estate's live tiles and pipes, each a JSON tree of a few dozen small
/// maps, took more memory than anything else a plan reads; the text is a tenth of that and one
/// allocation. Readers parse it with [`CompactJson::value`] one object at a time. The text is
/// written from the tree read (keys sorted, no spaces), so it reads, compares and writes exactly
/// as the tree did, unknown members included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactJson(Box<str>);

impl CompactJson {
    /// Holds `value`'s compact text.
    pub fn new(value: &Value) -> Self {
        CompactJson(value.to_string().into_boxed_str())
    }

    /// The config as a JSON tree, for a reader to look into and drop.
    pub fn value(&self) -> Value {
        // The text was written from a `Value`, which always reads back; `Null` is never
        // reached.
        serde_json::from_str(&self.0).unwrap_or(Value::Null)
    }

    /// Member `key` of the config when it is an object.
    pub fn get(&self, key: &str) -> Option<Value> {
        match self.value() {
            Value::Object(mut object) => object.remove(key),
            _ => None,
        }
    }

    /// Whether the config is JSON `null`.
    pub fn is_null(&self) -> bool {
        &*self.0 == "null"
    }
}

impl From<Value> for CompactJson {
    fn from(value: Value) -> Self {
        CompactJson::new(&value)
    }
}

impl Serialize for CompactJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Through the tree, so every serializer (not only JSON's) writes what it wrote before.
        self.value().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for CompactJson {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(|value| CompactJson::new(&value))
    }
}
