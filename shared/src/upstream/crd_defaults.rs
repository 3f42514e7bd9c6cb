//! What the API server fills in from a CRD's schema (`default:` in `openAPIV3Schema`)
//! when an object is stored, and the way back: a NodePool applied without a `disruption`
//! reads back with `consolidationPolicy: WhenEmptyOrUnderutilized`, `consolidateAfter: 0s`
//! and `budgets: [{nodes: 10%}]`, and `template.spec.expireAfter: 720h`.
//!
//! The API server's structural defaulting (apiextensions-apiserver,
//! `pkg/apiserver/schema/defaulting`): in every object, a property the schema gives a
//! default and the object lacks gets it; then each property (defaulted or not) and each
//! item of an array is defaulted by its own schema, so defaults inside defaults apply too.

use serde_json::Value as Json;
use yaml_serde::Value;

fn properties(schema: &Json) -> Option<&serde_json::Map<String, Json>> {
    schema.get("properties")?.as_object()
}

fn to_yaml(json: &Json) -> Value {
    yaml_serde::to_value(json).unwrap_or(Value::Null)
}

/// `value` as the API server stores it under `schema`: every default it lacks filled in.
pub fn with_defaults(value: &Value, schema: &Json) -> Value {
    match value {
        Value::Mapping(mapping) => {
            let mut out = mapping.clone();
            if let Some(properties) = properties(schema) {
                for (key, property) in properties {
                    if let Some(default) = property.get("default")
                        && !out.contains_key(key.as_str())
                    {
                        out.insert(Value::from(key.as_str()), to_yaml(default));
                    }
                }
                for (key, entry) in out.iter_mut() {
                    if let Some(property) = key.as_str().and_then(|key| properties.get(key)) {
                        *entry = with_defaults(entry, property);
                    }
                }
            }
            Value::Mapping(out)
        }
        Value::Sequence(items) => match schema.get("items") {
            Some(item_schema) => Value::Sequence(
                items
                    .iter()
                    .map(|item| with_defaults(item, item_schema))
                    .collect(),
            ),
            None => value.clone(),
        },
        _ => value.clone(),
    }
}

/// `read` (as the API server answers) without what the API server filled in because
/// `written` (the object as applied) left it out: a property that `written` lacks and
/// whose value is the schema's default for it, looked for at every depth. `None` for
/// `written` means the whole value was left out. What the defaults cannot explain stays.
pub fn without_defaults(read: &Value, written: Option<&Value>, schema: &Json) -> Value {
    match (read, written) {
        (Value::Mapping(read_mapping), written) => {
            let written = written.and_then(Value::as_mapping);
            let properties = properties(schema);
            let mut out = yaml_serde::Mapping::new();
            for (key, entry) in read_mapping {
                let property = key
                    .as_str()
                    .and_then(|key| properties.and_then(|properties| properties.get(key)));
                let written_entry = written.and_then(|written| written.get(key));
                let Some(property) = property else {
                    out.insert(key.clone(), entry.clone());
                    continue;
                };
                let entry = without_defaults(entry, written_entry, property);
                if written_entry.is_none()
                    && let Some(default) = property.get("default")
                    && with_defaults(&to_yaml(default), property) == with_defaults(&entry, property)
                {
                    continue;
                }
                out.insert(key.clone(), entry);
            }
            Value::Mapping(out)
        }
        (Value::Sequence(items), written) => match schema.get("items") {
            Some(item_schema) => {
                let written = written.and_then(Value::as_sequence);
                Value::Sequence(
                    items
                        .iter()
                        .enumerate()
                        .map(|(index, item)| {
                            without_defaults(
                                item,
                                written.and_then(|written| written.get(index)),
                                item_schema,
                            )
                        })
                        .collect(),
                )
            }
            None => read.clone(),
        },
        _ => read.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node_pool_schema() -> &'static Json {
        let typed: Value =
            yaml_serde::from_str("{apiVersion: karpenter.sh/v1, kind: NodePool}").unwrap();
        crate::upstream::schema_check::karpenter_schema(&typed)
            .unwrap()
            .0
    }

    const APPLIED: &str = "
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}
      requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [spot]}]
";

    #[test]
    fn a_nodepool_without_disruption_is_stored_with_karpenters_defaults() {
        let applied: Value = yaml_serde::from_str(APPLIED).unwrap();
        let stored = with_defaults(&applied, node_pool_schema());
        let disruption = &stored["spec"]["disruption"];
        assert_eq!(disruption["consolidateAfter"], "0s");
        assert_eq!(
            disruption["consolidationPolicy"],
            "WhenEmptyOrUnderutilized"
        );
        assert_eq!(disruption["budgets"][0]["nodes"], "10%");
        assert_eq!(stored["spec"]["template"]["spec"]["expireAfter"], "720h");
        // And back: what the defaults explain is no difference from what was applied.
        assert_eq!(
            without_defaults(&stored, Some(&applied), node_pool_schema()),
            applied
        );
    }

    #[test]
    fn a_value_the_defaults_do_not_explain_stays() {
        let applied: Value = yaml_serde::from_str(APPLIED).unwrap();
        let mut stored = with_defaults(&applied, node_pool_schema());
        stored["spec"]["disruption"]["consolidationPolicy"] = Value::from("WhenEmpty");
        stored["spec"]["template"]["spec"]["expireAfter"] = Value::from("Never");
        let read = without_defaults(&stored, Some(&applied), node_pool_schema());
        assert_eq!(
            read["spec"]["disruption"]["consolidationPolicy"],
            "WhenEmpty"
        );
        assert_eq!(read["spec"]["template"]["spec"]["expireAfter"], "Never");
        // A default the design writes out itself is the design's, kept.
        let mut written = applied.clone();
        written["spec"]["template"]["spec"]["expireAfter"] = Value::from("720h");
        let stored = with_defaults(&written, node_pool_schema());
        let read = without_defaults(&stored, Some(&written), node_pool_schema());
        assert_eq!(read["spec"]["template"]["spec"]["expireAfter"], "720h");
    }
}
