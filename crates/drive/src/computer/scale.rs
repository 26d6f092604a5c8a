//! Scaling between the size the model sees (an API-recommended size such as 1280x800) and
//! the real display: points both ways, and screenshots resized to the model size.

use crate::backend::Point;
use crate::backend::Screenshot;

/// Maps points between model and display coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scaler {
    /// The size the model sees.
    pub model: (u32, u32),
    /// The real display size.
    pub display: (u32, u32),
}

impl Scaler {
    /// Whether the two sizes differ (so screenshots need resizing).
    pub fn is_identity(&self) -> bool {
        self.model == self.display
    }

    /// A model point to display pixels; an error for the model when it is off screen.
    pub fn to_display(&self, (x, y): (i64, i64)) -> Result<Point, String> {
        let (mw, mh) = (i64::from(self.model.0), i64::from(self.model.1));
        if !(0..mw).contains(&x) || !(0..mh).contains(&y) {
            return Err(format!(
                "coordinate ({x}, {y}) is off screen: x must be in 0..{mw} and y in 0..{mh} \
                 (the screenshot is {mw}x{mh})"
            ));
        }
        let scale = |v: i64, from: u32, to: u32| -> i32 {
            let scaled = (v as f64 * f64::from(to) / f64::from(from)).round() as i64;
            scaled.clamp(0, i64::from(to) - 1) as i32
        };
        Ok(Point {
            x: scale(x, self.model.0, self.display.0),
            y: scale(y, self.model.1, self.display.1),
        })
    }

    /// A display point to model coordinates (for `cursor_position`).
    pub fn to_model(&self, point: Point) -> (i64, i64) {
        let scale = |v: i32, from: u32, to: u32| -> i64 {
            (f64::from(v) * f64::from(to) / f64::from(from)).round() as i64
        };
        (
            scale(point.x, self.display.0, self.model.0),
            scale(point.y, self.display.1, self.model.1),
        )
    }

    /// The screenshot at the model size (unchanged when the sizes match).
    pub fn screenshot_for_model(
        &self,
        shot: Screenshot,
    ) -> Result<Screenshot, retrace_vision::VisionError> {
        if (shot.width, shot.height) == self.model {
            return Ok(shot);
        }
        let image = retrace_vision::decode_png(&shot.png)?;
        let rgba = image.to_rgba();
        let (width, height) = self.model;
        let resized =
            retrace_vision::resize_bilinear(&rgba, (shot.width, shot.height), (width, height));
        let png = retrace_vision::encode_png_rgba(width, height, &resized)?;
        Ok(Screenshot { png, width, height })
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    const HALF: Scaler = Scaler {
        model: (1280, 800),
        display: (2560, 1600),
    };

    #[test]
    fn points_scale_both_ways() {
        assert_eq!(
            HALF.to_display((640, 400)).unwrap(),
            Point { x: 1280, y: 800 }
        );
        assert_eq!(HALF.to_model(Point { x: 1280, y: 800 }), (640, 400));
        assert_eq!(
            HALF.to_display((1279, 799)).unwrap(),
            Point { x: 2558, y: 1598 }
        );
    }

    #[test]
    fn off_screen_points_are_refused_with_the_valid_range() {
        let error = HALF.to_display((1280, 10)).unwrap_err();
        assert!(error.contains("0..1280"), "{error}");
        assert!(HALF.to_display((5, -1)).is_err());
    }
}
