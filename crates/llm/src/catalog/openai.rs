//! OpenAI's models and open grounding models served by OpenAI-compatible servers.
//!
//! Sources:
//! - OpenAI ids: `openai` 3.57.0 (PyPI), `openai/types/shared/chat_model.py`. The GPT-5
//!   models refuse `max_tokens` (they take `max_completion_tokens`,
//!   `types/chat/completion_create_params.py`) and any `temperature` but the default
//!   (issue 37; OpenAI's reasoning-model documentation). Their computer tool here is a chat
//!   completions function; OpenAI's own computer tool lives in the Responses API
//!   (`types/responses/computer_tool_param.py`, `computer_use_preview_tool_param.py`), which
//!   `computer-use-preview` requires.
//! - OpenAI images: platform.openai.com/docs/guides/images-vision (high detail scales an
//!   image to fit 2048x2048).
//! - Open models: Qwen2.5-VL answers in pixels of the image its processor resized (each side
//!   a multiple of 28: `smart_resize` in transformers' `qwen2_vl/image_processing_qwen2_vl.py`);
//!   Qwen3-VL in coordinates normalised to 0-1000 (its model card's grounding examples).
//! - UI-TARS-1.5 answers in text (`Action: click(start_box='(x,y)')`), in pixels of the
//!   image as its Qwen2.5-VL processor resized it: bytedance/UI-TARS
//!   `codes/ui_tars/action_parser.py` (`parse_action_to_structure_output` divides qwen25vl
//!   answers by `smart_resize`'s height and width, factor 28) and `README_coordinates.md`.
//!   No API limit on image size; their processors cap pixels (`max_pixels`), so 1280 px is
//!   recommended and 8192 taken as the ceiling.

use super::forms::ComputerToolForm;
use super::forms::Coordinates;
use super::forms::ThinkingForm;
use super::forms::TokenLimitField;
use super::model_info::ImageLimits;
use super::model_info::ModelInfo;
use super::model_info::ModelProvider;

const OPENAI_IMAGES: ImageLimits = ImageLimits {
    max_long_side: 2048,
    recommended_long_side: 2048,
};

/// Image limits assumed for open models on OpenAI-compatible servers.
pub(super) const OPEN_MODEL_IMAGES: ImageLimits = ImageLimits {
    max_long_side: 8192,
    recommended_long_side: 1280,
};

const SOURCE_OPENAI: &str = "openai 3.57.0 (PyPI): types/shared/chat_model.py, \
types/chat/completion_create_params.py (max_completion_tokens); issue 37 (no max_tokens, no \
temperature on GPT-5 models)";
const SOURCE_QWEN25: &str = "Qwen2.5-VL: transformers qwen2_vl image processor smart_resize \
(sides rounded to multiples of 28)";
const SOURCE_UI_TARS: &str = "bytedance/UI-TARS: codes/ui_tars/action_parser.py \
(parse_action_to_structure_output: text actions, qwen25vl points in smart_resize pixels, factor \
28), codes/ui_tars/prompt.py (action space), README_coordinates.md";
const SOURCE_QWEN3: &str = "Qwen3-VL model card: grounding coordinates normalised to 0-1000";

const fn gpt5(id: &'static str) -> ModelInfo {
    ModelInfo {
        id,
        aliases: &[],
        provider: ModelProvider::Openai,
        computer_tool: Some(ComputerToolForm::Function),
        coordinates: Coordinates::Pixels,
        takes_temperature: false,
        thinking: ThinkingForm::None,
        token_limit: TokenLimitField::MaxCompletionTokens,
        images: OPENAI_IMAGES,
        pricing: None,
        end_of_life: None,
        source: SOURCE_OPENAI,
    }
}

const fn open_model(
    id: &'static str,
    aliases: &'static [&'static str],
    coordinates: Coordinates,
    source: &'static str,
) -> ModelInfo {
    ModelInfo {
        id,
        aliases,
        provider: ModelProvider::OpenaiCompatible,
        computer_tool: Some(ComputerToolForm::Function),
        coordinates,
        takes_temperature: true,
        thinking: ThinkingForm::None,
        token_limit: TokenLimitField::MaxTokens,
        images: OPEN_MODEL_IMAGES,
        pricing: None,
        end_of_life: None,
        source,
    }
}

const QWEN25: Coordinates = Coordinates::Resized { factor: 28 };
const QWEN3: Coordinates = Coordinates::Normalized { scale: 1000 };

/// OpenAI's models, then open models.
pub(super) const MODELS: &[ModelInfo] = &[
    gpt5("gpt-5.5"),
    gpt5("gpt-5.4"),
    gpt5("gpt-5.4-mini"),
    gpt5("gpt-5.2"),
    gpt5("gpt-5.1"),
    gpt5("gpt-5"),
    gpt5("gpt-5-mini"),
    ModelInfo {
        computer_tool: Some(ComputerToolForm::ResponsesComputer),
        token_limit: TokenLimitField::MaxOutputTokens,
        source: "openai 3.57.0 (PyPI): types/responses/computer_use_preview_tool_param.py",
        ..gpt5("computer-use-preview")
    },
    open_model(
        "Qwen/Qwen2.5-VL-7B-Instruct",
        &["qwen2.5vl:7b", "qwen2.5-vl-7b-instruct"],
        QWEN25,
        SOURCE_QWEN25,
    ),
    open_model(
        "Qwen/Qwen2.5-VL-32B-Instruct",
        &["qwen2.5vl:32b", "qwen2.5-vl-32b-instruct"],
        QWEN25,
        SOURCE_QWEN25,
    ),
    open_model(
        "Qwen/Qwen2.5-VL-72B-Instruct",
        &["qwen2.5vl:72b", "qwen2.5-vl-72b-instruct"],
        QWEN25,
        SOURCE_QWEN25,
    ),
    ModelInfo {
        computer_tool: Some(ComputerToolForm::UiTarsText),
        ..open_model(
            "ByteDance-Seed/UI-TARS-1.5-7B",
            &["ui-tars-1.5-7b", "ui-tars:7b", "UI-TARS-1.5-7B"],
            QWEN25,
            SOURCE_UI_TARS,
        )
    },
    open_model(
        "Qwen/Qwen3-VL-8B-Instruct",
        &["qwen3-vl:8b", "qwen3-vl-8b-instruct"],
        QWEN3,
        SOURCE_QWEN3,
    ),
    open_model(
        "Qwen/Qwen3-VL-30B-A3B-Instruct",
        &["qwen3-vl:30b", "qwen3-vl-30b-a3b-instruct"],
        QWEN3,
        SOURCE_QWEN3,
    ),
];
