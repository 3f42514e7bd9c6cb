//! Every string of a serialisable value with its field path, visited straight from
//! `Serialize` without building an intermediate value: the placeholder rule looks at all
//! of the spec on every keystroke and every API call, so it must not allocate a tree.
//! Paths read like the JSON of the value: `a.b[2]`, and `["key with dots"]` for keys that
//! are not plain identifiers. A path is kept as the steps that lead to the string and is
//! written out only when the caller asks for it, which is rarely.

use std::fmt;

use serde::ser::{self, Serialize};

use super::push_key;

/// Calls `visit(path, text)` for every string in `value` (map keys excepted).
pub(crate) fn each_string<T: Serialize + ?Sized>(
    value: &T,
    visit: &mut dyn FnMut(&StringPath, &str),
) {
    // Deep enough for the spec's deepest strings (a Karpenter requirement's values).
    let mut path = StringPath {
        steps: Vec::with_capacity(12),
        keys: String::new(),
    };
    // Only `Unsupported` can fail, and the spec holds nothing unsupported.
    let _ = value.serialize(Walker {
        path: &mut path,
        visit,
    });
}

/// Where a string sits; `Display` writes it as a field path (`a.b[2]`).
pub(crate) struct StringPath {
    steps: Vec<PathStep>,
    /// The text of the map keys among `steps`, one after another.
    keys: String,
}

#[derive(Clone, Copy)]
enum PathStep {
    Field(&'static str),
    Index(usize),
    /// A map key: `keys[start..end]`.
    Key {
        start: usize,
        end: usize,
    },
}

impl StringPath {
    fn push(&mut self, step: Step<'_>) {
        let step = match step {
            Step::Field(name) => PathStep::Field(name),
            Step::Index(index) => PathStep::Index(index),
            Step::Key(key) => {
                let start = self.keys.len();
                self.keys.push_str(key);
                PathStep::Key {
                    start,
                    end: self.keys.len(),
                }
            }
        };
        self.steps.push(step);
    }

    /// Undoes every `push` since the path had `depth` steps.
    fn truncate(&mut self, depth: usize) {
        if let Some(PathStep::Key { start, .. }) = self.steps.get(depth..).and_then(|dropped| {
            dropped
                .iter()
                .find(|step| matches!(step, PathStep::Key { .. }))
        }) {
            self.keys.truncate(*start);
        }
        self.steps.truncate(depth);
    }
}

impl StringPath {
    /// The path as text, `a.b[2]`.
    pub(crate) fn render(&self) -> String {
        let mut path = String::with_capacity(self.steps.len() * 12 + self.keys.len());
        for step in &self.steps {
            match *step {
                // Field names are Rust identifiers or camelCase renames: never quoted.
                PathStep::Field(name) => {
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(name);
                }
                PathStep::Key { start, end } => push_key(&mut path, &self.keys[start..end]),
                PathStep::Index(index) => {
                    use std::fmt::Write;
                    let _ = write!(path, "[{index}]");
                }
            }
        }
        path
    }
}

impl fmt::Display for StringPath {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.render())
    }
}

/// Raised for nothing the spec holds; serde requires an error type.
#[derive(Debug)]
pub(crate) struct Unsupported;

impl std::fmt::Display for Unsupported {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("unsupported value")
    }
}

impl std::error::Error for Unsupported {}

impl ser::Error for Unsupported {
    fn custom<M: std::fmt::Display>(_: M) -> Unsupported {
        Unsupported
    }
}

struct Walker<'a> {
    path: &'a mut StringPath,
    visit: &'a mut dyn FnMut(&StringPath, &str),
}

impl Walker<'_> {
    fn reborrow(&mut self) -> Walker<'_> {
        Walker {
            path: self.path,
            visit: self.visit,
        }
    }

    /// Serialises `value` one level down, under `key` or `[index]`.
    fn child<T: Serialize + ?Sized>(&mut self, step: Step<'_>, value: &T) {
        let depth = self.path.steps.len();
        self.path.push(step);
        let _ = value.serialize(self.reborrow());
        self.path.truncate(depth);
    }
}

