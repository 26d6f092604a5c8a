//! List prices and what a run's token usage costs at them.

use retrace_protocol::Usage;

/// Prices in US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Pricing {
    /// Uncached input tokens.
    pub input_per_mtok: f64,
    /// Output tokens.
    pub output_per_mtok: f64,
    /// Input tokens written to the prompt cache.
    pub cache_write_per_mtok: f64,
    /// Input tokens read from the prompt cache.
    pub cache_read_per_mtok: f64,
}

impl Pricing {
    /// Prices with Anthropic's cache ratios: writes cost 1.25× input, reads 0.1×.
    pub fn with_anthropic_cache_ratios(input_per_mtok: f64, output_per_mtok: f64) -> Self {
        Self {
            input_per_mtok,
            output_per_mtok,
            cache_write_per_mtok: input_per_mtok * 1.25,
            cache_read_per_mtok: input_per_mtok * 0.1,
        }
    }

    /// The cost of `usage` in US dollars.
    pub fn cost(&self, usage: &Usage) -> f64 {
        let per_token = |tokens: u64, per_mtok: f64| tokens as f64 * per_mtok / 1_000_000.0;
        per_token(usage.input_tokens, self.input_per_mtok)
            + per_token(usage.output_tokens, self.output_per_mtok)
            + per_token(usage.cache_creation_input_tokens, self.cache_write_per_mtok)
            + per_token(usage.cache_read_input_tokens, self.cache_read_per_mtok)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_sums_every_kind_of_token() {
        let pricing = Pricing::with_anthropic_cache_ratios(3.0, 15.0);
        let usage = Usage {
            input_tokens: 1_000_000,
            output_tokens: 100_000,
            cache_creation_input_tokens: 200_000,
            cache_read_input_tokens: 1_000_000,
        };
        // 3.0 + 1.5 + 0.75 + 0.3
        assert!((pricing.cost(&usage) - 5.55).abs() < 1e-9);
    }
}
