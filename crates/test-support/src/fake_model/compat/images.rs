//! The Anthropic Messages API's image size limits, for every model.
//!
//! Source: the vision documentation ("images larger than 8000x8000 px will be rejected"; when
//! more than 20 images are sent in one request, 2000x2000 px) and the API's own answers,
//! quoted in public reports: anthropics/claude-code#11576 (`messages.3.content.2.image.source.
//! base64.data: At least one of the image dimensions exceed max allowed size: 8000 pixels`)
//! and anthropics/claude-code#9375 (`... exceed max allowed size for many-image requests:
//! 2000 pixels`).

use base64::Engine;
use serde_json::Value;

use super::Refusal;

/// The longest side any image may have.
const MAX_SIDE: u32 = 8000;
/// The longest side when a request carries more than [`MANY_IMAGES`] images.
const MANY_IMAGES_MAX_SIDE: u32 = 2000;
/// How many images make a many-image request (more than this).
const MANY_IMAGES: usize = 20;

/// Refuses the first image of `body` over its limit (see the module docs).
pub(crate) fn check_images(body: &Value) -> Result<(), Refusal> {
    let mut found = Vec::new();
    let messages = body.get("messages").and_then(Value::as_array);
    for (i, message) in messages.into_iter().flatten().enumerate() {
        let content = message.get("content").and_then(Value::as_array);
        for (j, block) in content.into_iter().flatten().enumerate() {
            let location = format!("messages.{i}.content.{j}");
            collect(block, &location, &mut found);
            let nested = block.get("content").and_then(Value::as_array);
            for (k, inner) in nested.into_iter().flatten().enumerate() {
                collect(inner, &format!("{location}.content.{k}"), &mut found);
            }
        }
    }
    let many = found.len() > MANY_IMAGES;
    for (location, (width, height)) in found {
        let long = width.max(height);
        if long > MAX_SIDE {
            return Err(Refusal::invalid(format!(
                "{location}.image.source.base64.data: At least one of the image dimensions \
                 exceed max allowed size: {MAX_SIDE} pixels"
            )));
        }
        if many && long > MANY_IMAGES_MAX_SIDE {
            return Err(Refusal::invalid(format!(
                "{location}.image.source.base64.data: At least one of the image dimensions \
                 exceed max allowed size for many-image requests: {MANY_IMAGES_MAX_SIDE} pixels"
            )));
        }
    }
    Ok(())
}

/// `block`'s size when it is a base64 PNG image block.
fn collect(block: &Value, location: &str, found: &mut Vec<(String, (u32, u32))>) {
    if block.get("type").and_then(Value::as_str) != Some("image") {
        return;
    }
    let data = block.pointer("/source/data").and_then(Value::as_str);
    if let Some(size) = data.and_then(png_size) {
        found.push((location.to_owned(), size));
    }
}

/// Width and height from the IHDR of a base64 PNG (its first 24 bytes: 32 base64 chars).
fn png_size(data: &str) -> Option<(u32, u32)> {
    let head = base64::engine::general_purpose::STANDARD
        .decode(data.get(..32)?)
        .ok()?;
    let word = |at: usize| Some(u32::from_be_bytes(head.get(at..at + 4)?.try_into().ok()?));
    Some((word(16)?, word(20)?))
}
