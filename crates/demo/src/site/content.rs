//! The five content pages of the site, as blocks, with the seeded change of a candidate
//! variant applied where that variant changes this page (see `variant::seeded_change`).

use super::blocks::Action;
use super::blocks::Block;
use super::blocks::Card;
use super::blocks::ContentPage;
use super::blocks::Tile;
use super::variant::COLOUR_CHANGE;
use super::variant::Variant;

/// The content page at `path` as `variant` serves it, or `None` for another path.
pub fn page(path: &str, variant: Variant) -> Option<ContentPage> {
    let mut page = match path {
        "/site/" => home(),
        "/site/pricing" => pricing(),
        "/site/features" => features(),
        "/site/about" => about(),
        "/site/contact" => contact(),
        _ => return None,
    };
    let changed = super::variant::seeded_change(variant).is_some_and(|c| c.path == path);
    if changed {
        seed(&mut page, variant);
    }
    Some(page)
}

/// Every content page's path.
pub const PATHS: [&str; 5] = [
    "/site/",
    "/site/pricing",
    "/site/features",
    "/site/about",
    "/site/contact",
];

/// Applies `variant`'s change to the page it changes.
fn seed(page: &mut ContentPage, variant: Variant) {
    match variant {
        Variant::Baseline | Variant::IdenticalMarkup | Variant::NeverLoads => {}
        Variant::ConsoleError => page.console_error = true,
        Variant::Text => each_action(page, "cta-trial", |action| {
            action.label = "Start your trial";
        }),
        Variant::Shift => each_card(page, "plan-pro", |card| card.shifted = true),
        Variant::Colour => each_card(page, "feature-invoices", |card| {
            if let Some((id, _)) = card.icon {
                card.icon = Some((id, COLOUR_CHANGE.1));
            }
        }),
        Variant::Overlay => each_card(page, "feature-reminders", |card| card.overlaid = true),
        Variant::Removed => {
            for block in &mut page.blocks {
                if let Block::Tiles { tiles, .. } = block {
                    tiles.retain(|tile| tile.id != "team-margaret");
                }
            }
        }
    }
}

fn each_action(page: &mut ContentPage, id: &str, change: impl Fn(&mut Action)) {
    for block in &mut page.blocks {
        if let Block::Hero { actions, .. } = block {
            actions
                .iter_mut()
                .filter(|action| action.id == Some(id))
                .for_each(&change);
        }
    }
}

fn each_card(page: &mut ContentPage, id: &str, change: impl Fn(&mut Card)) {
    for block in &mut page.blocks {
        if let Block::Cards(cards) = block {
            cards
                .iter_mut()
                .filter(|card| card.id == id)
                .for_each(&change);
        }
    }
}

fn hero(title: &'static str, lead: &'static str, actions: Vec<Action>) -> Block {
    Block::Hero {
        title,
        lead,
        actions,
    }
}

fn card(id: &'static str, title: &'static str, lines: Vec<&'static str>) -> Card {
    Card {
        id,
        icon: None,
        title,
        price: None,
        lines,
        shifted: false,
        overlaid: false,
    }
}

fn tiles(heading: &'static str, labels: &[(&'static str, &'static str)]) -> Block {
    Block::Tiles {
        heading,
        tiles: labels
            .iter()
            .map(|&(id, label)| Tile { id, label })
            .collect(),
    }
}

fn home() -> ContentPage {
    ContentPage {
        path: "/site/",
        title: "Home",
        blocks: vec![
            hero(
                "Invoicing that keeps up with you",
                "Send invoices, chase payments and see what you are owed, all in one place.",
                vec![
                    Action {
                        id: Some("cta-trial"),
                        label: "Start free trial",
                        primary: true,
                        width: 200,
                    },
                    Action {
                        id: Some("cta-pricing"),
                        label: "See pricing",
                        primary: false,
                        width: 160,
                    },
                ],
            ),
            tiles(
                "Trusted by small teams",
                &[
                    ("logo-harbor", "Harbor Coffee"),
                    ("logo-maple", "Maple & Finch"),
                    ("logo-northgate", "Northgate"),
                    ("logo-bluebird", "Bluebird"),
                    ("logo-copperline", "Copperline"),
                ],
            ),
            Block::Cards(vec![
                card(
                    "home-send",
                    "Send in seconds",
                    vec!["Pick a customer, add lines,", "press send. That is all."],
                ),
                card(
                    "home-chase",
                    "Chase politely",
                    vec!["Reminders go out on time,", "so you never have to."],
                ),
                card(
                    "home-see",
                    "See what is owed",
                    vec!["One view of paid, pending", "and overdue invoices."],
                ),
            ]),
        ],
        console_error: false,
    }
}

fn plan(
    id: &'static str,
    title: &'static str,
    price: &'static str,
    lines: Vec<&'static str>,
) -> Card {
    Card {
        price: Some(price),
        ..card(id, title, lines)
    }
}

