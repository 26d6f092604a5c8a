//! What a content page is made of, independent of markup: a list of blocks (a hero, a row of
//! tiles, cards, a table, text, a form). The baseline and the `identical-markup` renderers
//! turn the same blocks into different HTML that looks the same; a seeded variant changes the
//! blocks (a label, a colour, a missing tile, a moved card) before the baseline renders them.

/// A button-like link in a hero.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Action {
    /// The element id in the baseline markup, if the page refers to it.
    pub id: Option<&'static str>,
    /// The label.
    pub label: &'static str,
    /// Solid (primary) or outlined.
    pub primary: bool,
    /// Width in pixels (height is 48).
    pub width: u32,
}

/// A tile in a row of tiles (160 x 56).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tile {
    /// The element id in the baseline markup.
    pub id: &'static str,
    /// The label.
    pub label: &'static str,
}

/// A card (336 x 232) in a row of three.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Card {
    /// The element id in the baseline markup.
    pub id: &'static str,
    /// A 48 x 48 icon square: its element id (baseline) and colour.
    pub icon: Option<(&'static str, &'static str)>,
    /// The title.
    pub title: &'static str,
    /// A price line under the title.
    pub price: Option<&'static str>,
    /// Short lines of text, one per line.
    pub lines: Vec<&'static str>,
    /// Moved 4 px down (the `shift` variant).
    pub shifted: bool,
    /// The icon painted over by a translucent white layer (the `overlay` variant).
    pub overlaid: bool,
}

/// One block of a content page, stacked top to bottom 48 px apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// A 40 px title, an 18 px lead and optional buttons.
    Hero {
        /// The title.
        title: &'static str,
        /// The lead line.
        lead: &'static str,
        /// Buttons, left to right, 16 px apart.
        actions: Vec<Action>,
    },
    /// A small capitalised heading over a row of tiles 16 px apart.
    Tiles {
        /// The heading.
        heading: &'static str,
        /// The tiles, left to right.
        tiles: Vec<Tile>,
    },
    /// A row of up to three cards, 16 px apart.
    Cards(Vec<Card>),
    /// A heading over a table 1040 px wide.
    Table {
        /// The heading.
        heading: &'static str,
        /// Column titles and widths (they add up to 1038, inside a 1 px border).
        columns: Vec<(&'static str, u32)>,
        /// The rows.
        rows: Vec<Vec<&'static str>>,
    },
    /// A heading over paragraphs 720 px wide.
    Text {
        /// The heading.
        heading: &'static str,
        /// The paragraphs.
        paragraphs: Vec<&'static str>,
    },
    /// A form of labelled text fields and a submit button.
    Form {
        /// The field labels, top to bottom.
        fields: Vec<&'static str>,
        /// The submit button's label.
        submit: &'static str,
    },
}

/// A content page: where it lives, its title and its blocks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContentPage {
    /// The URL path.
    pub path: &'static str,
    /// The document title (and navigation label).
    pub title: &'static str,
    /// The blocks, top to bottom.
    pub blocks: Vec<Block>,
    /// Logs a console error and throws (the `console-error` variant).
    pub console_error: bool,
}

/// The navigation bar's entries: path and label.
pub const NAVIGATION: [(&str, &str); 5] = [
    ("/site/", "Home"),
    ("/site/pricing", "Pricing"),
    ("/site/features", "Features"),
    ("/site/about", "About"),
    ("/site/contact", "Contact"),
];

/// The script a `console-error` page runs: an error logged, then an uncaught exception.
pub const CONSOLE_ERROR_SCRIPT: &str = "console.error('Ledgerline: the pricing widget failed to \
load (seeded console error)');throw new Error('Ledgerline: seeded uncaught exception');";
