//! Checks JSON Schema cannot express: URL schemes, CSS selector syntax, `${variable}`
//! references, bounding boxes against the image, confidence ranges, size limits.
//!
//! Security checks (URL scheme, variables, command selectors, size limits, absurd boxes,
//! confidence range) are errors in every mode. Plausibility checks (box inside the image,
//! element selectors, confidence under the threshold, empty boxes, decision consistency)
//! are errors in strict mode and warnings in lenient mode, except the ones that only
//! inform (empty box, low confidence, decision consistency), which are always warnings.

use std::collections::BTreeSet;

use serde_json::Map;
use serde_json::Value;

use crate::SchemaValidationError;
use crate::ValidationMode;
use crate::field_name;
use crate::selector::check_selector;
use crate::variables;

/// Size limits that keep a hostile or runaway answer from costing much.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// Longest string, in bytes.
    pub max_string_bytes: usize,
    /// Most items in one array.
    pub max_array_items: usize,
    /// Deepest nesting of arrays and objects.
    pub max_depth: usize,
    /// Largest coordinate or box side, in pixels.
    pub max_box_side: f64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_string_bytes: 16 * 1024,
            max_array_items: 5_000,
            max_depth: 32,
            max_box_side: 100_000.0,
        }
    }
}

/// What the checks know beyond the answer itself.
#[derive(Debug, Clone, PartialEq)]
pub struct ValidationContext {
    /// URL schemes `OPEN_PAGE` may use (lower case). `javascript` is refused even if listed.
    pub allowed_url_schemes: Vec<String>,
    /// The variables the session has saved; `None` skips the existence check.
    pub known_variables: Option<BTreeSet<String>>,
    /// Size of the analysed screenshot `(width, height)`; when `None`, `metadata.imageSize`
    /// of the answer is used if present.
    pub image_size: Option<(f64, f64)>,
    /// A confidence below this is reported as a warning (0 disables).
    pub min_confidence: f64,
    /// Size limits.
    pub limits: Limits,
}

impl Default for ValidationContext {
    fn default() -> Self {
        ValidationContext {
            allowed_url_schemes: vec!["http".to_owned(), "https".to_owned()],
            known_variables: None,
            image_size: None,
            min_confidence: 0.0,
            limits: Limits::default(),
        }
    }
}

/// Schemes refused whatever the configuration says.
const NEVER_ALLOWED: [&str; 2] = ["javascript", "vbscript"];

/// Why `url` may not be opened, if it may not. URLs starting with a `${variable}` have no
/// scheme yet; they are checked again after substitution.
pub(crate) fn url_scheme_problem(url: &str, allowed: &[String]) -> Option<String> {
    if url.starts_with("${") {
        return None;
    }
    let scheme = url.split_once(':').map(|(s, _)| s).filter(|s| {
        let mut b = s.bytes();
        b.next().is_some_and(|c| c.is_ascii_alphabetic())
            && b.all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'))
    });
    let allowed_list = allowed.join(", ");
    match scheme {
        None => Some(format!(
            "must be an absolute URL starting with one of: {allowed_list}"
        )),
        Some(scheme) => {
            let lower = scheme.to_ascii_lowercase();
            if NEVER_ALLOWED.contains(&lower.as_str()) {
                Some(format!("scheme `{lower}:` is never allowed"))
            } else if !allowed.iter().any(|a| a.eq_ignore_ascii_case(&lower)) {
                Some(format!(
                    "scheme `{lower}:` is not allowed; allowed: {allowed_list}"
                ))
            } else {
                None
            }
        }
    }
}

/// Collects findings; skips fields that already carry a schema error.
pub(crate) struct Findings<'a> {
    pub(crate) errors: &'a mut Vec<SchemaValidationError>,
    pub(crate) warnings: &'a mut Vec<String>,
    pub(crate) skip: BTreeSet<String>,
    pub(crate) mode: ValidationMode,
}

