//! The content site's variants: the baseline, and candidates that each differ from it in one
//! documented way, with the exact page box of each visible change.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

/// Which version of the content site (`/site/...`) is served. See the crate docs for what
/// each candidate changes; [`seeded_change`] has the details a test asserts against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Variant {
    /// "Production": what candidates are compared with.
    #[default]
    Baseline,
    /// Every content page looks the same as the baseline, pixel for pixel, but is built from
    /// other markup (other elements, class names, ids, nesting, grid/float instead of flexbox,
    /// flexbox instead of a table). A correct checker passes it.
    IdenticalMarkup,
    /// One block moved 4 px down.
    Shift,
    /// One text changed.
    Text,
    /// One colour changed (ΔE ≥ 5).
    Colour,
    /// One icon is painted over by a translucent layer (a CSS background image): its pixels
    /// change while its element keeps its box, text and computed colours, so the DOM does not
    /// explain the change (as with an image, a shadow or a canvas).
    Overlay,
    /// One element removed (nothing else moves).
    Removed,
    /// One page logs a console error and throws an uncaught exception; it looks the same.
    ConsoleError,
    /// One page's response never completes.
    NeverLoads,
}

impl Variant {
    /// Every variant, baseline first.
    pub const ALL: [Variant; 9] = [
        Variant::Baseline,
        Variant::IdenticalMarkup,
        Variant::Shift,
        Variant::Text,
        Variant::Colour,
        Variant::Overlay,
        Variant::Removed,
        Variant::ConsoleError,
        Variant::NeverLoads,
    ];

