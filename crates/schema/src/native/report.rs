//! The failure path: every raw error of an instance, in the order the `jsonschema` crate
//! reports them (keyword priority; properties in instance or schema order as it does).

use std::borrow::Cow;

use serde_json::Map;
use serde_json::Value;

use super::Branches;
use super::Check;
use super::Node;
use super::ObjectCheck;
use super::walk::check_valid;
use super::walk::equal;
use super::walk::find;
use super::walk::is_valid;
use crate::translate::RawError;
use crate::translate::RawKind;

/// `jsonschema` switches to a hash map (instance order) from this many properties.
const HASHMAP_THRESHOLD: usize = 15;

/// One step of an instance path.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Segment<'a> {
    /// A property name.
    Key(&'a str),
    /// An array index.
    Index(usize),
}

fn materialize(path: &[Segment<'_>]) -> Vec<String> {
    path.iter()
        .map(|segment| match segment {
            Segment::Key(name) => (*name).to_owned(),
            Segment::Index(i) => i.to_string(),
        })
        .collect()
}

struct Reporter<'a, 'o> {
    path: Vec<Segment<'a>>,
    out: &'o mut Vec<RawError<'a>>,
}

/// Appends every raw error of `value` against `node` to `out`.
pub(crate) fn collect<'a>(node: &'a Node, value: &'a Value, out: &mut Vec<RawError<'a>>) {
    let mut reporter = Reporter {
        path: Vec::new(),
        out,
    };
    reporter.node(node, value);
}

