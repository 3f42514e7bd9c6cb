//! The CRDs' own validation rules (`x-kubernetes-validations`), evaluated as the Kubernetes
//! API server evaluates them on create: with a CEL interpreter, `self` bound to the value
//! at the rule's place with the schema's defaults applied first.
//!
//! The rules come with the embedded CRD schemas, so a CRD update brings its rules along.
//! Transition rules (those that read `oldSelf`) only run on updates and are skipped: a file
//! is always a create here. The Kubernetes CEL libraries the CRDs call beyond standard CEL
//! (`split` from the strings library, `find` from the regex library) are defined here; a
//! test compiles and runs every embedded rule, so a CRD that starts calling another one
//! fails a test rather than a user's lint.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use cel::extractors::This;
use cel::objects::{Key, Map as CelMap};
use cel::{Context, ExecutionError, FunctionContext, Program, ResolveResult, Value as Cel};
use serde_json::{Map, Value as Json};
use yaml_serde::Value;

use crate::yaml::node::{Kind, Node};

/// A rule that the value at some place broke.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct BrokenRule {
    /// The CRD's message for it.
    pub message: String,
    /// The rule's `fieldPath` (`.spec.foo`), relative to the place, when it names one.
    pub field_path: Option<String>,
    /// The rule itself, for the finding's text.
    pub rule: String,
}

/// The rules of `schema` (one node of a CRD schema) that `value` breaks.
pub(crate) fn broken_rules(schema: &Map<String, Json>, value: Node<'_>) -> Vec<BrokenRule> {
    let Some(Json::Array(rules)) = schema.get("x-kubernetes-validations") else {
        return Vec::new();
    };
    let bound = with_defaults(schema, value);
    let mut broken = Vec::new();
    for entry in rules {
        let Some(rule) = entry.get("rule").and_then(Json::as_str) else {
            continue;
        };
        if rule.contains("oldSelf") {
            continue;
        }
        let failure = match evaluate(rule, &bound) {
            Ok(true) => continue,
            Ok(false) => None,
            Err(reason) => Some(reason),
        };
        let message = entry
            .get("message")
            .and_then(Json::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| format!("failed rule: {rule}"));
        let message = match failure {
            None => message,
            // The API server refuses an object whose rule cannot be evaluated, too.
            Some(reason) => format!("{message} (the rule could not be evaluated: {reason})"),
        };
        broken.push(BrokenRule {
            message,
            field_path: entry
                .get("fieldPath")
                .and_then(Json::as_str)
                .map(str::to_owned),
            rule: rule.to_owned(),
        });
    }
    broken
}

/// Runs one rule with `self` bound to `value`: whether it holds, or why it could not run.
pub(crate) fn evaluate(rule: &str, value: &Cel) -> Result<bool, String> {
    let program = compiled(rule)?;
    BASE.with(|base| {
        let mut scope = base.new_inner_scope();
        scope.add_variable_from_value("self", value.clone());
        match program.execute(&scope) {
            Ok(Cel::Bool(holds)) => Ok(holds),
            Ok(other) => Err(format!("it gave {other:?}, not a boolean")),
            Err(error) => Err(describe(&error)),
        }
    })
}

fn describe(error: &ExecutionError) -> String {
    match error {
        ExecutionError::NoSuchKey(key) => format!("no such key: {key}"),
        other => other.to_string(),
    }
}

thread_local! {
    /// Standard CEL plus the Kubernetes library functions the CRDs call.
    static BASE: Context<'static> = {
        let mut context = Context::default();
        context.add_function("split", split);
        context.add_function("find", find);
        context
    };
    static PROGRAMS: RefCell<HashMap<String, Rc<Program>>> = RefCell::new(HashMap::new());
}

fn compiled(rule: &str) -> Result<Rc<Program>, String> {
    PROGRAMS.with(|programs| {
        if let Some(program) = programs.borrow().get(rule) {
            return Ok(Rc::clone(program));
        }
        let program = Rc::new(
            Program::compile(rule).map_err(|error| format!("the rule does not parse: {error}"))?,
        );
        programs
            .borrow_mut()
            .insert(rule.to_owned(), Rc::clone(&program));
        Ok(program)
    })
}