fn pricing() -> ContentPage {
    ContentPage {
        path: "/site/pricing",
        title: "Pricing",
        blocks: vec![
            hero(
                "Simple pricing",
                "Start free. Upgrade when your business grows.",
                vec![],
            ),
            Block::Cards(vec![
                plan(
                    "plan-starter",
                    "Starter",
                    "$0",
                    vec!["5 invoices a month", "1 user", "Email support"],
                ),
                plan(
                    "plan-pro",
                    "Pro",
                    "$29",
                    vec!["Unlimited invoices", "3 users", "Payment reminders"],
                ),
                plan(
                    "plan-business",
                    "Business",
                    "$79",
                    vec!["Unlimited invoices", "10 users", "Priority support"],
                ),
            ]),
            Block::Table {
                heading: "Compare plans",
                columns: vec![
                    ("Feature", 398),
                    ("Starter", 200),
                    ("Pro", 220),
                    ("Business", 220),
                ],
                rows: vec![
                    vec!["Invoices a month", "5", "Unlimited", "Unlimited"],
                    vec!["Users", "1", "3", "10"],
                    vec!["Payment reminders", "No", "Yes", "Yes"],
                    vec!["Bank sync", "No", "Daily", "Hourly"],
                    vec!["Support", "Email", "Email", "Priority"],
                ],
            },
        ],
        console_error: false,
    }
}

fn feature(
    id: &'static str,
    icon: (&'static str, &'static str),
    title: &'static str,
    lines: Vec<&'static str>,
) -> Card {
    Card {
        icon: Some(icon),
        ..card(id, title, lines)
    }
}

fn features() -> ContentPage {
    ContentPage {
        path: "/site/features",
        title: "Features",
        blocks: vec![
            hero(
                "Everything an invoice needs",
                "Built for people who would rather be doing the work than the paperwork.",
                vec![],
            ),
            Block::Cards(vec![
                feature(
                    "feature-invoices",
                    ("feature-invoices-icon", COLOUR_CHANGE.0),
                    "Invoices",
                    vec!["Numbered, dated and tidy,", "ready to send as they are."],
                ),
                feature(
                    "feature-reminders",
                    ("feature-reminders-icon", "#b45309"),
                    "Reminders",
                    vec!["Friendly nudges before and", "after the due date."],
                ),
                feature(
                    "feature-reports",
                    ("feature-reports-icon", "#4338ca"),
                    "Reports",
                    vec!["Monthly totals and who", "owes what, at a glance."],
                ),
            ]),
            Block::Cards(vec![
                feature(
                    "feature-sync",
                    ("feature-sync-icon", "#be123c"),
                    "Bank sync",
                    vec!["Payments matched to", "invoices as they arrive."],
                ),
                feature(
                    "feature-customers",
                    ("feature-customers-icon", "#15803d"),
                    "Customers",
                    vec!["Addresses, terms and", "history in one card."],
                ),
                feature(
                    "feature-export",
                    ("feature-export-icon", "#475569"),
                    "Export",
                    vec!["CSV for your accountant,", "whenever they ask."],
                ),
            ]),
        ],
        console_error: false,
    }
}

fn about() -> ContentPage {
    ContentPage {
        path: "/site/about",
        title: "About",
        blocks: vec![
            hero(
                "About Ledgerline",
                "A small team making invoicing a little less tedious.",
                vec![],
            ),
            Block::Text {
                heading: "Our story",
                paragraphs: vec![
                    "Ledgerline started as a spreadsheet that one freelancer used to keep track \
                     of who had paid. Friends asked for a copy, then their friends did.",
                    "Today it is a tidy web app, and still the same idea: know what you are \
                     owed without thinking about it.",
                ],
            },
            tiles(
                "The team",
                &[
                    ("team-ada", "Ada"),
                    ("team-grace", "Grace"),
                    ("team-linus", "Linus"),
                    ("team-margaret", "Margaret"),
                ],
            ),
        ],
        console_error: false,
    }
}

fn contact() -> ContentPage {
    ContentPage {
        path: "/site/contact",
        title: "Contact",
        blocks: vec![
            hero(
                "Get in touch",
                "Questions about plans or billing? We answer within a day.",
                vec![],
            ),
            Block::Form {
                fields: vec!["Your name", "Email address", "Message"],
                submit: "Send message",
            },
        ],
        console_error: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_path_has_a_page_and_others_none() {
        for path in PATHS {
            assert_eq!(page(path, Variant::Baseline).unwrap().path, path);
        }
        assert!(page("/site/nope", Variant::Baseline).is_none());
    }

    #[test]
    fn a_variant_changes_only_its_page() {
        for variant in Variant::ALL {
            for path in PATHS {
                let changed = super::super::variant::seeded_change(variant)
                    .is_some_and(|change| change.path == path);
                let same = page(path, variant) == page(path, Variant::Baseline);
                let visible = !matches!(variant, Variant::NeverLoads | Variant::Baseline);
                assert_eq!(same, !(changed && visible), "{variant} {path}");
            }
        }
    }
}
