//! The OpenAI chat completions API's refusals: the GPT-5 and later models take
//! `max_completion_tokens`, not `max_tokens`, and only the default `temperature`.
//!
//! Any other model id (open models behind vLLM, Ollama, llama.cpp or LM Studio, `fake-model`)
//! keeps `max_tokens` and any `temperature`, as those servers do.

use serde_json::Value;
use serde_json::json;

use super::Refusal;

/// The model families that refuse `max_tokens` and a non-default `temperature`: every id of
/// `openai/types/shared/chat_model.py` (openai 3.57.0) from `gpt-5` on (`gpt-5`,
/// `gpt-5-mini`, `gpt-5.1`, `gpt-5.2-pro`, ..., `gpt-6-sol`), matched by prefix so dated
/// snapshots (`gpt-5-2025-08-07`) are covered. Source for the behaviour: issue 37 ("the
/// GPT-5.x models refuse `max_tokens` ... and any non-default `temperature`") and the API's
/// answers quoted below.
pub(crate) const REASONING_MODEL_PREFIXES: [&str; 2] = ["gpt-5", "gpt-6"];

/// Whether `model` is one of [`REASONING_MODEL_PREFIXES`]' families.
pub(crate) fn refuses_max_tokens(model: &str) -> bool {
    REASONING_MODEL_PREFIXES.iter().any(|prefix| {
        model
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '-']))
    })
}

/// What the reply needs from an admitted request: `{"model": ...}`.
pub(crate) fn admit(raw: &[u8]) -> Result<Value, Refusal> {
    #[derive(serde::Deserialize)]
    struct Head {
        model: Option<Value>,
        max_tokens: Option<Value>,
        temperature: Option<Value>,
    }
    let Ok(head) = serde_json::from_slice::<Head>(raw) else {
        return Ok(json!({}));
    };
    let model = head.model.as_ref().and_then(Value::as_str).unwrap_or("");
    if refuses_max_tokens(model) {
        if head.max_tokens.is_some() {
            // Source: the API's answer for gpt-5 (griptape-ai/ComfyUI-Griptape#312):
            // {'error': {'message': "Unsupported parameter: 'max_tokens' is not supported with
            // this model. Use 'max_completion_tokens' instead.", 'type':
            // 'invalid_request_error', 'param': 'max_tokens', 'code': 'unsupported_parameter'}}
            return Err(Refusal {
                param: Some("max_tokens"),
                code: Some("unsupported_parameter"),
                ..Refusal::invalid(
                    "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.".into(),
                )
            });
        }
        if let Some(temperature) = head.temperature.filter(|t| t.as_f64() != Some(1.0)) {
            // Source: the API's answer for gpt-5 (gabrii/Cursor-Azure-GPT-5#33): "Unsupported
            // value: 'temperature' does not support 0 with this model. Only the default (1)
            // value is supported.", param 'temperature', code 'unsupported_value'.
            return Err(Refusal {
                param: Some("temperature"),
                code: Some("unsupported_value"),
                ..Refusal::invalid(format!(
                    "Unsupported value: 'temperature' does not support {temperature} with this model. Only the default (1) value is supported."
                ))
            });
        }
    }
    Ok(json!({"model": head.model}))
}
