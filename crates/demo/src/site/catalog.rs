//! The catalogue: [`CATALOG_PAGES`] generated product pages (`/site/catalog/1` ..), each
//! distinct and deterministic (everything is derived from the page number), the same in every
//! variant. For throughput benchmarks of a visual checker.

use super::baseline_markup::document;

/// How many catalogue pages there are.
pub const CATALOG_PAGES: u32 = 50;

const ADJECTIVES: [&str; 10] = [
    "Sturdy", "Compact", "Quiet", "Bright", "Classic", "Nimble", "Tidy", "Bold", "Gentle", "Swift",
];
const NOUNS: [&str; 7] = [
    "Ledger",
    "Stapler",
    "Lamp",
    "Notebook",
    "Desk",
    "Binder",
    "Calculator",
];

/// The name of catalogue item `n`.
pub fn item_name(n: u32) -> String {
    format!(
        "{} {}",
        ADJECTIVES[(n as usize) % ADJECTIVES.len()],
        NOUNS[(n as usize / ADJECTIVES.len()) % NOUNS.len()]
    )
}

/// Catalogue page `n` (1 ..= [`CATALOG_PAGES`]), or `None` out of range.
pub fn render(n: u32, carry: &str) -> Option<String> {
    if !(1..=CATALOG_PAGES).contains(&n) {
        return None;
    }
    let name = item_name(n);
    let hue = (n * 37) % 360;
    let cents = 1_000 + (n * 7_919) % 90_000;
    let specs = [
        ("SKU", format!("LL-{n:04}")),
        ("Price", format!("${}.{:02}", cents / 100, cents % 100)),
        ("Weight", format!("{} g", 100 + (n * 173) % 900)),
        ("In stock", format!("{}", (n * 31) % 97)),
        ("Colour", format!("hue {hue}")),
        ("Warranty", format!("{} years", 1 + n % 4)),
        ("Pack size", format!("{}", 1 + n % 6)),
    ];
    let rows = 3 + (n as usize) % 5;
    let rows: String = specs[..rows]
        .iter()
        .map(|(name, value)| format!("<tr><td>{name}</td><td>{value}</td></tr>"))
        .collect();
    let main = format!(
        "<section class=\"hero\"><h1>Item {n}: {name}</h1><p class=\"lead\">The {lower} is \
         number {n} of {CATALOG_PAGES} in the Ledgerline office catalogue.</p></section>\
         <div class=\"item\"><div class=\"swatch\" style=\"background:hsl({hue},55%,45%)\">\
         </div><table class=\"compare specs\"><colgroup><col style=\"width:240px\">\
         <col style=\"width:318px\"></colgroup><tbody>{rows}</tbody></table></div>",
        lower = name.to_lowercase(),
    );
    Some(document(&format!("Item {n}"), "", carry, CSS, &main, ""))
}

const CSS: &str = "
.item{display:flex;gap:32px}
.swatch{width:240px;height:240px}
.compare.specs{width:560px;margin-top:0}
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_distinct_stable_and_bounded() {
        let pages: Vec<String> = (1..=CATALOG_PAGES)
            .map(|n| render(n, "").unwrap())
            .collect();
        for (i, a) in pages.iter().enumerate() {
            assert!(
                pages[i + 1..].iter().all(|b| a != b),
                "page {} repeats",
                i + 1
            );
        }
        assert_eq!(render(7, ""), render(7, ""));
        assert!(render(0, "").is_none());
        assert!(render(CATALOG_PAGES + 1, "").is_none());
    }
}
