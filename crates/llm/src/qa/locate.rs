//! Element detection: describe an element, get the point to act on and its box.

use serde::Deserialize;
use serde::Serialize;
use serde_json::Value;
use serde_json::json;

use super::QaError;
use super::ask_with_system;
use super::png_size;
use crate::VlmProvider;

/// A pixel position, from the top-left corner of the screenshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Point {
    /// Pixels from the left edge.
    pub x: u32,
    /// Pixels from the top edge.
    pub y: u32,
}

/// A rectangle in pixels; `right` and `bottom` are exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoundingBox {
    /// Left edge.
    pub left: u32,
    /// Top edge.
    pub top: u32,
    /// Right edge.
    pub right: u32,
    /// Bottom edge.
    pub bottom: u32,
}

/// Where an element is.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ElementLocation {
    /// The point to click (the element's centre, usually).
    pub point: Point,
    /// The element's box.
    pub bbox: BoundingBox,
    /// The model's confidence, 0 to 1.
    pub confidence: f64,
}

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

#[derive(Deserialize)]
struct Answer {
    found: bool,
    point: Point,
    bbox: BoundingBox,
    confidence: f64,
}

/// Finds the element `description` names in the screenshot `png` and returns where to act on
/// it. The answer is validated against [`location_schema`]; a point outside the screenshot
/// is an error, and a box given corner-swapped is put right.
pub async fn locate_element<P: VlmProvider + ?Sized>(
    provider: &P,
    png: &[u8],
    description: &str,
) -> Result<ElementLocation, QaError> {
    let (width, height) = png_size(png)?;
    let system = format!(
        "You locate user-interface elements in screenshots. The screenshot is {width}x{height} \
         pixels; coordinates are whole pixels from its top-left corner. `point` is where a user \
         would click the element (its centre unless something else is meant); `bbox` encloses \
         it. If the element is not visible, answer found: false with zeros."
    );
    let question = format!("Find this element: {description}");
    let value = ask_with_system(provider, png, &question, &location_schema(), &system).await?;
    let answer: Answer = serde_json::from_value(value).map_err(|e| QaError::SchemaViolation {
        errors: vec![e.to_string()],
        answer: String::new(),
    })?;
    if !answer.found {
        return Err(QaError::NotFound {
            description: description.into(),
        });
    }
    if answer.point.x >= width || answer.point.y >= height {
        return Err(QaError::OutOfBounds {
            description: description.into(),
            point: answer.point,
            width,
            height,
        });
    }
    let bbox = BoundingBox {
        left: answer.bbox.left.min(answer.bbox.right).min(width),
        top: answer.bbox.top.min(answer.bbox.bottom).min(height),
        right: answer.bbox.left.max(answer.bbox.right).min(width),
        bottom: answer.bbox.top.max(answer.bbox.bottom).min(height),
    };
    Ok(ElementLocation {
        point: answer.point,
        bbox,
        confidence: answer.confidence,
    })
}
