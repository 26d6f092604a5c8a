//! retrace-demo: the small web app ("Ledgerline", a tidy invoicing dashboard) that
//! `retrace demo`, `retrace serve-demo` and every end-to-end test act on.
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
//!   (`INV-1049` first) with the customer and `$` + the amount as typed.
//! - `/logout` clears the cookie; `/healthz` answers `ok`.
//!
//! # Pixel determinism
//! No web fonts (the generic `sans-serif` family), no external resources (everything is
//! inline; the favicon is an empty data URL), fixed pixel sizes, no hover colour changes and
//! fixed data, so headless Chromium at 1280x800 renders the same pixels on every run (after
//! the 2.4 s sync animation has settled).
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
//! # What it does not do
//! No persistence (a "Save draft" row lives in the page only), no real authentication (the
//! cookie's value is the user name), no TLS.
//!
//! # Example
//! ```no_run
//! # async fn example() -> Result<(), Box<dyn std::error::Error>> {
//! use retrace_demo::{DemoConfig, Latency, Layout};
//! let config = DemoConfig {
//!     latency: "100..1500".parse::<Latency>()?,
//!     layout: Layout::V2,
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

mod config;
mod dashboard_page;
mod html;
mod invoices;
mod login_page;
mod server;

pub use config::Credentials;
pub use config::DEMO_PASSWORD;
pub use config::DEMO_USERNAME;
pub use config::DemoConfig;
pub use config::Latency;
pub use config::LatencyParseError;
pub use config::Layout;
pub use config::LayoutParseError;
pub use dashboard_page::new_invoice_button_label;
pub use dashboard_page::report_button_label;
pub use invoices::INVOICES;
pub use invoices::Invoice;
pub use invoices::Status;
pub use invoices::format_money;
pub use invoices::total_cents;
pub use server::DemoError;
pub use server::DemoServer;
pub use server::LATENCY_HEADER;
pub use server::SESSION_COOKIE;
pub use server::router;
pub use server::start;
