//! The upstream schema files as the `jsonschema` crate reads them: an independent check
//! that rendered documents are valid for eksctl and the Kubernetes API server.
#![allow(dead_code)]

use std::path::Path;

use serde_json::{Map, Value as Json};

pub fn schemas_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/schemas")
}

/// eksctl's `ClusterConfig` JSON schema, as published except that `|` in `$ref`s is
/// percent-encoded: eksctl names definitions after Go packages (`github.com|aws|…`), and
/// `jsonschema` rightly refuses a `$ref` that is not a URI reference. Same pointers.
pub fn cluster_config_schema() -> Json {
    let text =
        std::fs::read_to_string(schemas_dir().join("eksctl-clusterconfig-v1alpha5.schema.json"))
            .unwrap();
    let mut schema: Json = serde_json::from_str(&text).unwrap();
    encode_refs(&mut schema);
    schema
}

pub fn encode_refs(schema: &mut Json) {
    match schema {
        Json::Object(object) => {
            for (keyword, value) in object.iter_mut() {
                match value {
                    Json::String(reference) if keyword == "$ref" => {
                        *reference = reference.replace('|', "%7C");
                    }
                    _ => encode_refs(value),
                }
            }
        }
        Json::Array(items) => items.iter_mut().for_each(encode_refs),
        _ => {}
    }
}

/// The `v1` OpenAPI schema of a CRD file in `tests/data/schemas/`, as JSON Schema.
///
/// OpenAPI v3 schemas of CRDs mostly are JSON Schema; the `x-kubernetes-*` extensions are
/// dropped (int-or-string fields already carry an `anyOf` of both types). With `strict`,
/// every object that lists `properties` and does not preserve unknown fields is closed
/// with `additionalProperties: false`, so a key the API server would prune is an error.
pub fn crd_json_schema(crd_file: &str, strict: bool) -> Json {
    let text = std::fs::read_to_string(schemas_dir().join(crd_file)).unwrap();
    let crd: Json = yaml_serde::from_str(&text).unwrap();
    let v1 = crd["spec"]["versions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|version| version["name"] == "v1")
        .unwrap();
    to_json_schema(&v1["schema"]["openAPIV3Schema"], strict)
}

pub fn to_json_schema(schema: &Json, strict: bool) -> Json {
    match schema {
        Json::Object(object) => {
            let mut converted: Map<String, Json> = object
                .iter()
                .filter(|(keyword, _)| !keyword.starts_with("x-kubernetes-"))
                .map(|(keyword, value)| {
                    let value = match keyword.as_str() {
                        // Names of properties and enum values are data, not schemas.
                        "properties" => Json::Object(
                            value
                                .as_object()
                                .unwrap()
                                .iter()
                                .map(|(name, schema)| {
                                    (name.clone(), to_json_schema(schema, strict))
                                })
                                .collect(),
                        ),
                        "enum" | "required" | "default" | "example" => value.clone(),
                        _ => to_json_schema(value, strict),
                    };
                    (keyword.clone(), value)
                })
                .collect();
            let preserves_unknown =
                object.get("x-kubernetes-preserve-unknown-fields") == Some(&Json::Bool(true));
            if strict
                && object.contains_key("properties")
                && !object.contains_key("additionalProperties")
                && !preserves_unknown
            {
                converted.insert("additionalProperties".to_owned(), Json::Bool(false));
            }
            Json::Object(converted)
        }
        Json::Array(items) => Json::Array(
            items
                .iter()
                .map(|item| to_json_schema(item, strict))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Every error `jsonschema` finds in the YAML document `text` against `schema`, as
/// `instance path: message` (the YAML is converted to JSON the way Kubernetes does).
pub fn upstream_errors(schema: &Json, text: &str) -> Vec<String> {
    let instance: Json = yaml_serde::from_str(text).unwrap();
    let validator = jsonschema::validator_for(schema).unwrap();
    validator
        .iter_errors(&instance)
        .map(|error| format!("{}: {error}", error.instance_path()))
        .collect()
}
