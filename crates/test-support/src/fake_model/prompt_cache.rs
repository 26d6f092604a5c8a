//! Prompt caching as Anthropic documents it, for the scripted server
//! ([`super::FakeAnthropic::start_with_prompt_cache`]): each request's usage is computed from
//! its `cache_control` breakpoints instead of being scripted.
//!
//! The rules (platform.claude.com/docs/en/build-with-claude/prompt-caching):
//! - the prefix is `tools`, then `system`, then `messages`, block by block; a breakpoint is a
//!   block with `cache_control`, and the top-level `cache_control` marks the last block;
//! - at most 4 breakpoints: "A maximum of 4 blocks with cache_control may be provided";
//! - a prefix shorter than the model's minimum cacheable length is not cached (1024 tokens
//!   for Sonnet models, 4096 for Opus 4.5 and Haiku 4.5, 2048 for older Haiku models);
//! - a request reads the longest cached prefix ending at a breakpoint or at one of the 20
//!   blocks before it (the documented lookback), and writes the prefix up to its last
//!   breakpoint;
//! - tokens are estimated: text at 4 characters a token, an image at width x height / 750
//!   (the vision documentation's formula); a request with tools also pays the tool-use system
//!   prompt (346 tokens with `tool_choice` auto or none, 313 with any or tool: the tool-use
//!   documentation's "Tool use system prompt token count" for the Claude 4.x models), and one
//!   with the computer tool its documented overhead (735 tokens of tool definition and 466 of
//!   system prompt: the computer-use documentation's pricing section). Both sit in the first
//!   block of the prefix, so they are cached with it.

use std::collections::HashMap;
use std::hash::Hash;
use std::hash::Hasher;
use std::sync::Mutex;

use base64::Engine;
use serde_json::Value;
use serde_json::json;

use super::compat::Refusal;

/// The documented maximum of breakpoints in one request.
const MAX_BREAKPOINTS: usize = 4;
/// Blocks before a breakpoint at which a cache hit is still found.
const LOOKBACK_BLOCKS: usize = 20;
/// The computer tool's input-token overhead: tool definition and system prompt (the
/// computer-use documentation's pricing section).
const COMPUTER_TOOL_TOKENS: u64 = 735 + 466;
/// The system prompt the API adds when `tools` are given, by `tool_choice` (the tool-use
/// documentation's "Tool use system prompt token count", Claude 4.x models).
const TOOL_USE_PROMPT_AUTO_TOKENS: u64 = 346;
const TOOL_USE_PROMPT_FORCED_TOKENS: u64 = 313;

/// The prefixes cached so far, by hash, with their token counts.
#[derive(Default)]
pub(crate) struct PromptCache {
    cached: Mutex<HashMap<u64, u64>>,
}

impl PromptCache {
    /// The usage of `body` (input, cache write and cache read tokens), caching what it
    /// writes; a refusal for more than four breakpoints.
    pub(crate) fn usage(&self, body: &[u8]) -> Result<Value, Refusal> {
        let Ok(request) = serde_json::from_slice::<Value>(body) else {
            return Ok(json!({}));
        };
        let blocks = prefix_blocks(&request);
        let mut breakpoints: Vec<usize> = blocks
            .iter()
            .enumerate()
            .filter(|(_, block)| block.get("cache_control").is_some_and(|c| !c.is_null()))
            .map(|(index, _)| index)
            .collect();
        let automatic = request.get("cache_control").is_some_and(|c| !c.is_null());
        if automatic && !blocks.is_empty() {
            breakpoints.push(blocks.len() - 1);
        }
        if breakpoints.len() > MAX_BREAKPOINTS {
            return Err(Refusal::invalid(format!(
                "A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. Found {}.",
                breakpoints.len()
            )));
        }
        let model = request.get("model").and_then(Value::as_str).unwrap_or("");
        let minimum = minimum_cacheable(model);
        let (hashes, tokens) = running_hashes_and_tokens(&blocks, tool_overhead(&request));
        let total = tokens.last().copied().unwrap_or(0);
        let mut cached = self
            .cached
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let read = breakpoints
            .iter()
            .flat_map(|&at| (at.saturating_sub(LOOKBACK_BLOCKS)..=at).rev())
            .filter_map(|at| cached.get(&hashes[at]).copied())
            .max()
            .unwrap_or(0);
        let mut written = read;
        for &at in &breakpoints {
            if tokens[at] >= minimum && !cached.contains_key(&hashes[at]) {
                cached.insert(hashes[at], tokens[at]);
                written = written.max(tokens[at]);
            }
        }
        let write = written - read;
        Ok(json!({
            "input_tokens": total - write - read,
            "cache_creation_input_tokens": write,
            "cache_read_input_tokens": read,
        }))
    }
}