    /// The name used in `?variant=` and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Variant::Baseline => "baseline",
            Variant::IdenticalMarkup => "identical-markup",
            Variant::Shift => "shift",
            Variant::Text => "text",
            Variant::Colour => "colour",
            Variant::Overlay => "overlay",
            Variant::Removed => "removed",
            Variant::ConsoleError => "console-error",
            Variant::NeverLoads => "never-loads",
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A variant name that is not one of [`Variant::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown variant {0:?}; expected one of `baseline`, `identical-markup`, `shift`, `text`, \
     `colour`, `overlay`, `removed`, `console-error`, `never-loads`"
)]
pub struct VariantParseError(pub String);

impl FromStr for Variant {
    type Err = VariantParseError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let name = text.trim().to_ascii_lowercase();
        if name == "color" {
            return Ok(Variant::Colour);
        }
        Variant::ALL
            .into_iter()
            .find(|variant| variant.as_str() == name)
            .ok_or_else(|| VariantParseError(text.to_owned()))
    }
}

/// A box in page pixels (CSS pixels from the top-left of the document, at device scale 1).
/// The content site lays out at a fixed width and never depends on the viewport's height, so
/// a box is the same at 1280x720 and 1280x800.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Rect {
    /// Left edge.
    pub x: u32,
    /// Top edge.
    pub y: u32,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
}

impl Rect {
    /// One past the last column.
    pub fn right(&self) -> u32 {
        self.x + self.width
    }

    /// One past the last row.
    pub fn bottom(&self) -> u32 {
        self.y + self.height
    }

    /// Whether `other` lies wholly inside this box.
    pub fn contains(&self, other: &Rect) -> bool {
        other.x >= self.x
            && other.y >= self.y
            && other.right() <= self.right()
            && other.bottom() <= self.bottom()
    }
}

/// What one candidate variant changes, and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SeededChange {
    /// The variant.
    pub variant: Variant,
    /// The one page it changes; every other page is the baseline's, byte for byte.
    pub path: &'static str,
    /// The element it changes, as a CSS selector on the baseline page.
    pub selector: &'static str,
    /// What changes, in a sentence.
    pub change: &'static str,
    /// The box holding every pixel that differs from the baseline (it is also the tightest
    /// such box: the differing pixels reach each of its edges, except for `Text`, whose box is
    /// the relabelled button's); `None` when nothing visible changes.
    #[serde(rename = "box")]
    pub region: Option<Rect>,
}

/// Serialises as its name (`"shift"`).
impl Serialize for Variant {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// The colour of the first feature's icon on `/site/features` in the baseline (`#0f766e`) and
/// in the `colour` variant (`#0f9a8e`). In CIELAB (sRGB, D65) they are ΔE*76 (CIE76) = 14.63
/// and ΔE00 (CIEDE2000) = 13.06 apart; pixelmatch's YIQ distance is 447, above the 352 of
/// its default threshold 0.1.
pub const COLOUR_CHANGE: (&str, &str) = ("#0f766e", "#0f9a8e");

/// The change a candidate variant seeds; `None` for the baseline and `identical-markup`.
pub fn seeded_change(variant: Variant) -> Option<SeededChange> {
    let change = |path, selector, change, region| {
        Some(SeededChange {
            variant,
            path,
            selector,
            change,
            region,
        })
    };
    match variant {
        Variant::Baseline | Variant::IdenticalMarkup => None,
        Variant::Shift => change(
            "/site/pricing",
            "#plan-pro",
            "the Pro plan card moves 4 px down (nothing else moves)",
            // The card is x 472..808, y 260..492; moved, y 264..496.
            Some(Rect {
                x: 472,
                y: 260,
                width: 336,
                height: 236,
            }),
        ),
        Variant::Text => change(
            "/site/",
            "#cta-trial",
            "the hero's primary button reads \"Start your trial\" instead of \"Start free trial\"",
            Some(Rect {
                x: 120,
                y: 244,
                width: 200,
                height: 48,
            }),
        ),
        Variant::Colour => change(
            "/site/features",
            "#feature-invoices-icon",
            "the first feature's 48x48 icon square is #0f9a8e instead of #0f766e",
            Some(Rect {
                x: 145,
                y: 285,
                width: 48,
                height: 48,
            }),
        ),
        Variant::Overlay => change(
            "/site/features",
            "#feature-reminders-icon",
            "the second feature's 48x48 icon square is painted over by a 35% white layer (a CSS \
             background image); its computed colours, box and text are unchanged",
            Some(Rect {
                x: 497,
                y: 285,
                width: 48,
                height: 48,
            }),
        ),
        Variant::Removed => change(
            "/site/about",
            "#team-margaret",
            "the last tile of the team row (\"Margaret\") is gone; the others stay put",
            Some(Rect {
                x: 648,
                y: 478,
                width: 160,
                height: 56,
            }),
        ),
        Variant::ConsoleError => change(
            "/site/",
            "body",
            "the page calls console.error and throws an uncaught Error; no pixel changes",
            None,
        ),
        Variant::NeverLoads => change(
            "/site/contact",
            "body",
            "the response sends the page's first part, then never completes",
            None,
        ),
    }
}

/// The box of what `variant` changes on the page at `path` (`/site/...`), or `None` when that
/// page looks the same as the baseline's.
pub fn seeded_change_box(variant: Variant, path: &str) -> Option<Rect> {
    seeded_change(variant)
        .filter(|change| change.path == path)
        .and_then(|change| change.region)
}

#[cfg(test)]
#[path = "colour_difference_tests.rs"]
mod colour_difference_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_color_is_accepted() {
        for variant in Variant::ALL {
            assert_eq!(variant.as_str().parse::<Variant>().unwrap(), variant);
        }
        assert_eq!("Color".parse::<Variant>().unwrap(), Variant::Colour);
        let error = "prod".parse::<Variant>().unwrap_err().to_string();
        assert!(
            error.contains("\"prod\"") && error.contains("`never-loads`"),
            "{error}"
        );
    }

    #[test]
    fn every_candidate_seeds_one_change_on_one_page() {
        for variant in Variant::ALL {
            let change = seeded_change(variant);
            match variant {
                Variant::Baseline | Variant::IdenticalMarkup => assert!(change.is_none()),
                _ => {
                    let change = change.unwrap();
                    assert!(change.path.starts_with("/site/"));
                    assert_eq!(seeded_change_box(variant, change.path), change.region);
                    assert_eq!(seeded_change_box(variant, "/site/elsewhere"), None);
                }
            }
        }
        assert_eq!(seeded_change_box(Variant::ConsoleError, "/site/"), None);
    }

    #[test]
    fn rect_containment() {
        let outer = Rect {
            x: 10,
            y: 10,
            width: 20,
            height: 20,
        };
        assert!(outer.contains(&outer));
        assert!(!outer.contains(&Rect { x: 9, ..outer }));
        assert!(!outer.contains(&Rect { width: 21, ..outer }));
        assert_eq!((outer.right(), outer.bottom()), (30, 30));
    }
}