/// Kubernetes' `<string>.split(<string>) -> list(string)`.
fn split(
    _: &FunctionContext,
    This(text): This<Arc<String>>,
    separator: Arc<String>,
) -> ResolveResult {
    let parts = text
        .split(separator.as_str())
        .map(|part| Cel::String(Arc::new(part.to_owned())))
        .collect();
    Ok(Cel::List(Arc::new(parts)))
}

/// Kubernetes' `<string>.find(<regex>) -> string`: the first match, or `""`.
fn find(
    context: &FunctionContext,
    This(text): This<Arc<String>>,
    pattern: Arc<String>,
) -> ResolveResult {
    let regex = regex(&pattern)
        .ok_or_else(|| context.error(format!("'{pattern}' is not a valid regular expression")))?;
    let found = regex.find(&text).map(|found| found.as_str()).unwrap_or("");
    Ok(Cel::String(Arc::new(found.to_owned())))
}

/// `value` as CEL sees it after the API server's defaulting: absent properties with a
/// schema `default` are filled in, at every level, defaults included.
pub(crate) fn with_defaults(schema: &Map<String, Json>, value: Node<'_>) -> Cel {
    match value.untagged().kind() {
        Kind::Null => Cel::Null,
        Kind::Bool(boolean) => Cel::Bool(boolean),
        Kind::Number(number) => match (number.as_i64(), number.as_u64(), number.as_f64()) {
            (Some(integer), _, _) => Cel::Int(integer),
            (None, Some(unsigned), _) => Cel::UInt(unsigned),
            (None, None, Some(float)) => Cel::Float(float),
            _ => Cel::Null,
        },
        Kind::String(text) => Cel::String(Arc::new(text.to_owned())),
        Kind::Sequence(items) => {
            let item_schema = schema.get("items").and_then(Json::as_object);
            Cel::List(Arc::new(
                items
                    .iter()
                    .map(|item| match item_schema {
                        Some(item_schema) => with_defaults(item_schema, item),
                        None => with_defaults(&Map::new(), item),
                    })
                    .collect(),
            ))
        }
        Kind::Mapping(mapping) => {
            let properties = schema.get("properties").and_then(Json::as_object);
            let additional = schema.get("additionalProperties").and_then(Json::as_object);
            let empty = Map::new();
            let mut map = HashMap::with_capacity(mapping.len());
            for (key, item) in mapping {
                let Some(key) = key.key_text() else {
                    continue;
                };
                let key = key.into_owned();
                let item_schema = properties
                    .and_then(|properties| properties.get(&key))
                    .and_then(Json::as_object)
                    .or(additional)
                    .unwrap_or(&empty);
                if item.is_null() {
                    // The API server drops nulls of fields that are not nullable.
                    continue;
                }
                map.insert(Key::String(Arc::new(key)), with_defaults(item_schema, item));
            }
            for (name, property) in properties.into_iter().flatten() {
                let Some(property) = property.as_object() else {
                    continue;
                };
                let key = Key::String(Arc::new(name.clone()));
                if map.contains_key(&key) {
                    continue;
                }
                if let Some(default) = property.get("default") {
                    let default: Value = yaml_serde::to_value(default).unwrap_or(Value::Null);
                    map.insert(key, with_defaults(property, Node::from(&default)));
                }
            }
            Cel::Map(CelMap { map: Arc::new(map) })
        }
        Kind::Tagged(..) => Cel::Null,
    }
}