/// The minimum cacheable prompt length of `model`, in tokens.
fn minimum_cacheable(model: &str) -> u64 {
    if model.starts_with("claude-opus-4-5") || model.starts_with("claude-haiku-4-5") {
        4096
    } else if model.contains("haiku") {
        2048
    } else {
        1024
    }
}

/// The blocks of the prefix in order: tools, system, each message's content blocks.
fn prefix_blocks(request: &Value) -> Vec<Value> {
    let mut blocks: Vec<Value> = request
        .get("tools")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    match request.get("system") {
        Some(Value::String(text)) => blocks.push(json!({"type": "text", "text": text})),
        Some(Value::Array(system)) => blocks.extend(system.iter().cloned()),
        _ => {}
    }
    for message in request
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let role = message.get("role").cloned().unwrap_or(Value::Null);
        match message.get("content") {
            Some(Value::String(text)) => blocks.push(json!({"role": role, "text": text})),
            Some(Value::Array(content)) => {
                for (index, block) in content.iter().enumerate() {
                    let mut block = block.clone();
                    if index == 0
                        && let Some(object) = block.as_object_mut()
                    {
                        // A message boundary is part of what is cached.
                        object.insert("__role".into(), role.clone());
                    }
                    blocks.push(block);
                }
            }
            _ => {}
        }
    }
    blocks
}

/// The tokens the API adds to a request's prefix for its tools: the tool-use system prompt
/// and the computer tool's overhead.
fn tool_overhead(request: &Value) -> u64 {
    let Some(tools) = request
        .get("tools")
        .and_then(Value::as_array)
        .filter(|tools| !tools.is_empty())
    else {
        return 0;
    };
    let forced = request
        .pointer("/tool_choice/type")
        .and_then(Value::as_str)
        .is_some_and(|kind| kind == "any" || kind == "tool");
    let prompt = if forced {
        TOOL_USE_PROMPT_FORCED_TOKENS
    } else {
        TOOL_USE_PROMPT_AUTO_TOKENS
    };
    let computer = if tools.iter().any(is_computer_tool) {
        COMPUTER_TOOL_TOKENS
    } else {
        0
    };
    prompt + computer
}

/// For each block, the hash of the prefix ending with it and the prefix's tokens; `overhead`
/// counts with the first block.
fn running_hashes_and_tokens(blocks: &[Value], overhead: u64) -> (Vec<u64>, Vec<u64>) {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    let mut total = 0;
    let mut hashes = Vec::with_capacity(blocks.len());
    let mut tokens = Vec::with_capacity(blocks.len());
    for (index, block) in blocks.iter().enumerate() {
        let mut plain = block.clone();
        strip_cache_control(&mut plain);
        plain.to_string().hash(&mut hasher);
        hashes.push(hasher.finish());
        total += block_tokens(&plain);
        if index == 0 {
            total += overhead;
        }
        tokens.push(total);
    }
    (hashes, tokens)
}

fn is_computer_tool(block: &Value) -> bool {
    block
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|kind| kind.starts_with("computer_"))
}

fn strip_cache_control(value: &mut Value) {
    match value {
        Value::Object(object) => {
            object.remove("cache_control");
            object.values_mut().for_each(strip_cache_control);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_cache_control),
        _ => {}
    }
}

/// Estimated tokens of one block: images by their size, everything else by its text.
fn block_tokens(value: &Value) -> u64 {
    match value {
        Value::Object(object) => {
            if object.get("type").and_then(Value::as_str) == Some("image")
                && let Some(data) = value.pointer("/source/data").and_then(Value::as_str)
            {
                return image_tokens(data);
            }
            object.values().map(block_tokens).sum()
        }
        Value::Array(items) => items.iter().map(block_tokens).sum(),
        Value::String(text) => (text.len() as u64).div_ceil(4),
        _ => 1,
    }
}

