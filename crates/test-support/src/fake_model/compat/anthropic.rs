//! The Anthropic Messages API's refusals: the computer tool form each model takes, beta
//! headers, unknown fields, sampling settings the newest models refuse, the computer
//! toolset's `toolset_name` in the history, the `anthropic-version` header.
//!
//! Model ids are those of `anthropic/types/model_param.py` in the pinned `anthropic` 2.14.0
//! wheel, plus the Claude 4 ids its `_constants.py` still names. Which form each takes comes
//! from issue 37's reading of the documentation's compatibility table, and is a choice where
//! the table is silent (see [`TOOLSET_ONLY`]).

use std::collections::BTreeMap;

use serde_json::Value;
use serde_json::json;

use super::Refusal;

/// A computer tool form: its `tools[].type`, the beta header it needs (`None`: generally
/// available) and the fields its `tools[]` entry may have.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct ComputerForm {
    pub tool_type: &'static str,
    pub beta: Option<&'static str>,
    pub fields: &'static [&'static str],
}

/// Source: anthropic 2.14.0 `anthropic/types/beta/beta_tool_computer_use_20250124_param.py`
/// (fields) and `anthropic/types/anthropic_beta_param.py` (`computer-use-2025-01-24`); the
/// documentation's table ("Claude 4 models | computer_20250124 | computer-use-2025-01-24",
/// mirrored in patrickcarmichael/claude-docs `372-model-compatibility.md`).
pub(crate) const COMPUTER_20250124: ComputerForm = ComputerForm {
    tool_type: "computer_20250124",
    beta: Some("computer-use-2025-01-24"),
    fields: &[
        "type",
        "name",
        "display_width_px",
        "display_height_px",
        "display_number",
        "cache_control",
        "allowed_callers",
        "defer_loading",
        "input_examples",
        "strict",
    ],
};

/// Source: anthropic 2.14.0 `anthropic/types/beta/beta_tool_computer_use_20251124_param.py`
/// (fields, `enable_zoom`) and `anthropic/types/anthropic_beta_param.py`
/// (`computer-use-2025-11-24`).
pub(crate) const COMPUTER_20251124: ComputerForm = ComputerForm {
    tool_type: "computer_20251124",
    beta: Some("computer-use-2025-11-24"),
    fields: &[
        "type",
        "name",
        "display_width_px",
        "display_height_px",
        "display_number",
        "enable_zoom",
        "cache_control",
        "allowed_callers",
        "defer_loading",
        "input_examples",
        "strict",
    ],
};

/// Source: anthropic 2.14.0 `anthropic/types/computer_toolset_20260801_param.py`: generally
/// available (a member of the non-beta `ToolUnionParam`), "it carries only `type`,
/// `configs`, and `cache_control`".
pub(crate) const COMPUTER_TOOLSET_20260801: ComputerForm = ComputerForm {
    tool_type: "computer_toolset_20260801",
    beta: None,
    fields: &["type", "configs", "cache_control"],
};

/// Every computer form the fake knows.
const FORMS: [&ComputerForm; 3] = [
    &COMPUTER_20250124,
    &COMPUTER_20251124,
    &COMPUTER_TOOLSET_20260801,
];

/// The toolset's `toolset_name`. Source: anthropic 2.14.0
/// `anthropic/types/computer_left_click_tool_use_block.py` (`toolset_name: Literal["computer"]`).
pub(crate) const TOOLSET_NAME: &str = "computer";

/// The toolset's member tools, the names its `tool_use` blocks carry. Source: anthropic
/// 2.14.0 `anthropic/types/computer_toolset_configs_param.py` ("keyed by the member name —
/// the same name the member's tool_use blocks carry").
pub(crate) const TOOLSET_MEMBERS: [&str; 17] = [
    "cursor_position",
    "double_click",
    "hold_key",
    "key",
    "left_click",
    "left_click_drag",
    "left_mouse_down",
    "left_mouse_up",
    "middle_click",
    "mouse_move",
    "right_click",
    "screenshot",
    "scroll",
    "triple_click",
    "type",
    "wait",
    "zoom",
];

/// The models a rule covers, the computer forms they take, and whether they refuse a
/// non-default `temperature` and manual thinking (`thinking.type: "enabled"` with
/// `budget_tokens`).
#[derive(Debug)]
pub(crate) struct ModelRule {
    pub ids: &'static [&'static str],
    pub forms: &'static [&'static ComputerForm],
    pub refuses_sampling_settings: bool,
}