impl Findings<'_> {
    fn error(&mut self, path: Vec<String>, message: String, value: &Value, expected: &str) {
        let error = SchemaValidationError::at(path, message, value.clone(), expected);
        if !self.skip.contains(&error.field) {
            self.errors.push(error);
        }
    }

    fn plausibility(&mut self, path: Vec<String>, message: String, value: &Value, expected: &str) {
        if self.mode.is_strict() {
            self.error(path, message, value, expected);
        } else {
            self.warn(&path, &message);
        }
    }

    fn warn(&mut self, path: &[String], message: &str) {
        self.warnings
            .push(format!("{}: {message}", field_name(path)));
    }
}

fn with(path: &[String], name: &str) -> Vec<String> {
    let mut path = path.to_vec();
    path.push(name.to_owned());
    path
}

/// Size limits over the whole answer.
pub(crate) fn check_limits(
    value: &Value,
    limits: &Limits,
    path: &mut Vec<String>,
    findings: &mut Findings<'_>,
) {
    if path.len() > limits.max_depth {
        findings.error(
            path.clone(),
            format!("nests deeper than {} levels", limits.max_depth),
            &Value::Null,
            "shallower value",
        );
        return;
    }
    match value {
        Value::String(s) if s.len() > limits.max_string_bytes => findings.error(
            path.clone(),
            format!(
                "is {} bytes long; at most {} are allowed",
                s.len(),
                limits.max_string_bytes
            ),
            &Value::String(s.chars().take(80).collect()),
            "shorter string",
        ),
        Value::Array(items) => {
            if items.len() > limits.max_array_items {
                findings.error(
                    path.clone(),
                    format!(
                        "holds {} items; at most {} are allowed",
                        items.len(),
                        limits.max_array_items
                    ),
                    &Value::Null,
                    "shorter array",
                );
                return;
            }
            for (i, item) in items.iter().enumerate() {
                path.push(i.to_string());
                check_limits(item, limits, path, findings);
                path.pop();
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                path.push(key.clone());
                check_limits(item, limits, path, findings);
                path.pop();
            }
        }
        _ => {}
    }
}

/// Replaces `${name}` references by a plain identifier so the selector can be parsed.
fn selector_without_variables(selector: &str) -> Option<String> {
    let tokens = variables::tokenize(selector, "selector").ok()?;
    Some(
        tokens
            .into_iter()
            .map(|t| match t {
                variables::Token::Text(text) => text,
                variables::Token::Variable(_) => "v",
            })
            .collect(),
    )
}

/// Checks of an agent response's command and decision.
pub(crate) fn check_response(
    answer: &Value,
    context: &ValidationContext,
    findings: &mut Findings<'_>,
) {
    if let Some(command) = answer.get("command").and_then(Value::as_object)
        && let Some(parameters) = command.get("parameters").and_then(Value::as_object)
    {
        check_command_parameters(parameters, context, findings);
    }
    let Some(decision) = answer.get("decision") else {
        return;
    };
    let action = decision.get("action").and_then(Value::as_str);
    let success = decision
        .get("resultValidation")
        .and_then(|r| r.get("success"))
        .and_then(Value::as_bool);
    let path = [
        "decision".to_owned(),
        "resultValidation".to_owned(),
        "success".to_owned(),
    ];
    match (action, success) {
        (Some("PROCEED"), Some(false)) => {
            findings.warn(&path, "is false, yet the decision is PROCEED");
        }
        (Some("RETRY"), Some(true)) => findings.warn(&path, "is true, yet the decision is RETRY"),
        _ => {}
    }
}

fn check_command_parameters(
    parameters: &Map<String, Value>,
    context: &ValidationContext,
    findings: &mut Findings<'_>,
) {
    let base = ["command".to_owned(), "parameters".to_owned()];
    for field in ["url", "selector", "text"] {
        let Some(Value::String(text)) = parameters.get(field) else {
            continue;
        };
        let path = with(&base, field);
        let value = Value::String(text.clone());
        let field_static: &'static str = match field {
            "url" => "url",
            "selector" => "selector",
            _ => "text",
        };
        match variables::references(text, field_static) {
            Err(error) => {
                findings.error(
                    path.clone(),
                    error.to_string(),
                    &value,
                    "string with ${name} references",
                );
                continue;
            }
            Ok(names) => {
                if let Some(known) = &context.known_variables {
                    for name in names.into_iter().filter(|n| !known.contains(*n)) {
                        let saved = variables::known_names(known.iter().map(String::as_str));
                        findings.error(
                            path.clone(),
                            format!("refers to ${{{name}}}, which this session has not saved; saved variables: {saved}"),
                            &value,
                            "string with ${name} references to saved variables",
                        );
                    }
                }
            }
        }
        match field {
            "url" => {
                if let Some(problem) = url_scheme_problem(text, &context.allowed_url_schemes) {
                    let expected =
                        format!("string (URL: {})", context.allowed_url_schemes.join(", "));
                    findings.error(path, problem, &value, &expected);
                }
            }
            "selector" => {
                if let Some(plain) = selector_without_variables(text)
                    && let Err(error) = check_selector(&plain)
                {
                    findings.error(path, error.to_string(), &value, "string (CSS selector)");
                }
            }
            _ => {}
        }
    }
}

