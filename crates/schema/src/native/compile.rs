//! Schema document → [`Node`] tree, or [`Unsupported`] for anything outside the subset.

use serde_json::Map;
use serde_json::Value;

use super::Bound;
use super::Branches;
use super::Check;
use super::Discriminator;
use super::IfThenElse;
use super::Key;
use super::Node;
use super::ObjectCheck;
use super::PatternCheck;
use super::StringOptions;
use super::pattern::SimplePattern;
use super::types;
use super::walk::equal;

/// Why a schema cannot run on the specialised validator (the caller falls back).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unsupported(pub(crate) String);

/// Keywords that only annotate: ignored wherever they appear.
const ANNOTATIONS: [&str; 8] = [
    "title",
    "description",
    "default",
    "examples",
    "$comment",
    "readOnly",
    "writeOnly",
    "definitions",
];

/// How deep `$ref`s may nest before a schema counts as recursive (unsupported).
const MAX_REF_DEPTH: usize = 32;

struct Compiler<'s> {
    root: &'s Value,
    ref_depth: usize,
}

/// Compiles a draft-07 schema document.
pub(crate) fn compile(root: &Value) -> Result<Node, Unsupported> {
    let Value::Object(map) = root else {
        return Err(Unsupported("the schema is not an object".to_owned()));
    };
    match map.get("$schema").and_then(Value::as_str) {
        Some(
            "http://json-schema.org/draft-07/schema#" | "http://json-schema.org/draft-07/schema",
        ) => {}
        other => return Err(Unsupported(format!("$schema {other:?} is not draft-07"))),
    }
    let mut compiler = Compiler { root, ref_depth: 0 };
    compiler.node(root, String::new(), true)
}

fn unsupported<T>(at: &str, what: impl std::fmt::Display) -> Result<T, Unsupported> {
    Err(Unsupported(format!("{what} at `{at}`")))
}

fn count(at: &str, keyword: &str, value: &Value) -> Result<u64, Unsupported> {
    match value.as_u64() {
        Some(n) => Ok(n),
        None => unsupported(at, format_args!("{keyword} {value}")),
    }
}

fn bound(at: &str, keyword: &str, value: &Value) -> Result<Bound, Unsupported> {
    let Value::Number(n) = value else {
        return unsupported(at, format_args!("{keyword} {value}"));
    };
    let int = n
        .as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from));
    let Some(float) = n.as_f64() else {
        return unsupported(at, format_args!("{keyword} {value}"));
    };
    Ok(Bound {
        value: value.clone(),
        float,
        int,
    })
}

fn type_bits(name: &str) -> Option<u8> {
    Some(match name {
        "null" => types::NULL,
        "boolean" => types::BOOLEAN,
        "integer" => types::INTEGER,
        "number" => types::NUMBER | types::INTEGER,
        "string" => types::STRING,
        "array" => types::ARRAY,
        "object" => types::OBJECT,
        _ => return None,
    })
}

/// Whether `pattern` means the same under ECMA-262 (ajv) and the `regex` crate: literals,
/// classes, groups, anchors and quantifiers only; no `.`, no class escapes (`\d`, `\w`),
/// no look-arounds or flags.
fn portable_pattern(pattern: &str) -> bool {
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(escaped) if escaped.is_ascii_punctuation() => {}
                _ => return false,
            },
            '.' => return false,
            '(' if chars.peek() == Some(&'?') => return false,
            c if c.is_ascii_graphic() || c == ' ' => {}
            _ => return false,
        }
    }
    true
}

fn names(at: &str, value: &Value) -> Result<Vec<Box<str>>, Unsupported> {
    let Value::Array(items) = value else {
        return unsupported(at, "required is not an array");
    };
    items
        .iter()
        .map(|item| match item {
            Value::String(name) => Ok(name.as_str().into()),
            _ => unsupported(at, "required holds a non-string"),
        })
        .collect()
}

/// `jsonschema`'s keyword priority: checks run (and report) in this order.
fn priority(check: &Check) -> u8 {
    match check {
        Check::Type(..) => 1,
        Check::Const(_) => 5,
        Check::Enum(..) => 6,
        Check::Minimum(_) => 10,
        Check::Maximum(_) => 11,
        Check::ExclusiveMinimum(_) => 12,
        Check::ExclusiveMaximum(_) => 13,
        Check::MinLength(_) => 20,
        Check::MaxLength(_) => 21,
        Check::MinItems(_) => 22,
        Check::MaxItems(_) => 23,
        Check::Required { .. } => 26,
        Check::Pattern(..) => 30,
        Check::Format(..) => 31,
        Check::Object(_) => 40,
        Check::Items(_) => 44,
        Check::AllOf(_) => 50,
        Check::AnyOf(_) => 51,
        Check::OneOf(_) => 52,
        Check::Not(..) => 53,
        Check::IfThenElse(_) => 54,
    }
}

