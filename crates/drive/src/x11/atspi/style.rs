//! A text node's [`TextStyle`] from its AT-SPI default text attributes: the colours and font
//! its theme and settings give it (`fg-color`, `bg-color`, `family-name`, `size`, `weight`,
//! `style`). Margins, wrapping and editability are left out: they are the widget's own, not
//! its theme's.

use std::collections::HashMap;

use retrace_protocol::text_style::TextStyle;

/// `r,g,b` as 8-bit channels. GTK (ATK) reports 16-bit channels (`65535,65535,65535`), Qt
/// 8-bit ones: a colour with a channel above 255 is read as 16-bit. (A 16-bit colour with
/// every channel at 255 or below is nearly black and reads as it is; the same on both sides.)
fn colour(text: &str) -> Option<[u8; 3]> {
    let channels: Vec<u32> = text
        .split(',')
        .map(|channel| channel.trim().parse().ok())
        .collect::<Option<_>>()?;
    let [red, green, blue] = <[u32; 3]>::try_from(channels).ok()?;
    let wide = red.max(green).max(blue) > 255;
    let channel = |value: u32| u8::try_from(if wide { value / 257 } else { value }).ok();
    Some([channel(red)?, channel(green)?, channel(blue)?])
}

/// The style `attributes` describe; `None` when they say nothing of colours or font.
pub fn text_style(attributes: &HashMap<String, String>) -> Option<TextStyle> {
    let text = |key: &str| {
        attributes
            .get(key)
            .map(|value| value.trim().to_owned())
            .filter(|value| !value.is_empty())
    };
    let style = TextStyle {
        foreground: attributes.get("fg-color").and_then(|value| colour(value)),
        background: attributes.get("bg-color").and_then(|value| colour(value)),
        family: text("family-name"),
        size: text("size"),
        weight: text("weight"),
        style: text("style"),
    };
    (!style.is_empty()).then_some(style)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gtk_attributes_read_as_colours_and_a_font() {
        // What Mousepad's text area (GtkSourceView) answers under Adwaita.
        let attributes: HashMap<String, String> = [
            ("fg-color", "0,0,0"),
            ("bg-color", "61166,61166,60652"),
            ("family-name", "Monospace"),
            ("size", "11"),
            ("weight", "400"),
            ("style", "normal"),
            ("left-margin", "2"),
            ("editable", "true"),
        ]
        .into_iter()
        .map(|(key, value)| (key.to_owned(), value.to_owned()))
        .collect();
        let style = text_style(&attributes).unwrap();
        assert_eq!(style.foreground, Some([0, 0, 0]));
        assert_eq!(style.background, Some([238, 238, 236]));
        assert_eq!(style.font(), "Monospace 11");
        assert_eq!(colour("65535,65535,65535"), Some([255, 255, 255]));
        assert_eq!(colour("46,52,54"), Some([46, 52, 54]));
        assert_eq!(colour("1,2"), None);
        assert_eq!(colour("red"), None);
        assert_eq!(text_style(&HashMap::new()), None);
    }
}