/// Checks of analysis and comparison answers: boxes, confidences, selectors.
pub(crate) fn check_visual(
    answer: &Value,
    context: &ValidationContext,
    findings: &mut Findings<'_>,
) {
    let image = context.image_size.or_else(|| {
        let size = answer.get("metadata")?.get("imageSize")?;
        Some((size.get("width")?.as_f64()?, size.get("height")?.as_f64()?))
    });
    let mut path = Vec::new();
    walk_visual(answer, image, context, &mut path, findings, 0);
}

fn walk_visual(
    value: &Value,
    image: Option<(f64, f64)>,
    context: &ValidationContext,
    path: &mut Vec<String>,
    findings: &mut Findings<'_>,
    depth: usize,
) {
    if depth > context.limits.max_depth {
        return;
    }
    match value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(i.to_string());
                walk_visual(item, image, context, path, findings, depth + 1);
                path.pop();
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                path.push(key.clone());
                match (key.as_str(), item) {
                    ("boundingBox" | "area", Value::Object(bbox)) => {
                        check_box(bbox, item, image, context, path, findings);
                    }
                    ("confidence", Value::Number(n)) => {
                        let c = n.as_f64().unwrap_or(f64::NAN);
                        if !(0.0..=1.0).contains(&c) {
                            findings.error(
                                path.clone(),
                                format!("{c} is outside 0..1"),
                                item,
                                "number (0 to 1)",
                            );
                        } else if c < context.min_confidence {
                            findings.warn(
                                path,
                                &format!("{c} is below the threshold {}", context.min_confidence),
                            );
                        }
                    }
                    ("selector", Value::String(selector)) => {
                        if let Err(error) = check_selector(selector) {
                            findings.plausibility(
                                path.clone(),
                                error.to_string(),
                                item,
                                "string (CSS selector)",
                            );
                        }
                    }
                    _ => walk_visual(item, image, context, path, findings, depth + 1),
                }
                path.pop();
            }
        }
        _ => {}
    }
}

fn check_box(
    bbox: &Map<String, Value>,
    value: &Value,
    image: Option<(f64, f64)>,
    context: &ValidationContext,
    path: &[String],
    findings: &mut Findings<'_>,
) {
    let get = |k: &str| bbox.get(k).and_then(Value::as_f64);
    let (Some(x), Some(y), Some(w), Some(h)) = (get("x"), get("y"), get("width"), get("height"))
    else {
        return;
    };
    let limit = context.limits.max_box_side;
    if [x, y, w, h].iter().any(|v| v.abs() > limit) {
        findings.error(
            path.to_vec(),
            format!("has a coordinate or side beyond {limit} pixels"),
            value,
            "bounding box of sane size",
        );
        return;
    }
    if w == 0.0 || h == 0.0 {
        findings.warn(path, "is empty (zero width or height)");
    }
    if let Some((iw, ih)) = image {
        if x + w > iw {
            findings.plausibility(
                path.to_vec(),
                format!(
                    "extends past the image's right edge (x + width = {} > {iw})",
                    x + w
                ),
                value,
                "bounding box inside the image",
            );
        } else if y + h > ih {
            findings.plausibility(
                path.to_vec(),
                format!(
                    "extends past the image's bottom edge (y + height = {} > {ih})",
                    y + h
                ),
                value,
                "bounding box inside the image",
            );
        }
    }
}
