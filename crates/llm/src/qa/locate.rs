//! Element detection: describe an element, get the point to act on and its box.
//!
//! The screenshot is fitted to the model's image limits first ([`crate::images`]); the model
//! answers in the pixels of the image it was shown (for a tall page cut into parts, of the
//! part it names), and the point and box are mapped back to the screenshot's pixels.

use serde::Deserialize;
use serde_json::Value;
use serde_json::json;

use super::ask::QaError;
use super::ask::ask_with_system;
use super::ask::fit_for;
use super::location::BoundingBox;
use super::location::ElementLocation;
use super::location::Point;
use crate::VlmProvider;
use crate::images::PieceTransform;

/// The answer schema the model fills (every property required, no others: strict-mode safe).
pub fn location_schema() -> Value {
    let coordinate = json!({"type": "integer", "minimum": 0});
    json!({
        "type": "object",
        "properties": {
            "found": {"type": "boolean", "description": "false when the element is not visible"},
            "point": {
                "type": "object",
                "properties": {"x": coordinate, "y": coordinate},
                "required": ["x", "y"],
                "additionalProperties": false,
            },
            "bbox": {
                "type": "object",
                "properties": {"left": coordinate, "top": coordinate, "right": coordinate, "bottom": coordinate},
                "required": ["left", "top", "right", "bottom"],
                "additionalProperties": false,
            },
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        },
        "required": ["found", "point", "bbox", "confidence"],
        "additionalProperties": false,
    })
}

/// [`location_schema`] for a screenshot sent in `parts` parts: one more required property,
/// `part` (1 to `parts`), naming the part the coordinates are in.
pub fn tiled_location_schema(parts: usize) -> Value {
    let mut schema = location_schema();
    schema["properties"]["part"] = json!({
        "type": "integer",
        "minimum": 1,
        "maximum": parts,
        "description": "the part the element is in (the one showing most of it)",
    });
    if let Some(required) = schema["required"].as_array_mut() {
        required.push(json!("part"));
    }
    schema
}

#[derive(Deserialize)]
struct Answer {
    found: bool,
    point: Point,
    bbox: BoundingBox,
    confidence: f64,
    #[serde(default)]
    part: Option<usize>,
}

/// Finds the element `description` names in the screenshot `png` and returns where to act on
/// it, in the screenshot's pixels. The answer is validated against [`location_schema`] (or
/// [`tiled_location_schema`] for a tall page sent in parts); a point outside the image the
/// model was shown is an error, and a box given corner-swapped is put right.
pub async fn locate_element<P: VlmProvider + ?Sized>(
    provider: &P,
    png: &[u8],
    description: &str,
) -> Result<ElementLocation, QaError> {
    let fitted = fit_for(provider, png).await?;
    let rules = "`point` is where a user would click the element (its centre unless something \
                 else is meant); `bbox` encloses it. If the element is not visible, answer \
                 found: false with zeros.";
    let (system, schema) = match fitted.pieces.as_slice() {
        [piece] => (
            format!(
                "You locate user-interface elements in screenshots. The screenshot is \
                 {}x{} pixels; coordinates are whole pixels from its top-left corner. {rules}",
                piece.transform.width, piece.transform.height
            ),
            location_schema(),
        ),
        parts => (
            format!(
                "You locate user-interface elements in screenshots. The screenshot is a tall \
                 page sent in {} parts, top to bottom, each labelled with the page rows it \
                 shows and its size; the parts overlap a little. `part` names the part the \
                 element is in (1 for the first), and coordinates are whole pixels of that \
                 part, from its top-left corner. {rules}",
                parts.len()
            ),
            tiled_location_schema(parts.len()),
        ),
    };
    let question = format!("Find this element: {description}");
    let value = ask_with_system(provider, &fitted, &question, &schema, &system).await?;
    let answer: Answer = serde_json::from_value(value).map_err(|e| QaError::SchemaViolation {
        errors: vec![e.to_string()],
        answer: String::new(),
    })?;
    if !answer.found {
        return Err(QaError::NotFound {
            description: description.into(),
        });
    }
    let index = answer.part.unwrap_or(1).saturating_sub(1);
    let Some(piece) = fitted.pieces.get(index) else {
        return Err(QaError::SchemaViolation {
            errors: vec![format!(
                "/part: {} is not one of the {} parts",
                index + 1,
                fitted.pieces.len()
            )],
            answer: String::new(),
        });
    };
    let shown = piece.transform;
    if answer.point.x >= shown.width || answer.point.y >= shown.height {
        return Err(QaError::OutOfBounds {
            description: description.into(),
            point: answer.point,
            width: shown.width,
            height: shown.height,
        });
    }
    let bbox = BoundingBox {
        left: answer.bbox.left.min(answer.bbox.right).min(shown.width),
        top: answer.bbox.top.min(answer.bbox.bottom).min(shown.height),
        right: answer.bbox.left.max(answer.bbox.right).min(shown.width),
        bottom: answer.bbox.top.max(answer.bbox.bottom).min(shown.height),
    };
    let (width, height) = (fitted.page_width, fitted.page_height);
    let page_box = to_page(&shown, bbox, (width, height));
    let point = to_page(
        &shown,
        BoundingBox {
            left: answer.point.x,
            top: answer.point.y,
            right: answer.point.x,
            bottom: answer.point.y,
        },
        (width.saturating_sub(1), height.saturating_sub(1)),
    );
    Ok(ElementLocation {
        point: Point {
            x: point.left,
            y: point.top,
        },
        bbox: page_box,
        confidence: answer.confidence,
    })
}

/// A box in the pixels of the piece `shown`, in page pixels, rounded and kept within
/// `limit` (width and height, or the last column and row for a point).
fn to_page(shown: &PieceTransform, bbox: BoundingBox, limit: (u32, u32)) -> BoundingBox {
    let page = shown.to_page(retrace_protocol::BoundingBox {
        x: f64::from(bbox.left),
        y: f64::from(bbox.top),
        width: f64::from(bbox.right - bbox.left),
        height: f64::from(bbox.bottom - bbox.top),
    });
    let clamp = |v: f64, max: u32| (v.round().max(0.0) as u32).min(max);
    BoundingBox {
        left: clamp(page.x, limit.0),
        top: clamp(page.y, limit.1),
        right: clamp(page.x + page.width, limit.0),
        bottom: clamp(page.y + page.height, limit.1),
    }
}