enum Step<'k> {
    Field(&'static str),
    Key(&'k str),
    Index(usize),
}

macro_rules! ignore {
    ($($method:ident: $type:ty),* $(,)?) => {
        $(fn $method(self, _: $type) -> Result<(), Unsupported> { Ok(()) })*
    };
}

impl<'a> ser::Serializer for Walker<'a> {
    type Ok = ();
    type Error = Unsupported;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    ignore!(
        serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
        serialize_u64: u64, serialize_f32: f32, serialize_f64: f64, serialize_char: char,
        serialize_bytes: &[u8], serialize_unit_struct: &'static str,
    );

    fn serialize_str(self, text: &str) -> Result<(), Unsupported> {
        (self.visit)(self.path, text);
        Ok(())
    }
    fn serialize_none(self) -> Result<(), Unsupported> {
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Unsupported> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Unsupported> {
        Ok(())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), Unsupported> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Unsupported> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        mut self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Unsupported> {
        self.child(Step::Field(variant), value);
        Ok(())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Compound<'a>, Unsupported> {
        Ok(Compound::new(self))
    }
    fn serialize_tuple(self, _: usize) -> Result<Compound<'a>, Unsupported> {
        Ok(Compound::new(self))
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Compound<'a>, Unsupported> {
        Ok(Compound::new(self))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'a>, Unsupported> {
        Ok(Compound::nested(self, variant))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Compound<'a>, Unsupported> {
        Ok(Compound::new(self))
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Compound<'a>, Unsupported> {
        Ok(Compound::new(self))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'a>, Unsupported> {
        Ok(Compound::nested(self, variant))
    }
}

/// A sequence, map or struct being walked: the next index, or the key just read.
struct Compound<'a> {
    walker: Walker<'a>,
    /// Path depth to restore at the end (variants add their name).
    restore: usize,
    index: usize,
    key: String,
}

impl<'a> Compound<'a> {
    fn new(walker: Walker<'a>) -> Compound<'a> {
        let restore = walker.path.steps.len();
        Compound {
            walker,
            restore,
            index: 0,
            key: String::new(),
        }
    }

    fn nested(walker: Walker<'a>, variant: &'static str) -> Compound<'a> {
        let restore = walker.path.steps.len();
        walker.path.push(Step::Field(variant));
        Compound {
            walker,
            restore,
            index: 0,
            key: String::new(),
        }
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        self.walker.child(Step::Index(self.index), value);
        self.index += 1;
        Ok(())
    }

    fn end(self) -> Result<(), Unsupported> {
        self.walker.path.truncate(self.restore);
        Ok(())
    }
}

impl ser::SerializeSeq for Compound<'_> {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        self.element(value)
    }
    fn end(self) -> Result<(), Unsupported> {
        Compound::end(self)
    }
}

impl ser::SerializeTuple for Compound<'_> {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        self.element(value)
    }
    fn end(self) -> Result<(), Unsupported> {
        Compound::end(self)
    }
}

impl ser::SerializeTupleStruct for Compound<'_> {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        self.element(value)
    }
    fn end(self) -> Result<(), Unsupported> {
        Compound::end(self)
    }
}

impl ser::SerializeTupleVariant for Compound<'_> {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        self.element(value)
    }
    fn end(self) -> Result<(), Unsupported> {
        Compound::end(self)
    }
}

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Unsupported> {
        self.key.clear();
        key.serialize(KeyText(&mut self.key))
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        let key = std::mem::take(&mut self.key);
        self.walker.child(Step::Key(&key), value);
        self.key = key;
        Ok(())
    }
    fn end(self) -> Result<(), Unsupported> {
        Compound::end(self)
    }
}

impl ser::SerializeStruct for Compound<'_> {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Unsupported> {
        self.walker.child(Step::Field(key), value);
        Ok(())
    }
    fn end(self) -> Result<(), Unsupported> {
        Compound::end(self)
    }
}

impl ser::SerializeStructVariant for Compound<'_> {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Unsupported> {
        self.walker.child(Step::Field(key), value);
        Ok(())
    }
    fn end(self) -> Result<(), Unsupported> {
        Compound::end(self)
    }
}

/// Writes a map key as text: strings as they are, numbers and booleans as JSON writes
/// them; other keys are unsupported (JSON cannot hold them either).
struct KeyText<'a>(&'a mut String);

macro_rules! key_display {
    ($($method:ident: $type:ty),* $(,)?) => {
        $(fn $method(self, value: $type) -> Result<(), Unsupported> {
            use std::fmt::Write;
            let _ = write!(self.0, "{value}");
            Ok(())
        })*
    };
}