/// The schema's regular expression, compiled once per thread; `None` if it does not compile
/// (the schema tests keep every embedded pattern compiling).
pub(crate) fn regex(pattern: &str) -> Option<std::rc::Rc<regex::Regex>> {
    use std::cell::RefCell;
    use std::collections::HashMap;
    use std::rc::Rc;
    thread_local! {
        static COMPILED: RefCell<HashMap<String, Option<Rc<regex::Regex>>>> =
            RefCell::new(HashMap::new());
    }
    COMPILED.with(|compiled| {
        if let Some(regex) = compiled.borrow().get(pattern) {
            return regex.clone();
        }
        let regex = regex::Regex::new(pattern).ok().map(Rc::new);
        compiled
            .borrow_mut()
            .insert(pattern.to_owned(), regex.clone());
        regex
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every rule text in a schema, wherever it sits.
    fn rules_in(schema: &Json, found: &mut Vec<String>) {
        match schema {
            Json::Object(object) => {
                if let Some(Json::Array(rules)) = object.get("x-kubernetes-validations") {
                    found.extend(
                        rules
                            .iter()
                            .filter_map(|rule| rule.get("rule")?.as_str().map(str::to_owned)),
                    );
                }
                object.values().for_each(|value| rules_in(value, found));
            }
            Json::Array(items) => items.iter().for_each(|item| rules_in(item, found)),
            _ => {}
        }
    }

    #[test]
    fn every_embedded_rule_parses_and_calls_only_functions_defined_here() {
        // Standard CEL functions and macros the rules use, plus the two Kubernetes library
        // functions registered in `BASE`; the peer cases run each of them.
        const DEFINED: &[&str] = &[
            "size",
            "has",
            "all",
            "exists",
            "filter",
            "matches",
            "startsWith",
            "endsWith",
            "int",
            "split",
            "find",
        ];
        let mut rules = Vec::new();
        for text in [
            include_str!("../../data/schemas/karpenter-nodepool-v1.min.json"),
            include_str!("../../data/schemas/karpenter-ec2nodeclass-v1.min.json"),
        ] {
            rules_in(&serde_json::from_str(text).unwrap(), &mut rules);
        }
        assert!(rules.len() > 50, "only {} rules found", rules.len());
        for rule in rules.iter().filter(|rule| !rule.contains("oldSelf")) {
            let program = Program::compile(rule).unwrap_or_else(|error| panic!("{rule}: {error}"));
            let references = program.references();
            for function in references.functions() {
                let operator = function.starts_with('_')
                    || function.starts_with('!')
                    || function.starts_with('@');
                assert!(
                    operator || DEFINED.contains(&function),
                    "{rule} calls `{function}`, which the studio does not define"
                );
            }
        }
    }

    fn patterns_in(schema: &Json, found: &mut Vec<String>) {
        match schema {
            Json::Object(object) => {
                if let Some(Json::String(pattern)) = object.get("pattern") {
                    found.push(pattern.clone());
                }
                object.values().for_each(|value| patterns_in(value, found));
            }
            Json::Array(items) => items.iter().for_each(|item| patterns_in(item, found)),
            _ => {}
        }
    }

    #[test]
    fn every_embedded_pattern_compiles() {
        let mut patterns = Vec::new();
        for text in [
            include_str!("../../data/schemas/karpenter-nodepool-v1.min.json"),
            include_str!("../../data/schemas/karpenter-ec2nodeclass-v1.min.json"),
            include_str!("../../data/schemas/eksctl-clusterconfig-v1alpha5.min.json"),
        ] {
            patterns_in(&serde_json::from_str(text).unwrap(), &mut patterns);
        }
        assert!(
            patterns.len() > 20,
            "only {} patterns found",
            patterns.len()
        );
        for pattern in &patterns {
            assert!(regex(pattern).is_some(), "`{pattern}` does not compile");
        }
    }

    #[test]
    fn split_and_find_behave_like_the_kubernetes_libraries() {
        let text = Cel::String(Arc::new("al2023@v2024".to_owned()));
        assert_eq!(evaluate("self.split('@')[1] == 'v2024'", &text), Ok(true));
        assert_eq!(evaluate("self.find('^[^@]+') == 'al2023'", &text), Ok(true));
        assert_eq!(evaluate("self.find('^x') == ''", &text), Ok(true));
        assert!(
            evaluate(
                "self.missing == 1",
                &Cel::Map(CelMap {
                    map: Arc::new(HashMap::new())
                })
            )
            .is_err()
        );
    }
}
