//! retrace-demo: the small web app ("Ledgerline", a tidy invoicing dashboard, plus a content
//! site) that `retrace demo`, `retrace serve-demo` and every end-to-end test act on.
//!
//! It has the awkward parts of real apps, each on purpose:
//!
//! - `/`: a login form (`#username`, `#password`, `#sign-in` "Sign in"). The one account is
//!   [`DEMO_USERNAME`] / [`DEMO_PASSWORD`] (`demo` / `retrace-demo-pw`, shown on the page).
//!   Wrong credentials answer 401 with the form again and `#login-error` "Wrong username or
//!   password.". Success sets the `retrace_demo_session` cookie and redirects (303) to
//!   `/dashboard`.
//! - **Latency**: the login submit and `GET /api/report` wait [`Latency`] before answering
//!   (none, fixed, or uniformly random in `A..B` ms, drawn per request) and report the wait in
//!   the `x-retrace-demo-latency-ms` header (and `latency_ms` in the report JSON), so tests
//!   can check the server honoured the configuration without timing anything.
//! - `/dashboard` (signed in only, else 303 to `/`): `#welcome` "Welcome back, demo"; the
//!   invoice table `#invoices` (8 fixed rows) with the search box `#search` that filters rows
//!   as you type and updates `#invoice-count` ("Showing N of 8 invoices"); the slow action
//!   `#generate-report` whose result appears in `#report-result` ("Report ready: 8 invoices,
//!   $11,516.45 billed", white on a solid green badge, so the region around it changes
//!   enough for a perceptual hash to tell "ready" from "pending") after the latency; the animated panel `#sync-panel` (a progress bar
//!   and a pulsing dot that run for 2.4 s after load, then settle on `#sync-done` "All
//!   invoices synced"); and a modal `#modal` opened by `#new-invoice` "New invoice" (its
//!   customer field `#modal-customer` takes the focus) and closed by `#modal-close` "Close"
//!   or `#modal-save` "Save draft", which appends a draft row numbered after the last one
//!   (`INV-1049` first) with the customer and the amount as typed after the sign of the
//!   currency chosen in the native dropdown `#modal-currency` "Currency" beside the amount
//!   field ([`CURRENCIES`]: `USD` `$`, the default, `EUR` `€`, `GBP` `£`). At 1280x800 the
//!   amount field is x 444..728 and the dropdown x 740..836, both y 324..364.
//! - `/logout` clears the cookie; `/healthz` answers `ok`.
//! - Every page's script ends by setting `window.ledgerlineReady = true`, so a test can tell
//!   it has run.
//! - `/site/...`: a signed-out content site in variants, for visual regression checks (see
//!   [The content site](#the-content-site-site)).
//!
//! # Pixel determinism
//! No web fonts on the app's pages (the generic `sans-serif` family), no external resources
//! (everything is inline; the favicon is an empty data URL), fixed pixel sizes, no hover
//! colour changes and fixed data, so headless Chromium at 1280x800 renders the same pixels on
//! every run (after the 2.4 s sync animation has settled). Everything opt-in below leaves the
//! default `v1` and `v2` pages byte for byte as they were.
//!
//! # Opt-in awkward parts, and how they are chosen
//! Each is off by default and chosen app-wide by a [`DemoConfig`] field (and a `retrace
//! serve-demo` flag) or per request by a query parameter, which wins and is carried, like
//! `layout`, into the login form's action, the login redirect and the sign-out link (in the
//! order `layout`, `fault`, `mark_sent`, `script_delay_ms`). A value the app does not know
//! answers 400 naming the parameter and the value ([`QueryError`]).
//!
//! | what | config field | query | flag |
//! |---|---|---|---|
//! | the `rename` layout | [`DemoConfig::layout`] | `?layout=rename` | `--layout rename` |
//! | faults | [`DemoConfig::faults`] | `?fault=a,b` (`none` for none) | `--fault a,b` |
//! | the "Mark as sent" checkbox | [`DemoConfig::mark_sent`] | `?mark_sent=1` / `0` | `--mark-sent` |
//! | late scripts | [`DemoConfig::script_delay_ms`] | `?script_delay_ms=N` (`off`) | `--script-delay-ms N` |
//! | the site's variant | [`DemoConfig::variant`] | `?variant=NAME` | `--variant NAME` |
//! | shared drafts | [`DemoConfig::recent_drafts`] | | |
//!
//! # Shared drafts
//! With `recent_drafts`, "Save draft" also stores the draft on the server (`POST
//! /api/drafts`), and every dashboard shows the latest three anyone saved in a "Recently
//! saved" card `#recent-drafts` (each amount with its currency's sign, and the number saved
//! so far in its `data-saved` attribute), fixed over the middle of the invoice table (x 300..640 from
//! y 440 at 1280x800, where the sign-in button was on the login page), once there is one: runs
//! of one flow against one app see each other's records, as on a real server.
//!
//! # The `v2` layout
//! Chosen app-wide with [`DemoConfig::layout`] or per request with `?layout=v2` (the
//! parameter wins and is carried through the login redirect and the sign-out link). It
//! changes exactly three things and nothing else:
//!
//! 1. **Moved control** (login page): `#sign-in` is shifted **40 px right and 24 px down**
//!    (CSS `position: relative; left: 40px; top: 24px`, a Euclidean shift of about 46.6 px,
//!    under 60 px) with the same look and label. At 1280x800 the button (140 x 44 px) covers
//!    x 481..621, y 445..489 in `v1` and x 521..661, y 469..513 in `v2` (centres (551, 467)
//!    and (591, 491)). The 100 x 100 px region around either centre holds only the button
//!    and plain card background, so a hash search near the recorded point finds it: a replay
//!    should repair this step without the model.
//! 2. **Changed control** (dashboard): `#generate-report` keeps its place and id but reads
//!    **"Export report"** instead of "Generate report" and is an **outlined light-orange
//!    button** (background `#fff7ed`, text `#9a3412`, border `#ea580c`) instead of a solid blue
//!    one (`#2563eb`): a change of brightness, not only of hue, because replay compares
//!    grayscale perceptual hashes. A replay that clicks it should fail at that step.
//! 3. **Changed control** (dashboard): `#new-invoice` keeps its id and its place at the
//!    right end of the invoice card's header (x 702..819, y 185..221 at 1280x800 in `v1`,
//!    centre (761, 203); 2 px wider in `v2`, so the search box beside it moves 2 px left)
//!    but reads **"Add invoice"** instead of "New invoice" ([`new_invoice_button_label`])
//!    and has the same outlined light-orange look as the v2 report button (its line height
//!    shrinks by the border, so the label stays centred in the 36 px button). The modal it
//!    opens is unchanged. The bundled demo recording (sign in, then add a draft invoice)
//!    clicks it right after signing in, so its replay on `v2` repairs the moved `#sign-in`
//!    and then fails here.
//!
//! # The `rename` layout: a same-width relabel
//! `?layout=rename` ([`Layout::Rename`]) changes exactly one thing from `v1`: `#new-invoice`
//! reads **"Add invoice"** in the **v1 style** (solid blue). Its label sits in a box that
//! reserves the width of v1's label (an invisible `::before` holding "New invoice"), so the
//! button keeps v1's width to the fraction of a pixel and nothing else moves. Measured in
//! headless Chromium at 1280x800: the button is x 702.08..819, y 184.5..220.5 (116.92 x 36 px)
//! in both layouts (its natural width would be 115.36 px, 1.56 px narrower); the pixels that
//! differ from v1 are all inside x 720..801, y 197..208 (the label). The login page is v1's,
//! pixel for pixel. A replay that clicks it at v1's point finds a button of the same size and
//! colour with other text: its trust checks must tell.
//!
//! # Faults
//! [`Fault`]s make the dashboard's controls misbehave; they change its script only, never
//! its markup or pixels:
//!
//! - `save-ignores-clicks`: "Save draft" (`#modal-save`) ignores clicks (and Enter): the modal
//!   stays open and no row appears.
//! - `mark-sent-ignores-clicks`: the "Mark as sent" checkbox (below) ignores clicks, on it or
//!   on its label: it stays unchecked. It turns the checkbox on.
//! - `amount-rewritten`: the amount field (`#modal-amount`) drops every `.` on each `input`
//!   event: typing `120.00` leaves `12000`, and Save draft adds a `$12000` row.
//!
//! # The "Mark as sent" checkbox
//! With `mark_sent`, the New invoice modal has a checkbox `#modal-sent` labelled "Mark as
//! sent" under the amount field (a 20 x 20 box, white with a grey border; checked: blue with a
//! white inset, so a screenshot shows its state). At 1280x800 the box is x 444..464,
//! y 382..402, its label row x 444..836, y 380..404; the modal grows 40 px and "Save draft"
//! moves to x 732..836, y 428..468 (Close x 644..720). A row saved while it is checked is
//! "Pending" instead of "Draft". Without `mark_sent` the modal is as above.
//!
//! # Late scripts
//! With `script_delay_ms = N`, the login page's and the dashboard's scripts are not in the
//! HTML: a loader inserts `<script src="/assets/login.js?...">` (or `dashboard.js`) after the
//! `load` event, and the server answers it N ms later (reporting N in the latency header).
//! Meanwhile the page looks complete, "New invoice" does nothing and a request is in flight,
//! so "network quiet" does not hold; once the script has run the page shows the same pixels
//! as with an inline script. `?script_delay_ms=off` goes back to inline scripts; the longest
//! delay is [`MAX_SCRIPT_DELAY_MS`].
//!
//! # Latency
//! A fixed latency of 3 s (`--latency-ms 3000`) holds the sign-in submit for 3 s; the login
//! page shows "Signing in..." on the disabled button meanwhile.
//!
//! # The content site (`/site/`)
//! Signed-out pages (no cookie) for visual regression checks: a checker compares a baseline
//! URL with a candidate URL path by path. Two servers on two ports can play "production" and
//! "refactored" with `--variant`, or one server can serve both with `?variant=` (carried into
//! the navigation links). [`site::site_pages`], `/site/pages.json` (with each variant's
//! seeded change) and `/site/pages.txt` (one path a line) list every page, the same in every
//! variant:
//!
//! - 5 **content pages** (`/site/`, `/site/pricing`, `/site/features`, `/site/about`,
//!   `/site/contact`): what the variants change;
//! - 7 **unsteady pages**, the same in every variant: `/site/animation` (an infinite CSS
//!   animation), `/site/transition` (a panel fading and sliding in over 1.2 s after `load`),
//!   `/site/web-font` (a font requested after `load` and answered [`site::WEB_FONT_DELAY_MS`]
//!   later, `font-display: swap`; the font is a subset of DejaVu Serif Bold bundled in
//!   `assets/`, licence beside it), `/site/lazy-images` (12 app-generated SVG images with
//!   `loading=lazy`, the first just below the fold at 1280x800, the last ~5600 px down), `/site/caret` (an
//!   autofocused field with a blinking caret), `/site/sticky-header` (a sticky header over
//!   a ~7000 px page) and `/site/animated-image` (an animated GIF generated by the demo, 48
//!   frames of 20 ms looping forever, its first frame's bar in a colour of its own);
//! - [`site::CATALOG_PAGES`] generated **catalogue pages** `/site/catalog/1..=50`, distinct
//!   and deterministic, the same in every variant, for throughput benchmarks;
//! - 2 **stateful pages**, the same in every variant: [`site::TICKER_PATH`] (a counter a
//!   script rewrites on every animation frame: it never holds still, whatever freezes CSS
//!   animations) and [`site::FIRST_VISIT_PATH`] (says "first visit" until the cookie
//!   [`site::FIRST_VISIT_COOKIE`] it sets says otherwise: two sides sharing cookies differ).
//!
//! Every page is inline CSS (and inline JS where it has any), with no external request, no
//! randomness and no clock (the ticker counts frames, not time); it lays out at a fixed width, independent of the viewport's height,
//! so page boxes are the same at 1280x720 and 1280x800. [`Variant`]s:
//!
//! | variant | page | what changes | box (x, y, w x h, page px) |
//! |---|---|---|---|
//! | `baseline` | | nothing: "production" | |
//! | `identical-markup` | every content page | the markup only (other elements, classes, ids, nesting; grid, floats and absolute positions instead of flexbox, flexbox rows instead of a table): same pixels, a checker must pass it | none |
//! | `shift` | `/site/pricing` | the Pro plan card `#plan-pro` moves 4 px down | 472, 260, 336 x 236 |
//! | `text` | `/site/` | the primary button `#cta-trial` reads "Start your trial" | 120, 244, 200 x 48 (the button; the glyphs inside) |
//! | `colour` | `/site/features` | the icon `#feature-invoices-icon` is `#0f9a8e` instead of `#0f766e`: CIE76 ΔE 14.63, CIEDE2000 ΔE 13.06 ([`site::COLOUR_CHANGE`]) | 145, 285, 48 x 48 |
//! | `overlay` | `/site/features` | the icon `#feature-reminders-icon` is painted over by a 35% white layer (`background-image`); its computed colours, box and text stay the same, so the DOM does not explain the change | 497, 285, 48 x 48 |
//! | `removed` | `/site/about` | the last team tile `#team-margaret` is gone (the others stay) | 648, 478, 160 x 56 |
//! | `console-error` | `/site/` | `console.error(...)` and an uncaught `Error`; same pixels | none |
//! | `never-loads` | `/site/contact` | the response sends the page up to its header, then never completes (until the server stops) | a checker must report ERROR |
//!
//! Every other page of a variant is the baseline's, byte for byte. [`site::seeded_change`] and
//! [`site::seeded_change_box`] hold these boxes for tests; the boxes are tight (the differing
//! pixels reach every edge) except `text`'s.
//!
//! # What it does not do
//! No persistence (a "Save draft" row lives in the page only), no real authentication (the
//! cookie's value is the user name), no TLS.
//!
//! # Example
//! ```no_run
//! # async fn example() -> Result<(), Box<dyn std::error::Error>> {
//! use retrace_demo::{DemoConfig, Latency, Layout, Variant};
//! let config = DemoConfig {
//!     latency: "100..1500".parse::<Latency>()?,
//!     layout: Layout::V2,
//!     faults: "save-ignores-clicks".parse()?,
//!     script_delay_ms: Some(2_000),
//!     variant: Variant::Shift,
//!     ..DemoConfig::default()
//! };
//! let server = retrace_demo::start(config, "127.0.0.1:0".parse()?).await?;
//! let url = server.url(); // e.g. http://127.0.0.1:41234/
//! # let _ = url;
//! server.shutdown().await?;
//! # Ok(())
//! # }
//! ```
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod app_routes;
mod app_state;
mod config;
mod currency;
mod dashboard_page;
mod dashboard_script;
mod faults;
mod html;
mod invoices;
mod login_page;
mod page_options;
mod recent_drafts;
mod responses;
mod scripts;
mod server;
pub mod site;

pub use app_state::SESSION_COOKIE;
pub use config::Credentials;
pub use config::DEMO_PASSWORD;
pub use config::DEMO_USERNAME;
pub use config::DemoConfig;
pub use config::Latency;
pub use config::LatencyParseError;
pub use config::Layout;
pub use config::LayoutParseError;
pub use currency::CURRENCIES;
pub use currency::with_sign;
pub use dashboard_page::new_invoice_button_label;
pub use dashboard_page::report_button_label;
pub use faults::Fault;
pub use faults::FaultParseError;
pub use faults::Faults;
pub use invoices::INVOICES;
pub use invoices::Invoice;
pub use invoices::Status;
pub use invoices::format_money;
pub use invoices::total_cents;
pub use page_options::MAX_SCRIPT_DELAY_MS;
pub use page_options::QueryError;
pub use responses::LATENCY_HEADER;
pub use server::DemoError;
pub use server::DemoServer;
pub use server::router;
pub use server::start;
pub use site::Variant;
pub use site::VariantParseError;