impl Compiler<'_> {
    fn node(&mut self, schema: &Value, at: String, is_root: bool) -> Result<Node, Unsupported> {
        let map = match schema {
            Value::Bool(true) => {
                return Ok(Node {
                    at: at.into(),
                    checks: Vec::new(),
                    only_type: None,
                });
            }
            Value::Object(map) => map,
            _ => return unsupported(&at, format_args!("schema {schema}")),
        };
        if let Some(reference) = map.get("$ref") {
            // Draft-07 ignores every sibling of `$ref`.
            return self.reference(&at, reference);
        }
        let mut checks = Vec::with_capacity(map.len());
        for (keyword, value) in map {
            let check = match keyword.as_str() {
                k if ANNOTATIONS.contains(&k) || k == "$defs" => continue,
                "$schema" | "$id" if is_root => continue,
                // not ours: JSON Schema's
                "type" => match value.as_str().and_then(type_bits) {
                    Some(bits) => Check::Type(bits, value.as_str().unwrap_or_default().into()),
                    None => return unsupported(&at, format_args!("type {value}")),
                },
                "const" => Check::Const(value.clone()),
                "enum" if value.is_array() => Check::Enum(value.clone(), strings(value)),
                "minimum" => Check::Minimum(bound(&at, keyword, value)?),
                "maximum" => Check::Maximum(bound(&at, keyword, value)?),
                "exclusiveMinimum" => Check::ExclusiveMinimum(bound(&at, keyword, value)?),
                "exclusiveMaximum" => Check::ExclusiveMaximum(bound(&at, keyword, value)?),
                "minLength" => Check::MinLength(count(&at, keyword, value)?),
                "maxLength" => Check::MaxLength(count(&at, keyword, value)?),
                "minItems" => Check::MinItems(count(&at, keyword, value)?),
                "maxItems" => Check::MaxItems(count(&at, keyword, value)?),
                "required" => Check::Required {
                    names: names(&at, value)?,
                    fused: false,
                },
                "pattern" => self.pattern(&at, value)?,
                "format" => format(&at, value)?,
                "properties" => Check::Object(Box::new(self.object(map, &at)?)),
                "additionalProperties" => match (value, map.contains_key("properties")) {
                    (Value::Bool(_), true) => continue,
                    (Value::Bool(true), false) => continue,
                    _ => return unsupported(&at, format_args!("additionalProperties {value}")),
                },
                "items" if value.is_object() || value.is_boolean() => {
                    Check::Items(Box::new(self.node(value, format!("{at}/items"), false)?))
                }
                "allOf" => Check::AllOf(self.branches(value, &at, keyword)?),
                "anyOf" => Check::AnyOf(branches(self.branches(value, &at, keyword)?)),
                "oneOf" => Check::OneOf(branches(self.branches(value, &at, keyword)?)),
                "not" => Check::Not(
                    Box::new(self.node(value, format!("{at}/not"), false)?),
                    value.clone(),
                ),
                "if" => {
                    let then = match map.get("then") {
                        Some(then) => Some(self.node(then, format!("{at}/then"), false)?),
                        None => None,
                    };
                    let otherwise = match map.get("else") {
                        Some(otherwise) => {
                            Some(self.node(otherwise, format!("{at}/else"), false)?)
                        }
                        None => None,
                    };
                    if then.is_none() && otherwise.is_none() {
                        continue;
                    }
                    let condition = self.node(value, format!("{at}/if"), false)?;
                    Check::IfThenElse(Box::new(IfThenElse {
                        condition,
                        then,
                        otherwise,
                    }))
                }
                "then" | "else" => continue,
                other => return unsupported(&at, format_args!("keyword `{other}`")),
            };
            checks.push(check);
        }
        // `required` is checked in the object pass when the node has one; a lone name
        // beside `additionalProperties: false` is reported by that pass too.
        let object = checks.iter().find_map(|c| match c {
            Check::Object(object) => Some(object.required_last.is_some()),
            _ => None,
        });
        if object == Some(true) {
            checks.retain(|c| !matches!(c, Check::Required { .. }));
        }
        for check in &mut checks {
            if let Check::Required { fused, .. } = check {
                *fused = object.is_some();
            }
        }
        checks.sort_by_key(priority);
        let only_type = match checks.as_slice() {
            [Check::Type(bits, _)] => Some(*bits),
            _ => None,
        };
        Ok(Node {
            at: at.into(),
            checks,
            only_type,
        })
    }

    fn reference(&mut self, at: &str, reference: &Value) -> Result<Node, Unsupported> {
        let Some(pointer) = reference.as_str().and_then(|r| r.strip_prefix('#')) else {
            return unsupported(at, format_args!("$ref {reference}"));
        };
        if pointer.contains(['~', '%']) || (!pointer.is_empty() && !pointer.starts_with('/')) {
            return unsupported(at, format_args!("$ref {reference}"));
        }
        let Some(target) = self.root.pointer(pointer) else {
            return unsupported(at, format_args!("unresolvable $ref {reference}"));
        };
        if self.ref_depth >= MAX_REF_DEPTH {
            return unsupported(at, "recursive $ref");
        }
        self.ref_depth += 1;
        let node = self.node(target, pointer.to_owned(), pointer.is_empty());
        self.ref_depth -= 1;
        node
    }

    fn pattern(&self, at: &str, value: &Value) -> Result<Check, Unsupported> {
        let Some(source) = value.as_str().filter(|p| portable_pattern(p)) else {
            return unsupported(at, format_args!("pattern {value}"));
        };
        match regex::Regex::new(source) {
            Ok(regex) => Ok(Check::Pattern(Box::new(PatternCheck {
                regex,
                simple: SimplePattern::parse(source),
                source: source.into(),
            }))),
            Err(_) => unsupported(at, format_args!("pattern {value}")),
        }
    }

    fn branches(
        &mut self,
        value: &Value,
        at: &str,
        keyword: &str,
    ) -> Result<Vec<Node>, Unsupported> {
        let Value::Array(items) = value else {
            return unsupported(at, format_args!("{keyword} is not an array"));
        };
        if items.is_empty() {
            return unsupported(at, format_args!("empty {keyword}"));
        }
        items
            .iter()
            .enumerate()
            .map(|(i, item)| self.node(item, format!("{at}/{keyword}/{i}"), false))
            .collect()
    }

    fn object(&mut self, map: &Map<String, Value>, at: &str) -> Result<ObjectCheck, Unsupported> {
        let Some(Value::Object(properties)) = map.get("properties") else {
            return unsupported(at, "properties is not an object");
        };
        let deny_additional = match map.get("additionalProperties") {
            None | Some(Value::Bool(true)) => false,
            Some(Value::Bool(false)) => true,
            Some(other) => return unsupported(at, format_args!("additionalProperties {other}")),
        };
        let mut props = Vec::with_capacity(properties.len());
        for (name, schema) in properties {
            if name.contains(['/', '~']) {
                return unsupported(at, format_args!("property name `{name}`"));
            }
            props.push((
                name.as_str().into(),
                self.node(schema, format!("{at}/properties/{name}"), false)?,
            ));
        }
        let required = match map.get("required") {
            Some(value) => names(at, value)?,
            None => Vec::new(),
        };
        let mut required_mask = 0u64;
        let mut required_extra = Vec::new();
        for name in &required {
            match props.iter().position(|(p, _)| p == name) {
                Some(i) if i < 64 => required_mask |= 1 << i,
                _ => required_extra.push(name.clone()),
            }
        }
        let required_last = match required.as_slice() {
            [only] if deny_additional => Some(only.clone()),
            _ => None,
        };
        let keys: Vec<Key> = props
            .iter()
            .map(|(name, _): &(Box<str>, Node)| Key::of(name))
            .collect();
        Ok(ObjectCheck {
            props,
            keys,
            deny_additional,
            required_mask,
            required_extra,
            required_last,
        })
    }
}

