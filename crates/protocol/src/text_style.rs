//! How an element's text is drawn: [`TextStyle`] (its colours and font), as a desktop
//! application's accessibility layer reports them (AT-SPI's default text attributes).
//!
//! Recorded with a desktop step's element, so a replay under another theme or font fails at
//! that element with the reason (`expected text with colours fg 0,0,0 on 238,238,236, found
//! fg 255,255,255 on 238,238,236`), where the widgets, names and states alone are the same.
//! Only what a theme or font setting decides is kept: margins, wrapping and editability are
//! the element's, and the attributes at an offset depend on the text and the caret.

use serde::Deserialize;
use serde::Serialize;

/// An element's text colours and font. Every field is optional: a toolkit reports what it
/// knows, and a check compares only what both sides report.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TextStyle {
    /// The text colour, 8-bit red, green, blue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foreground: Option<[u8; 3]>,
    /// The background colour, 8-bit red, green, blue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<[u8; 3]>,
    /// The font family (`Monospace`, `Sans`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
    /// The font size in points, as reported (`11`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<String>,
    /// The font weight (`400` regular, `700` bold).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<String>,
    /// The font style (`normal`, `italic`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style: Option<String>,
}

/// Whether both sides report a value and they differ.
fn differs<T: PartialEq>(recorded: &Option<T>, found: &Option<T>) -> bool {
    matches!((recorded, found), (Some(want), Some(got)) if want != got)
}

fn rgb([red, green, blue]: [u8; 3]) -> String {
    format!("{red},{green},{blue}")
}

impl TextStyle {
    /// Whether nothing is known.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// `fg 0,0,0 on 238,238,236`: its colours as far as known.
    pub fn colours(&self) -> String {
        match (self.foreground, self.background) {
            (Some(fg), Some(bg)) => format!("fg {} on {}", rgb(fg), rgb(bg)),
            (Some(fg), None) => format!("fg {}", rgb(fg)),
            (None, Some(bg)) => format!("on {}", rgb(bg)),
            (None, None) => "unknown".to_owned(),
        }
    }

    /// `Monospace 11` (with the weight and style when not regular): its font as far as known.
    pub fn font(&self) -> String {
        let parts = [
            self.family.as_deref(),
            self.size.as_deref(),
            self.weight.as_deref().filter(|weight| *weight != "400"),
            self.style.as_deref().filter(|style| *style != "normal"),
        ];
        let font: Vec<&str> = parts.into_iter().flatten().collect();
        match font.is_empty() {
            true => "unknown".to_owned(),
            false => font.join(" "),
        }
    }

    /// When `found` is drawn otherwise than `self` (comparing only what both report), what
    /// was expected and what was found: (`with colours fg 0,0,0 on 238,238,236`, `fg
    /// 255,255,255 on 238,238,236`). `None` when they agree.
    pub fn difference(&self, found: &TextStyle) -> Option<(String, String)> {
        let colours = differs(&self.foreground, &found.foreground)
            || differs(&self.background, &found.background);
        let font = differs(&self.family, &found.family)
            || differs(&self.size, &found.size)
            || differs(&self.weight, &found.weight)
            || differs(&self.style, &found.style);
        match (colours, font) {
            (false, false) => None,
            (true, false) => Some((format!("with colours {}", self.colours()), found.colours())),
            (false, true) => Some((format!("in font {}", self.font()), found.font())),
            (true, true) => Some((
                format!("with colours {} in font {}", self.colours(), self.font()),
                format!("{} in font {}", found.colours(), found.font()),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn light() -> TextStyle {
        TextStyle {
            foreground: Some([0, 0, 0]),
            background: Some([238, 238, 236]),
            family: Some("Monospace".into()),
            size: Some("11".into()),
            weight: Some("400".into()),
            style: Some("normal".into()),
        }
    }

    #[test]
    fn a_changed_colour_or_font_is_named_and_the_same_style_passes() {
        assert_eq!(light().difference(&light()), None);
        let dark = TextStyle {
            foreground: Some([255, 255, 255]),
            ..light()
        };
        assert_eq!(
            light().difference(&dark),
            Some((
                "with colours fg 0,0,0 on 238,238,236".into(),
                "fg 255,255,255 on 238,238,236".into()
            ))
        );
        let bold = TextStyle {
            family: Some("Sans".into()),
            weight: Some("700".into()),
            ..light()
        };
        assert_eq!(
            light().difference(&bold),
            Some(("in font Monospace 11".into(), "Sans 11 700".into()))
        );
        let both = TextStyle {
            background: Some([45, 45, 45]),
            ..bold
        };
        let (expected, found) = light().difference(&both).unwrap();
        assert!(expected.contains("in font Monospace 11"), "{expected}");
        assert_eq!(found, "fg 0,0,0 on 45,45,45 in font Sans 11 700");
    }

    #[test]
    fn only_what_both_sides_report_is_compared() {
        let partial = TextStyle {
            foreground: Some([0, 0, 0]),
            ..TextStyle::default()
        };
        assert_eq!(light().difference(&partial), None);
        assert_eq!(partial.difference(&light()), None);
        assert!(TextStyle::default().is_empty() && !partial.is_empty());
        assert_eq!(partial.colours(), "fg 0,0,0");
    }

    #[test]
    fn it_round_trips_and_leaves_out_what_is_unknown() {
        let json = serde_json::to_value(light()).unwrap();
        assert_eq!(json["foreground"], serde_json::json!([0, 0, 0]));
        assert_eq!(serde_json::from_value::<TextStyle>(json).unwrap(), light());
        let empty = serde_json::to_value(TextStyle::default()).unwrap();
        assert_eq!(empty, serde_json::json!({}));
    }
}
