//! Coordinate spaces of open grounding models, mapped to and from screenshot pixels.
//!
//! retrace's histories and trajectories hold points in pixels of the screenshot the model was
//! sent. Open models answer in their own spaces ([`Coordinates`]): Qwen2.5-VL in pixels of the
//! image as its processor resized it (each side rounded to a multiple of 28), Qwen3-VL in
//! 0-1000 per axis. [`CoordinateMap::to_screen`] maps an answer's points into pixels when it
//! arrives; [`CoordinateMap::to_model`] maps the history's points back when it is sent, so the
//! model reads its earlier calls in its own space.

use serde_json::Value;

use crate::catalog::Coordinates;

/// The input fields of a `computer` call that hold points (`[x, y]`) or regions
/// (`[x0, y0, x1, y1]`).
const POINT_FIELDS: [&str; 3] = ["coordinate", "start_coordinate", "region"];

/// Maps points between one model's space and a screenshot's pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CoordinateMap {
    /// The model's extent per axis (the far edge's value).
    model: (f64, f64),
    /// The screenshot's size in pixels.
    screen: (u32, u32),
}

impl CoordinateMap {
    /// The map for `space` over a `width` x `height` screenshot; `None` for pixels (nothing
    /// to map).
    pub fn new(space: Coordinates, (width, height): (u32, u32)) -> Option<Self> {
        let model = match space {
            Coordinates::Pixels => return None,
            Coordinates::Resized { factor } => {
                let round = |side: u32| {
                    let factor = f64::from(factor.max(1));
                    ((f64::from(side) / factor).round() * factor).max(factor)
                };
                (round(width), round(height))
            }
            Coordinates::Normalized { scale } => (f64::from(scale), f64::from(scale)),
        };
        Some(Self {
            model,
            screen: (width, height),
        })
    }

    /// Rewrites the points of a `computer` call's input from the model's space to pixels
    /// (rounded, kept inside the screenshot).
    pub fn to_screen(&self, input: &mut Value) {
        let (w, h) = (f64::from(self.screen.0), f64::from(self.screen.1));
        self.map(input, |value, axis| {
            let (from, to) = if axis == 0 {
                (self.model.0, w)
            } else {
                (self.model.1, h)
            };
            (value * to / from).round().clamp(0.0, (to - 1.0).max(0.0))
        });
    }

    /// Rewrites the points of a `computer` call's input from pixels to the model's space.
    pub fn to_model(&self, input: &mut Value) {
        let (w, h) = (f64::from(self.screen.0), f64::from(self.screen.1));
        self.map(input, |value, axis| {
            let (from, to) = if axis == 0 {
                (w, self.model.0)
            } else {
                (h, self.model.1)
            };
            (value * to / from).round()
        });
    }

    fn map(&self, input: &mut Value, convert: impl Fn(f64, usize) -> f64) {
        let Some(object) = input.as_object_mut() else {
            return;
        };
        for field in POINT_FIELDS {
            let Some(Value::Array(items)) = object.get_mut(field) else {
                continue;
            };
            for (index, item) in items.iter_mut().enumerate() {
                if let Some(value) = item.as_f64() {
                    *item = Value::from(convert(value, index % 2) as i64);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn qwen25_resized_pixels_map_to_the_screenshot_and_back() {
        // 1280x800 is seen as 1288x812 (multiples of 28).
        let map = CoordinateMap::new(Coordinates::Resized { factor: 28 }, (1280, 800)).unwrap();
        let mut input = json!({"action": "left_click", "coordinate": [1288, 406]});
        map.to_screen(&mut input);
        assert_eq!(input["coordinate"], json!([1279, 400]));
        let mut sent = json!({"action": "left_click", "coordinate": [640, 400]});
        map.to_model(&mut sent);
        assert_eq!(sent["coordinate"], json!([644, 406]));
    }

    #[test]
    fn normalised_points_and_regions_map_per_axis() {
        let map = CoordinateMap::new(Coordinates::Normalized { scale: 1000 }, (1280, 800)).unwrap();
        let mut drag = json!({"action": "left_click_drag", "start_coordinate": [0, 0],
                              "coordinate": [500, 500]});
        map.to_screen(&mut drag);
        assert_eq!(drag["start_coordinate"], json!([0, 0]));
        assert_eq!(drag["coordinate"], json!([640, 400]));
        let mut zoom = json!({"action": "zoom", "region": [250, 250, 750, 750]});
        map.to_screen(&mut zoom);
        assert_eq!(zoom["region"], json!([320, 200, 960, 600]));
        map.to_model(&mut zoom);
        assert_eq!(zoom["region"], json!([250, 250, 750, 750]));
        assert!(CoordinateMap::new(Coordinates::Pixels, (1280, 800)).is_none());
    }
}