impl ser::Serializer for KeyText<'_> {
    type Ok = ();
    type Error = Unsupported;
    type SerializeSeq = ser::Impossible<(), Unsupported>;
    type SerializeTuple = ser::Impossible<(), Unsupported>;
    type SerializeTupleStruct = ser::Impossible<(), Unsupported>;
    type SerializeTupleVariant = ser::Impossible<(), Unsupported>;
    type SerializeMap = ser::Impossible<(), Unsupported>;
    type SerializeStruct = ser::Impossible<(), Unsupported>;
    type SerializeStructVariant = ser::Impossible<(), Unsupported>;

    key_display!(
        serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
        serialize_u64: u64, serialize_f32: f32, serialize_f64: f64, serialize_char: char,
        serialize_str: &str,
    );

    fn serialize_bytes(self, _: &[u8]) -> Result<(), Unsupported> {
        Err(Unsupported)
    }
    fn serialize_none(self) -> Result<(), Unsupported> {
        Err(Unsupported)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Unsupported> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Unsupported> {
        Err(Unsupported)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Unsupported> {
        Err(Unsupported)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), Unsupported> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Unsupported> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Unsupported> {
        Err(Unsupported)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Unsupported> {
        Err(Unsupported)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Unsupported> {
        Err(Unsupported)
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Unsupported> {
        Err(Unsupported)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Unsupported> {
        Err(Unsupported)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Unsupported> {
        Err(Unsupported)
    }
    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStruct, Unsupported> {
        Err(Unsupported)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Unsupported> {
        Err(Unsupported)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::push_key;

    /// The same walk over the spec's JSON value: what the paths must equal.
    fn through_json(value: &serde_json::Value, path: &mut String, out: &mut Vec<(String, String)>) {
        match value {
            serde_json::Value::String(text) => out.push((path.clone(), text.clone())),
            serde_json::Value::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    let length = path.len();
                    path.push_str(&format!("[{index}]"));
                    through_json(item, path, out);
                    path.truncate(length);
                }
            }
            serde_json::Value::Object(fields) => {
                for (key, item) in fields {
                    let length = path.len();
                    push_key(path, key);
                    through_json(item, path, out);
                    path.truncate(length);
                }
            }
            _ => {}
        }
    }

    fn walked(spec: &crate::Spec) -> Vec<(String, String)> {
        let mut found = Vec::new();
        each_string(spec, &mut |path, text| {
            found.push((path.to_string(), text.to_owned()))
        });
        found.sort();
        found
    }

    fn expected(spec: &crate::Spec) -> Vec<(String, String)> {
        let mut found = Vec::new();
        through_json(
            &serde_json::to_value(spec).unwrap(),
            &mut String::new(),
            &mut found,
        );
        found.sort();
        found
    }

    #[test]
    fn every_template_walks_like_its_json() {
        for template in crate::TEMPLATES {
            let spec = template.spec();
            assert_eq!(walked(&spec), expected(&spec), "{}", template.id);
        }
        let sized = crate::templates::sized_spec(8, 2);
        assert_eq!(walked(&sized), expected(&sized));
    }

    #[test]
    fn imported_keys_and_odd_map_keys_walk_like_json() {
        let text = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: a\n  annotations:\n    example.com/x y: PLACEHOLDER_A\nspec:\n  template:\n    metadata:\n      labels:\n        team.example.com/name: ml\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: a}\n      requirements: []\n      startupTaints:\n        - {key: k, effect: NoSchedule}\n  limits:\n    cpu: 10\n";
        let documents = crate::yaml::source::parse_documents(text).unwrap();
        let values: Vec<_> = documents
            .into_iter()
            .map(|document| document.to_value())
            .collect();
        let imported = crate::documents::import::import_karpenter(&values).unwrap();
        let spec = crate::Spec {
            karpenter: Some(imported.settings),
            ..crate::template("g4dn").unwrap().spec()
        };
        let found = walked(&spec);
        assert_eq!(found, expected(&spec));
        assert!(
            found.iter().any(|(path, text)| text == "PLACEHOLDER_A"
                && path.ends_with(r#"metadata.annotations["example.com/x y"]"#)),
            "{found:?}"
        );
    }
}