impl<'a> Reporter<'a, '_> {
    fn push(&mut self, node: &Node, keyword: &str, kind: RawKind<'a>, instance: &'a Value) {
        self.out.push(RawError {
            kind,
            instance,
            path: materialize(&self.path),
            schema_path: Cow::Owned(format!("{}/{keyword}", node.at)),
        });
    }

    fn node(&mut self, node: &'a Node, value: &'a Value) {
        for check in &node.checks {
            self.check(node, check, value);
        }
    }

    fn branch_errors(&mut self, branch: &'a Node, value: &'a Value) -> Vec<RawError<'a>> {
        let mut inner = Reporter {
            path: self.path.clone(),
            out: &mut Vec::new(),
        };
        inner.node(branch, value);
        std::mem::take(inner.out)
    }

    /// Each branch's errors, for a failed `anyOf`/`oneOf`. When a discriminator picks
    /// branch `i`, every other branch fails its `const` on the discriminating property, and
    /// that `const` error is all the translation looks at in them: they get just that one.
    fn context(&mut self, branches: &'a Branches, value: &'a Value) -> Vec<Vec<RawError<'a>>> {
        let picked = branches.discriminator.as_ref().and_then(|d| {
            let found = value.as_object()?.get(&*d.key)?;
            let i = d.values.iter().position(|c| equal(c, found))?;
            Some((i, d, found))
        });
        let Some((picked, discriminator, found)) = picked else {
            return branches
                .nodes
                .iter()
                .map(|b| self.branch_errors(b, value))
                .collect();
        };
        branches
            .nodes
            .iter()
            .zip(&discriminator.values)
            .enumerate()
            .map(|(i, (branch, expected))| {
                if i == picked {
                    return self.branch_errors(branch, value);
                }
                vec![RawError {
                    kind: RawKind::Const(expected),
                    instance: found,
                    path: Vec::new(),
                    schema_path: Cow::Borrowed(""),
                }]
            })
            .collect()
    }

    fn check(&mut self, node: &'a Node, check: &'a Check, value: &'a Value) {
        match check {
            Check::Required { names, .. } => {
                if let Some(map) = value.as_object() {
                    for name in names {
                        if !map.contains_key(&**name) {
                            self.push(node, "required", RawKind::Required(name), value);
                        }
                    }
                }
                return;
            }
            Check::Object(object) => {
                if let Some(map) = value.as_object() {
                    self.object(node, object, map, value);
                }
                return;
            }
            Check::Items(items) => {
                if let Some(array) = value.as_array() {
                    for (i, item) in array.iter().enumerate() {
                        self.path.push(Segment::Index(i));
                        self.node(items, item);
                        self.path.pop();
                    }
                }
                return;
            }
            Check::AllOf(branches) => {
                for branch in branches {
                    self.node(branch, value);
                }
                return;
            }
            Check::IfThenElse(rule) => {
                let branch = if is_valid(&rule.condition, value) {
                    rule.then.as_ref()
                } else {
                    rule.otherwise.as_ref()
                };
                if let Some(branch) = branch {
                    self.node(branch, value);
                }
                return;
            }
            _ => {}
        }
        if check_valid(check, value) {
            return;
        }
        let (keyword, kind) = match check {
            Check::Type(_, name) => ("type", RawKind::Type(Cow::Borrowed(name))),
            Check::Const(expected) => ("const", RawKind::Const(expected)),
            Check::Enum(options, _) => ("enum", RawKind::Enum(options)),
            Check::Minimum(b) => ("minimum", RawKind::Minimum(&b.value)),
            Check::Maximum(b) => ("maximum", RawKind::Maximum(&b.value)),
            Check::ExclusiveMinimum(b) => ("exclusiveMinimum", RawKind::ExclusiveMinimum(&b.value)),
            Check::ExclusiveMaximum(b) => ("exclusiveMaximum", RawKind::ExclusiveMaximum(&b.value)),
            Check::MinLength(limit) => ("minLength", RawKind::MinLength(*limit)),
            Check::MaxLength(limit) => ("maxLength", RawKind::MaxLength(*limit)),
            Check::MinItems(limit) => ("minItems", RawKind::MinItems(*limit)),
            Check::MaxItems(limit) => ("maxItems", RawKind::MaxItems(*limit)),
            Check::Pattern(pattern) => ("pattern", RawKind::Pattern(&pattern.source)),
            Check::Format(name, _) => ("format", RawKind::Format(name)),
            Check::Not(_, negated) => ("not", RawKind::Not(negated)),
            Check::AnyOf(branches) => ("anyOf", RawKind::NoBranch(self.context(branches, value))),
            Check::OneOf(branches) => {
                if branches.nodes.iter().any(|b| is_valid(b, value)) {
                    ("oneOf", RawKind::Other(Cow::Borrowed("oneOf")))
                } else {
                    ("oneOf", RawKind::NoBranch(self.context(branches, value)))
                }
            }
            Check::Required { .. }
            | Check::Object(_)
            | Check::Items(_)
            | Check::AllOf(_)
            | Check::IfThenElse(_) => return,
        };
        self.push(node, keyword, kind, value);
    }

    fn property(&mut self, name: &'a str, node: &'a Node, value: &'a Value) {
        self.path.push(Segment::Key(name));
        self.node(node, value);
        self.path.pop();
    }

    fn object(
        &mut self,
        node: &'a Node,
        object: &'a ObjectCheck,
        map: &'a Map<String, Value>,
        value: &'a Value,
    ) {
        if !object.deny_additional {
            let instance_order =
                object.props.len() >= HASHMAP_THRESHOLD || map.len() <= object.props.len();
            if instance_order {
                for (name, item) in map {
                    if let Some(i) = find(object, name) {
                        self.property(name, &object.props[i].1, item);
                    }
                }
            } else {
                for (name, schema) in &object.props {
                    if let Some(item) = map.get(&**name) {
                        self.property(name, schema, item);
                    }
                }
            }
            return;
        }
        let mut unexpected = Vec::new();
        let mut found_required = false;
        for (name, item) in map {
            match find(object, name) {
                Some(i) => {
                    self.property(name, &object.props[i].1, item);
                    found_required |= object.required_last.as_deref() == Some(name.as_str());
                }
                None => unexpected.push(name.as_str()),
            }
        }
        if !unexpected.is_empty() {
            self.push(
                node,
                "additionalProperties",
                RawKind::AdditionalProperties(unexpected),
                value,
            );
        }
        if let Some(name) = &object.required_last
            && !found_required
        {
            self.push(node, "required", RawKind::Required(name), value);
        }
    }
}