/// Sonnet 4.5, Haiku 4.5 and the Claude 4 models take `computer_20250124` only. Source:
/// issue 37 ("older models up to Sonnet 4.5 / Haiku 4.5"), the documentation's table
/// ("Claude 4 models | computer_20250124"); ids: `anthropic/types/model_param.py` and the
/// Claude 4 ids of `anthropic/_constants.py`.
pub(crate) const UP_TO_4_5: ModelRule = ModelRule {
    ids: &[
        "claude-sonnet-4-5",
        "claude-sonnet-4-5-20250929",
        "claude-haiku-4-5",
        "claude-haiku-4-5-20251001",
        "claude-opus-4-20250514",
        "claude-opus-4-0",
        "claude-opus-4-1-20250805",
    ],
    forms: &[&COMPUTER_20250124],
    refuses_sampling_settings: false,
};

/// Opus 4.5 and 4.6 and Sonnet 4.6 take `computer_20251124` (and answer `computer_20250124`
/// with "does not support tool types"). Source: issue 37 quoting the documentation's table
/// for `beta_tool_computer_use_20251124_param.py` ("Opus 4.5 and later, Sonnet 4.6 and
/// Sonnet/Opus 5"; "'claude-sonnet-4-6' does not support tool types: computer_20250124").
pub(crate) const OPUS_4_5_TO_4_6: ModelRule = ModelRule {
    ids: &[
        "claude-opus-4-5",
        "claude-opus-4-5-20251101",
        "claude-opus-4-6",
        "claude-sonnet-4-6",
    ],
    forms: &[&COMPUTER_20251124],
    refuses_sampling_settings: false,
};

/// Opus 4.7 and 4.8, Sonnet 5 and Opus 5 take `computer_20251124` and refuse a non-default
/// `temperature` and a manual thinking budget. Source: issue 37 (the table above; "a manual
/// `budget_tokens` and any non-default `temperature` are refused by Opus 4.7+ and the 5.x
/// models").
pub(crate) const OPUS_4_7_TO_5: ModelRule = ModelRule {
    ids: &[
        "claude-opus-4-7",
        "claude-opus-4-8",
        "claude-sonnet-5",
        "claude-opus-5",
    ],
    forms: &[&COMPUTER_20251124],
    refuses_sampling_settings: true,
};

/// The newest models take only the computer toolset. Which models those are is a choice:
/// the table gives `computer_20251124` to "Sonnet/Opus 5" by name, so the toolset-only
/// models are the ids `anthropic/types/model_param.py` lists above `claude-sonnet-5` (every
/// 5.1, 5.2 and 5.5 model) and the two 5 families the table does not name (Fable 5,
/// Mythos 5). Source: issue 37 ("The newest models accept only this form"; 5.x models
/// refuse `temperature` and manual budgets) and the order of `model_param.py`.
pub(crate) const TOOLSET_ONLY: ModelRule = ModelRule {
    ids: &[
        "claude-fable-5",
        "claude-mythos-5",
        "claude-fable-5-1",
        "claude-mythos-5-1",
        "claude-opus-5-5",
        "claude-sonnet-5-5",
        "claude-haiku-5-5",
        "claude-fable-5-2",
        "claude-mythos-5-2",
    ],
    forms: &[&COMPUTER_TOOLSET_20260801],
    refuses_sampling_settings: true,
};

/// Every rule; an id in none of them is unknown and treated permissively.
pub(crate) const MODEL_RULES: [&ModelRule; 4] =
    [&UP_TO_4_5, &OPUS_4_5_TO_4_6, &OPUS_4_7_TO_5, &TOOLSET_ONLY];

/// The request fields of a GA Messages request. Source: anthropic 2.14.0
/// `anthropic/types/message_create_params.py` (`MessageCreateParamsNonStreaming`), plus
/// `temperature`, `top_p` and `top_k`, which that SDK no longer declares but which issue 37
/// says older models still accept (the newest refuse a non-default `temperature`).
const GA_FIELDS: &[&str] = &[
    "cache_control",
    "container",
    "diagnostics",
    "inference_geo",
    "max_tokens",
    "messages",
    "metadata",
    "model",
    "output_config",
    "service_tier",
    "speed",
    "stop_sequences",
    "stream",
    "system",
    "thinking",
    "tool_choice",
    "tools",
    "user_profile_id",
    "workspace_id",
    "temperature",
    "top_p",
    "top_k",
];

