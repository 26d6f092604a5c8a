//! The shapes a model's requests and answers take: computer tool forms, coordinate spaces,
//! thinking forms, output-limit fields. Each has the name a flag and `retrace models` use.

use std::fmt;
use std::str::FromStr;

/// A form of the computer-use tool, as one API declares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(into = "&'static str")]
pub enum ComputerToolForm {
    /// Anthropic `computer_20250124` (beta `computer-use-2025-01-24`): one `computer` tool,
    /// the action in `input.action`.
    Computer20250124,
    /// Anthropic `computer_20251124` (beta `computer-use-2025-11-24`): the same shape with
    /// `zoom` (`enable_zoom`).
    Computer20251124,
    /// Anthropic `computer_toolset_20260801` (generally available, no beta header): one
    /// nameless `tools[]` entry; each action is a `tool_use` named by the action, with
    /// `toolset_name: "computer"`, echoed on its `tool_result`.
    Toolset20260801,
    /// OpenAI's Responses API `computer` tool (`computer_call` / `computer_call_output`).
    ResponsesComputer,
    /// A plain function tool named `computer` (any OpenAI-compatible server).
    Function,
    /// No tool: UI-TARS's action space in the prompt and its text answers
    /// (`Action: click(start_box='(x,y)')`) read as `computer` calls
    /// ([`crate::openai::ui_tars`]).
    UiTarsText,
}

impl ComputerToolForm {
    /// Anthropic's newest form: what an Anthropic model the catalogue does not know gets.
    pub const NEWEST_ANTHROPIC: ComputerToolForm = ComputerToolForm::Toolset20260801;

    /// Every form, in the order `--computer-tool` lists them.
    pub const ALL: [ComputerToolForm; 6] = [
        ComputerToolForm::Computer20250124,
        ComputerToolForm::Computer20251124,
        ComputerToolForm::Toolset20260801,
        ComputerToolForm::ResponsesComputer,
        ComputerToolForm::Function,
        ComputerToolForm::UiTarsText,
    ];

    /// The name flags and listings use: the API's tool `type` for Anthropic's forms.
    pub fn name(self) -> &'static str {
        match self {
            ComputerToolForm::Computer20250124 => "computer_20250124",
            ComputerToolForm::Computer20251124 => "computer_20251124",
            ComputerToolForm::Toolset20260801 => "computer_toolset_20260801",
            ComputerToolForm::ResponsesComputer => "responses_computer",
            ComputerToolForm::Function => "function",
            ComputerToolForm::UiTarsText => "ui_tars_text",
        }
    }

    /// The `anthropic-beta` flag the form needs, if any.
    pub fn anthropic_beta(self) -> Option<&'static str> {
        match self {
            ComputerToolForm::Computer20250124 => Some("computer-use-2025-01-24"),
            ComputerToolForm::Computer20251124 => Some("computer-use-2025-11-24"),
            _ => None,
        }
    }

    /// Whether this is one of Anthropic's forms.
    pub fn is_anthropic(self) -> bool {
        matches!(
            self,
            ComputerToolForm::Computer20250124
                | ComputerToolForm::Computer20251124
                | ComputerToolForm::Toolset20260801
        )
    }

    /// Whether the model may zoom (`zoom` action) with this form.
    pub fn has_zoom(self) -> bool {
        matches!(
            self,
            ComputerToolForm::Computer20251124 | ComputerToolForm::Toolset20260801
        )
    }

    /// The Anthropic form to try after this one was refused as unsupported: the next older
    /// one, and from the oldest the newest (an unknown model is usually newer).
    pub fn anthropic_fallback(self) -> Option<ComputerToolForm> {
        match self {
            ComputerToolForm::Toolset20260801 => Some(ComputerToolForm::Computer20251124),
            ComputerToolForm::Computer20251124 => Some(ComputerToolForm::Computer20250124),
            ComputerToolForm::Computer20250124 => Some(ComputerToolForm::Toolset20260801),
            ComputerToolForm::ResponsesComputer
            | ComputerToolForm::Function
            | ComputerToolForm::UiTarsText => None,
        }
    }
}

impl From<ComputerToolForm> for &'static str {
    fn from(form: ComputerToolForm) -> Self {
        form.name()
    }
}

impl fmt::Display for ComputerToolForm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ComputerToolForm {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        ComputerToolForm::ALL
            .into_iter()
            .find(|form| form.name() == text)
            .ok_or_else(|| {
                let names: Vec<&str> = ComputerToolForm::ALL.iter().map(|f| f.name()).collect();
                format!(
                    "unknown computer tool form `{text}`: use one of {}",
                    names.join(", ")
                )
            })
    }
}

/// The coordinate space a model answers in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Coordinates {
    /// Pixels of the screenshot it was sent.
    Pixels,
    /// Pixels of the screenshot as the server resized it, each side rounded to a multiple
    /// of `factor` (Qwen2.5-VL: 28, so 1280x800 is seen as 1288x812).
    Resized {
        /// The multiple each side is rounded to.
        factor: u32,
    },
    /// Each axis normalised to `0..=scale` (Qwen3-VL, UI-TARS-1.5: 1000).
    Normalized {
        /// The value of the far edge.
        scale: u32,
    },
}

impl fmt::Display for Coordinates {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Coordinates::Pixels => f.write_str("pixels"),
            Coordinates::Resized { factor } => write!(f, "resized:{factor}"),
            Coordinates::Normalized { scale } => write!(f, "normalized:{scale}"),
        }
    }
}

impl serde::Serialize for Coordinates {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl FromStr for Coordinates {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        let number = |value: &str, what: &str| -> Result<u32, String> {
            value
                .parse::<u32>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("`{text}`: {what} must be a whole number above 0"))
        };
        match text.split_once(':') {
            None if text == "pixels" => Ok(Coordinates::Pixels),
            Some(("resized", factor)) => Ok(Coordinates::Resized {
                factor: number(factor, "the resize factor")?,
            }),
            Some(("normalized", scale)) => Ok(Coordinates::Normalized {
                scale: number(scale, "the scale")?,
            }),
            _ => Err(format!(
                "unknown coordinate space `{text}`: use pixels, resized:FACTOR (e.g. resized:28) \
                 or normalized:SCALE (e.g. normalized:1000)"
            )),
        }
    }
}

/// How a model is asked to think.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ThinkingForm {
    /// No thinking configuration.
    None,
    /// `{"type": "enabled", "budget_tokens": N}` (manual budgets).
    Budget,
    /// `{"type": "adaptive"}` with `output_config.effort`; manual budgets are refused.
    Adaptive,
}

/// The request field that limits the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenLimitField {
    /// `max_tokens` (Anthropic; OpenAI-compatible servers).
    MaxTokens,
    /// `max_completion_tokens` (OpenAI's own chat models; they refuse `max_tokens`).
    MaxCompletionTokens,
    /// `max_output_tokens` (OpenAI's Responses API).
    MaxOutputTokens,
}

impl TokenLimitField {
    /// The field's name in a request body.
    pub fn field(self) -> &'static str {
        match self {
            TokenLimitField::MaxTokens => "max_tokens",
            TokenLimitField::MaxCompletionTokens => "max_completion_tokens",
            TokenLimitField::MaxOutputTokens => "max_output_tokens",
        }
    }
}
