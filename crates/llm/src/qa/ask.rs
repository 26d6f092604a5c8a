//! Asking one question about a fitted screenshot and reading a JSON answer checked against a
//! schema: the shared step of [`ask_image`] and element location.

use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_protocol::StopReason;
use serde_json::Value;

use super::json::extract_json;
use super::json::schema_errors;
use super::location::Point;
use crate::MessageRequest;
use crate::VlmError;
use crate::VlmProvider;
use crate::images::FittedImage;
use crate::images::fit_png;
use crate::images::png_block;

/// Output budget of one answer.
const MAX_TOKENS: u32 = 1024;

/// Why a question about an image got no usable answer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum QaError {
    /// The model call failed.
    #[error(transparent)]
    Provider(#[from] VlmError),
    /// The bytes are not a PNG this crate can read the size of.
    #[error("the screenshot is not a readable PNG: {detail}")]
    BadImage {
        /// The decoder's complaint.
        detail: String,
    },
    /// The schema given is not a valid JSON Schema.
    #[error("the answer schema is invalid: {detail}")]
    InvalidSchema {
        /// The validator's complaint.
        detail: String,
    },
    /// The model stopped before finishing (`max_tokens`) or declined (`refusal`).
    #[error("the model's answer is incomplete (stop reason {stop_reason:?}): {answer}")]
    Incomplete {
        /// Why it stopped.
        stop_reason: StopReason,
        /// What it had said (truncated).
        answer: String,
    },
    /// The answer holds no JSON.
    #[error("{detail}; answer: {answer}")]
    NotJson {
        /// Why no JSON was found.
        detail: String,
        /// The answer (truncated).
        answer: String,
    },
    /// The answer is JSON but breaks the schema.
    #[error("the answer does not follow the schema: {}; answer: {answer}", errors.join("; "))]
    SchemaViolation {
        /// One line per violation, `"<path>: <message>"`.
        errors: Vec<String>,
        /// The answer (truncated).
        answer: String,
    },
    /// The model says the element is not on the screen.
    #[error("element not found on the screenshot: {description}")]
    NotFound {
        /// The description asked for.
        description: String,
    },
    /// The model gave a point outside the screenshot.
    #[error("the model placed `{description}` at ({}, {}), outside the {width}x{height} screenshot", point.x, point.y)]
    OutOfBounds {
        /// The description asked for.
        description: String,
        /// The point it gave.
        point: Point,
        /// Screenshot width.
        width: u32,
        /// Screenshot height.
        height: u32,
    },
}

/// Asks `question` about the screenshot `png` and returns the answer as JSON validated
/// against `schema`. The screenshot is fitted to the model's image limits first
/// ([`crate::images`]): a tall page goes in labelled parts.
pub async fn ask_image<P: VlmProvider + ?Sized>(
    provider: &P,
    png: &[u8],
    question: &str,
    schema: &Value,
) -> Result<Value, QaError> {
    let fitted = fit_for(provider, png).await?;
    let mut system = String::from("You answer questions about screenshots of user interfaces.");
    if fitted.pieces.len() > 1 {
        system.push_str(
            " The screenshot is a tall page sent in parts, top to bottom, each labelled with \
             the page rows it shows; the parts overlap a little.",
        );
    }
    ask_with_system(provider, &fitted, question, schema, &system).await
}

/// `png` fitted to `provider`'s image limits, on the blocking pool (a tall page takes a
/// while to decode and resize).
pub(crate) async fn fit_for<P: VlmProvider + ?Sized>(
    provider: &P,
    png: &[u8],
) -> Result<FittedImage, QaError> {
    let limits = provider.image_limits();
    let png = png.to_vec();
    let fitted = tokio::task::spawn_blocking(move || fit_png(&png, limits))
        .await
        .map_err(|e| QaError::BadImage {
            detail: format!("fitting the screenshot to the model's limits failed: {e}"),
        })?;
    fitted.map_err(|e| QaError::BadImage {
        detail: e.to_string(),
    })
}

/// [`ask_image`] with a task-specific system prompt (the schema is appended to it), on a
/// screenshot already fitted (an image sent as it is goes without a label, as before).
pub(crate) async fn ask_with_system<P: VlmProvider + ?Sized>(
    provider: &P,
    fitted: &FittedImage,
    question: &str,
    schema: &Value,
    system: &str,
) -> Result<Value, QaError> {
    // Fail on a bad schema before paying for a model call.
    schema_errors(schema, &Value::Null).map_err(|detail| QaError::InvalidSchema { detail })?;
    let system = format!(
        "{system}\nAnswer with one JSON value only, no prose, following this JSON Schema:\n{schema}"
    );
    let mut blocks = match fitted.pieces.as_slice() {
        [piece] if fitted.is_unchanged() => vec![png_block(&piece.png)],
        _ => fitted.content_blocks("The screenshot"),
    };
    blocks.push(ContentBlock::text(question));
    let request = MessageRequest::new(vec![Message::user(blocks)], MAX_TOKENS)
        .with_system(system)
        .with_temperature(0.0)
        .with_response_schema(schema.clone());
    let response = provider.create_message(&request).await?;
    let text = response.text();
    if matches!(
        response.stop_reason,
        StopReason::MaxTokens | StopReason::Refusal
    ) {
        return Err(QaError::Incomplete {
            stop_reason: response.stop_reason,
            answer: crate::error::excerpt(&text),
        });
    }
    let value = extract_json(&text).map_err(|detail| QaError::NotJson {
        detail,
        answer: crate::error::excerpt(&text),
    })?;
    let errors =
        schema_errors(schema, &value).map_err(|detail| QaError::InvalidSchema { detail })?;
    if !errors.is_empty() {
        return Err(QaError::SchemaViolation {
            errors,
            answer: crate::error::excerpt(&text),
        });
    }
    Ok(value)
}