/// The further request fields of a beta request (one sent with `anthropic-beta`). Source:
/// anthropic 2.14.0 `anthropic/types/beta/message_create_params.py` (its `betas` is sent as
/// the header, not in the body).
const BETA_ONLY_FIELDS: &[&str] = &[
    "billing_policy",
    "compaction",
    "context_management",
    "fallback_credit_token",
    "fallbacks",
    "mcp_servers",
    "thread",
];

/// The rule for `model`, if the fake knows it.
pub(crate) fn model_rule(model: &str) -> Option<&'static ModelRule> {
    MODEL_RULES
        .into_iter()
        .find(|rule| rule.ids.contains(&model))
}

/// What the reply needs from an admitted request: `{"model": ..., "toolset": bool}`.
pub(crate) fn admit(headers: &BTreeMap<String, String>, raw: &[u8]) -> Result<Value, Refusal> {
    // Source: the API's answer to a request without it, e.g. envoyproxy/ai-gateway#1909:
    // {"type":"error","error":{"type":"invalid_request_error","message":"anthropic-version: header is required"}}
    if !headers.contains_key("anthropic-version") {
        return Err(Refusal::invalid(
            "anthropic-version: header is required".into(),
        ));
    }
    #[derive(serde::Deserialize)]
    struct Head {
        model: Option<Value>,
        tools: Option<Vec<Value>>,
    }
    // Only the model and tools are read here; the rest (a history of screenshots) is parsed
    // only when a rule needs it.
    let Ok(head) = serde_json::from_slice::<Head>(raw) else {
        return Ok(json!({}));
    };
    let model = head.model.as_ref().and_then(Value::as_str).unwrap_or("");
    let rule = model_rule(model);
    let betas: Vec<&str> = headers
        .get("anthropic-beta")
        .map(|value| value.split(',').map(str::trim).collect())
        .unwrap_or_default();
    let tools = head.tools.unwrap_or_default();
    for (index, tool) in tools.iter().enumerate() {
        check_tool(index, tool, model, rule, &betas)?;
    }
    let toolset = tools.iter().any(|tool| {
        tool.get("type").and_then(Value::as_str) == Some(COMPUTER_TOOLSET_20260801.tool_type)
    });
    let images = contains(raw, br#""image""#);
    if rule.is_some() || toolset || images {
        let body: Value = serde_json::from_slice(raw).unwrap_or(Value::Null);
        if images {
            super::images::check_images(&body)?;
        }
        if let Some(rule) = rule {
            check_fields(&body, !betas.is_empty())?;
            check_sampling(&body, model, rule)?;
        }
        if toolset {
            check_toolset_history(&body)?;
        }
    }
    Ok(json!({"model": head.model, "toolset": toolset}))
}

/// Whether `needle` occurs in `haystack`.
fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

fn check_tool(
    index: usize,
    tool: &Value,
    model: &str,
    rule: Option<&ModelRule>,
    betas: &[&str],
) -> Result<(), Refusal> {
    let Some(tool_type) = tool.get("type").and_then(Value::as_str) else {
        return Ok(());
    };
    let form = FORMS.into_iter().find(|form| form.tool_type == tool_type);
    if let Some(rule) = rule {
        let taken = form.is_some_and(|form| rule.forms.contains(&form));
        if tool_type.starts_with("computer_") && !taken {
            // Source: issue 37, the API's answer: 'claude-sonnet-4-6' does not support tool
            // types: computer_20250124
            return Err(Refusal::invalid(format!(
                "'{model}' does not support tool types: {tool_type}"
            )));
        }
    }
    let Some(form) = form else {
        return Ok(());
    };
    if let Some(beta) = form.beta
        && !betas.contains(&beta)
    {
        return Err(Refusal::invalid(format!(
            "tools.{index}.type: '{tool_type}' is a beta tool: it needs the header 'anthropic-beta: {beta}'"
        )));
    }
    if rule.is_some()
        && let Some(object) = tool.as_object()
        && let Some(field) = object
            .keys()
            .find(|key| !form.fields.contains(&key.as_str()))
    {
        return Err(extra_input(&format!("tools.{index}.{field}")));
    }
    Ok(())
}

/// The API's wording for an unknown field (its request validation forbids extra inputs).
fn extra_input(location: &str) -> Refusal {
    Refusal::invalid(format!("{location}: Extra inputs are not permitted"))
}

fn check_fields(body: &Value, beta: bool) -> Result<(), Refusal> {
    let Some(object) = body.as_object() else {
        return Ok(());
    };
    let known = |key: &str| GA_FIELDS.contains(&key) || (beta && BETA_ONLY_FIELDS.contains(&key));
    match object.keys().find(|key| !known(key)) {
        Some(field) => Err(extra_input(field)),
        None => Ok(()),
    }
}

fn check_sampling(body: &Value, model: &str, rule: &ModelRule) -> Result<(), Refusal> {
    if !rule.refuses_sampling_settings {
        return Ok(());
    }
    if let Some(temperature) = body.get("temperature")
        && temperature.as_f64() != Some(1.0)
    {
        return Err(Refusal::invalid(format!(
            "temperature: '{model}' supports only the default temperature; omit temperature (got {temperature})"
        )));
    }
    if body.pointer("/thinking/type").and_then(Value::as_str) == Some("enabled") {
        return Err(Refusal::invalid(format!(
            "thinking.type: 'enabled' (a manual budget_tokens) is not supported on '{model}'; use {{\"type\": \"adaptive\"}} and output_config.effort"
        )));
    }
    Ok(())
}

/// With the toolset declared: every tool_use of a member in the history carries
/// `toolset_name: "computer"`, and so does every tool_result answering one. Source:
/// anthropic 2.14.0 `anthropic/types/computer_toolset_20260801_param.py` and issue 37
/// ("every `tool_result` carries `toolset_name: \"computer\"`").
fn check_toolset_history(body: &Value) -> Result<(), Refusal> {
    let messages = body
        .get("messages")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let mut toolset_calls: Vec<&str> = Vec::new();
    for (m, message) in messages.iter().enumerate() {
        let blocks = message
            .get("content")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        for (b, block) in blocks.iter().enumerate() {
            let toolset_name = block.get("toolset_name").and_then(Value::as_str);
            match block.get("type").and_then(Value::as_str) {
                Some("tool_use") => {
                    let name = block.get("name").and_then(Value::as_str).unwrap_or("");
                    if toolset_name == Some(TOOLSET_NAME) {
                        toolset_calls.extend(block.get("id").and_then(Value::as_str));
                    } else if TOOLSET_MEMBERS.contains(&name) {
                        return Err(Refusal::invalid(format!(
                            "messages.{m}.content.{b}: tool_use '{name}' of the computer toolset must carry toolset_name '{TOOLSET_NAME}'"
                        )));
                    }
                }
                Some("tool_result") => {
                    let answers = block.get("tool_use_id").and_then(Value::as_str);
                    if answers.is_some_and(|id| toolset_calls.contains(&id))
                        && toolset_name != Some(TOOLSET_NAME)
                    {
                        return Err(Refusal::invalid(format!(
                            "messages.{m}.content.{b}.toolset_name: a tool_result for a computer toolset tool_use must carry toolset_name '{TOOLSET_NAME}'"
                        )));
                    }
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// A scripted tool call in the toolset's shape: `tool_use("computer", {"action":
/// "left_click", "coordinate": [..]})` becomes `name: "left_click"`, `toolset_name:
/// "computer"`, `input: {"coordinate": [..]}`, with the `caller` the SDK's
/// `ComputerToolUseBlock` requires. A call of another tool is left as it is.
pub(crate) fn toolset_tool_use(block: &mut Value) {
    if block.get("type").and_then(Value::as_str) != Some("tool_use")
        || block.get("name").and_then(Value::as_str) != Some(TOOLSET_NAME)
    {
        return;
    }
    let Some(input) = block.get_mut("input").and_then(Value::as_object_mut) else {
        return;
    };
    let Some(Value::String(action)) = input.remove("action") else {
        return;
    };
    block["name"] = Value::String(action);
    block["toolset_name"] = json!(TOOLSET_NAME);
    if block.get("caller").is_none() {
        block["caller"] = json!({"type": "direct"});
    }
}
