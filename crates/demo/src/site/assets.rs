//! What the site's pages load besides themselves, all generated or bundled here (no external
//! request): the web font `/site/assets/ledgerline-display.ttf`, answered late on purpose, and
//! the lazy images `/site/assets/tile-N.svg`.

/// How long the web font's response waits, so the page first shows the fallback font and then
/// swaps (`font-display: swap`).
pub const WEB_FONT_DELAY_MS: u64 = 1500;

/// The web font's file name under `/site/assets/`.
pub const WEB_FONT_FILE: &str = "ledgerline-display.ttf";

/// The web font: DejaVu Serif Bold cut down to printable ASCII and renamed "Ledgerline
/// Display" (about 18 KB; how it was made and its licence are in
/// `crates/demo/assets/ledgerline-display.LICENSE.txt`).
pub const WEB_FONT: &[u8] = include_bytes!("../../assets/ledgerline-display.ttf");

/// How many lazy images the lazy-images page shows (`tile-1.svg` ..= `tile-12.svg`).
pub const LAZY_IMAGES: u32 = 12;

/// The generated image `tile-{n}.svg` (480 x 320, flat shapes in colours picked from `n`), or
/// `None` when `name` is not one of them.
pub fn tile_svg(name: &str) -> Option<String> {
    let n: u32 = name
        .strip_prefix("tile-")?
        .strip_suffix(".svg")?
        .parse()
        .ok()?;
    if !(1..=LAZY_IMAGES).contains(&n) {
        return None;
    }
    const COLOURS: [&str; 6] = [
        "#0f766e", "#b45309", "#4338ca", "#be123c", "#15803d", "#475569",
    ];
    let background = COLOURS[(n as usize) % COLOURS.len()];
    let accent = COLOURS[(n as usize * 5 + 1) % COLOURS.len()];
    let cx = 80 + (n * 53) % 320;
    let cy = 80 + (n * 37) % 160;
    Some(format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"480\" height=\"320\" \
         viewBox=\"0 0 480 320\"><rect width=\"480\" height=\"320\" fill=\"{background}\"/>\
         <circle cx=\"{cx}\" cy=\"{cy}\" r=\"64\" fill=\"{accent}\" stroke=\"#fff\" \
         stroke-width=\"8\"/><rect x=\"24\" y=\"256\" width=\"{bar}\" height=\"40\" \
         fill=\"#fff\"/></svg>",
        bar = 40 * n,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_are_distinct_and_bounded() {
        let all: Vec<String> = (1..=LAZY_IMAGES)
            .map(|n| tile_svg(&format!("tile-{n}.svg")).unwrap())
            .collect();
        for (i, a) in all.iter().enumerate() {
            assert!(all[i + 1..].iter().all(|b| a != b));
        }
        assert!(tile_svg("tile-0.svg").is_none());
        assert!(tile_svg("tile-13.svg").is_none());
        assert!(tile_svg("tile-x.svg").is_none());
        assert!(tile_svg("other.svg").is_none());
    }

    #[test]
    fn the_font_is_a_truetype_file() {
        assert_eq!(&WEB_FONT[..4], &[0, 1, 0, 0]);
        assert!(WEB_FONT.len() < 32 * 1024);
    }
}