/// The options of an `enum` when every one is a string.
fn strings(options: &Value) -> Option<StringOptions> {
    options
        .as_array()?
        .iter()
        .map(|option| option.as_str().map(|s| (Key::of(s), Box::from(s))))
        .collect()
}

fn format(at: &str, value: &Value) -> Result<Check, Unsupported> {
    let Some(name) = value.as_str() else {
        return unsupported(at, format_args!("format {value}"));
    };
    let schema = serde_json::json!({ "format": name });
    match jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
    {
        Ok(validator) => Ok(Check::Format(name.into(), Box::new(validator))),
        Err(_) => unsupported(at, format_args!("format {value}")),
    }
}

/// The `const` a branch requires of property `key`, if it requires one.
fn required_const<'n>(node: &'n Node, key: &str) -> Option<&'n Value> {
    node.checks.iter().find_map(|check| {
        let Check::Object(object) = check else {
            return None;
        };
        let i = object.props.iter().position(|(name, _)| &**name == key)?;
        if i >= 64 || object.required_mask >> i & 1 == 0 {
            return None;
        }
        object.props[i].1.checks.iter().find_map(|c| match c {
            Check::Const(value) => Some(value),
            _ => None,
        })
    })
}

/// Branches with their discriminator, when they have one.
fn branches(nodes: Vec<Node>) -> Branches {
    let discriminator = nodes.first().and_then(|first| {
        first.checks.iter().find_map(|check| {
            let Check::Object(object) = check else {
                return None;
            };
            object.props.iter().find_map(|(key, _)| {
                let values: Vec<Value> = nodes
                    .iter()
                    .map(|node| required_const(node, key).cloned())
                    .collect::<Option<_>>()?;
                let distinct = values
                    .iter()
                    .enumerate()
                    .all(|(i, a)| values[..i].iter().all(|b| !equal(a, b)));
                distinct.then(|| Discriminator {
                    key: key.clone(),
                    key_words: Key::of(key),
                    values,
                })
            })
        })
    });
    Branches {
        nodes,
        discriminator,
    }
}
