//! Token accounting and stop reasons.

use serde::Deserialize;
use serde::Serialize;

/// Tokens used by one model call, or summed over many. Field names are the Anthropic ones,
/// which askui also writes as `metadata.token_usage`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Input tokens not read from or written to the prompt cache.
    #[serde(default)]
    pub input_tokens: u64,
    /// Output tokens.
    #[serde(default)]
    pub output_tokens: u64,
    /// Input tokens written to the prompt cache.
    #[serde(default, deserialize_with = "null_as_zero")]
    pub cache_creation_input_tokens: u64,
    /// Input tokens read from the prompt cache.
    #[serde(default, deserialize_with = "null_as_zero")]
    pub cache_read_input_tokens: u64,
}

fn null_as_zero<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
    Ok(Option::<u64>::deserialize(deserializer)?.unwrap_or(0))
}

impl Usage {
    /// All input tokens, cached or not.
    pub fn total_input(&self) -> u64 {
        self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens
    }
}

impl std::ops::Add for Usage {
    type Output = Usage;
    fn add(self, other: Usage) -> Usage {
        Usage {
            input_tokens: self.input_tokens + other.input_tokens,
            output_tokens: self.output_tokens + other.output_tokens,
            cache_creation_input_tokens: self.cache_creation_input_tokens
                + other.cache_creation_input_tokens,
            cache_read_input_tokens: self.cache_read_input_tokens + other.cache_read_input_tokens,
        }
    }
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        *self = *self + other;
    }
}

/// Why a model stopped generating.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The model finished its turn.
    EndTurn,
    /// The output hit `max_tokens`; the answer is cut off.
    MaxTokens,
    /// A stop sequence was produced.
    StopSequence,
    /// The model wants tools run.
    ToolUse,
    /// A long-running turn was paused; send it back to continue.
    PauseTurn,
    /// The model declined to answer.
    Refusal,
    /// The conversation filled the model's context window (`anthropic` 2.14.0,
    /// `types/stop_reason.py`): the answer is cut off and no further turn fits.
    ModelContextWindowExceeded,
    /// A reason this crate does not know, kept as sent.
    #[serde(untagged)]
    Other(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_adds_and_reads_nulls() {
        let a: Usage = serde_json::from_str(
            r#"{"input_tokens":1,"output_tokens":2,"cache_creation_input_tokens":null}"#,
        )
        .unwrap();
        let b = Usage {
            input_tokens: 10,
            output_tokens: 20,
            cache_creation_input_tokens: 3,
            cache_read_input_tokens: 4,
        };
        let sum = a + b;
        assert_eq!(
            sum,
            Usage {
                input_tokens: 11,
                output_tokens: 22,
                cache_creation_input_tokens: 3,
                cache_read_input_tokens: 4
            }
        );
        assert_eq!(sum.total_input(), 18);
    }

    #[test]
    fn stop_reason_keeps_unknown() {
        let known: StopReason = serde_json::from_str(r#""max_tokens""#).unwrap();
        assert_eq!(known, StopReason::MaxTokens);
        let full: StopReason = serde_json::from_str(r#""model_context_window_exceeded""#).unwrap();
        assert_eq!(full, StopReason::ModelContextWindowExceeded);
        let unknown: StopReason = serde_json::from_str(r#""compaction_needed""#).unwrap();
        assert_eq!(unknown, StopReason::Other("compaction_needed".into()));
        assert_eq!(
            serde_json::to_string(&unknown).unwrap(),
            r#""compaction_needed""#
        );
    }
}