/// width x height / 750 from a base64 PNG's header (1600 when it cannot be read).
fn image_tokens(base64_png: &str) -> u64 {
    let head: String = base64_png.chars().take(32).collect();
    let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(head) else {
        return 1600;
    };
    let dimension = |at: usize| {
        bytes
            .get(at..at + 4)
            .map(|b| u64::from(u32::from_be_bytes([b[0], b[1], b[2], b[3]])))
    };
    match (dimension(16), dimension(20)) {
        (Some(width), Some(height)) => (width * height).div_ceil(750),
        _ => 1600,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(messages: Value, automatic: bool) -> Vec<u8> {
        let mut body = json!({
            "model": "claude-sonnet-5",
            "system": [{"type": "text", "text": "s".repeat(8000), "cache_control": {"type": "ephemeral"}}],
            "messages": messages,
        });
        if automatic {
            body["cache_control"] = json!({"type": "ephemeral"});
        }
        serde_json::to_vec(&body).unwrap()
    }

    #[test]
    fn a_prefix_is_written_once_then_read() {
        let cache = PromptCache::default();
        let first = cache
            .usage(&request(json!([{"role": "user", "content": "hi"}]), true))
            .unwrap();
        assert_eq!(first["cache_read_input_tokens"], 0);
        assert!(first["cache_creation_input_tokens"].as_u64().unwrap() >= 2000);
        let second = cache
            .usage(&request(
                json!([{"role": "user", "content": "hi"},
                       {"role": "assistant", "content": "ok"},
                       {"role": "user", "content": "more"}]),
                true,
            ))
            .unwrap();
        assert_eq!(
            second["cache_read_input_tokens"],
            first["cache_creation_input_tokens"]
        );
    }

    #[test]
    fn short_prefixes_are_not_cached_and_five_breakpoints_are_refused() {
        let cache = PromptCache::default();
        let short = json!({"model": "claude-sonnet-5", "cache_control": {"type": "ephemeral"},
                           "messages": [{"role": "user", "content": "hi"}]});
        let usage = cache.usage(&serde_json::to_vec(&short).unwrap()).unwrap();
        assert_eq!(usage["cache_creation_input_tokens"], 0);
        let marked = json!({"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}});
        let five = json!({"model": "claude-sonnet-5", "cache_control": {"type": "ephemeral"},
            "messages": [{"role": "user", "content": [marked, marked, marked, marked]}]});
        let refusal = cache
            .usage(&serde_json::to_vec(&five).unwrap())
            .unwrap_err();
        assert!(
            refusal.message.contains("A maximum of 4 blocks"),
            "{}",
            refusal.message
        );
    }

    /// The tool-use system prompt and the computer tool's overhead are billed with the
    /// prefix, by `tool_choice`.
    #[test]
    fn tools_pay_the_documented_system_prompt() {
        let usage = |body: Value| {
            let usage = PromptCache::default()
                .usage(&serde_json::to_vec(&body).unwrap())
                .unwrap();
            usage["input_tokens"].as_u64().unwrap()
        };
        let plain =
            json!({"model": "claude-sonnet-5", "messages": [{"role": "user", "content": "hi"}]});
        let mut auto = plain.clone();
        auto["tools"] = json!([{"name": "f", "input_schema": {"type": "object"}}]);
        let mut forced = auto.clone();
        forced["tool_choice"] = json!({"type": "any"});
        let mut computer = auto.clone();
        computer["tools"] = json!([{"type": "computer_20251124", "name": "computer",
            "display_width_px": 1280, "display_height_px": 800}]);
        let base = usage(plain);
        // The tool itself: "f" (1 token) and "object" (2).
        let tool_tokens = usage(auto.clone()) - base - 3;
        assert_eq!(tool_tokens, 346);
        assert_eq!(usage(auto) - usage(forced), 346 - 313);
        assert!(usage(computer) - base > 346 + 735 + 466);
    }
}
