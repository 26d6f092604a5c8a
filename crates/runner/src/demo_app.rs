//! The bundled demo app, served for `retrace serve-demo` and `retrace demo`: its settings as
//! the command line writes them ([`Latency`], [`Layout`], [`Faults`], [`Variant`]) and a
//! running server ([`DemoApp`]).

use std::net::SocketAddr;

use retrace_demo::DemoConfig;
use retrace_demo::DemoServer;

use crate::failure::Context;
use crate::failure::Failure;

/// The user name the demo app signs in.
pub const DEMO_USERNAME: &str = retrace_demo::DEMO_USERNAME;
/// The password the demo app signs in with.
pub const DEMO_PASSWORD: &str = retrace_demo::DEMO_PASSWORD;
/// The longest script delay the demo app takes (`--script-delay-ms`), in ms.
pub const MAX_SCRIPT_DELAY_MS: u64 = retrace_demo::MAX_SCRIPT_DELAY_MS;

/// Defines a setting as the command line writes it: parsed from text (the demo app's own
/// parser and error), shown as the app shows it.
macro_rules! setting {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Default)]
        pub struct $name(pub(crate) retrace_demo::$name);

        impl std::str::FromStr for $name {
            type Err = String;

            fn from_str(text: &str) -> Result<Self, String> {
                text.parse().map($name).map_err(|error| format!("{error}"))
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

setting!(
    /// The delay of the login submit and the report action: `MS` or a random range `A..B`.
    Latency
);
setting!(
    /// The layout served by default: `v1`, `v2` or `rename`.
    Layout
);
setting!(
    /// The controls that misbehave by default (`save-ignores-clicks,...`, or `none`).
    Faults
);
setting!(
    /// The content site's variant under `/site/` (`baseline`, `shift`, ...).
    Variant
);

impl Layout {
    /// The name used in `?layout=` and on the command line.
    pub fn as_str(&self) -> &'static str {
        self.0.as_str()
    }
}

impl Variant {
    /// The name used in `?variant=` and on the command line.
    pub fn as_str(&self) -> &'static str {
        self.0.as_str()
    }
}

/// How to serve the demo app.
#[derive(Debug, Clone, Default)]
pub struct DemoSettings {
    /// Delay of the login submit and the report action.
    pub latency: Latency,
    /// The default layout.
    pub layout: Layout,
    /// The default faults.
    pub faults: Faults,
    /// Whether the New invoice modal has a "Mark as sent" checkbox.
    pub mark_sent: bool,
    /// Late scripts, answered this many ms after the `load` event.
    pub script_delay_ms: Option<u64>,
    /// The content site's default variant.
    pub variant: Variant,
}

/// The demo app, serving.
#[derive(Debug)]
pub struct DemoApp(DemoServer);

impl DemoApp {
    /// Starts the demo app on `addr`.
    pub async fn start(settings: DemoSettings, addr: SocketAddr) -> Result<DemoApp, Failure> {
        let config = DemoConfig {
            latency: settings.latency.0,
            layout: settings.layout.0,
            faults: settings.faults.0,
            mark_sent: settings.mark_sent,
            script_delay_ms: settings.script_delay_ms,
            variant: settings.variant.0,
            ..DemoConfig::default()
        };
        retrace_demo::start(config, addr)
            .await
            .map(DemoApp)
            .with_context(|| format!("cannot serve the demo app on {addr}"))
    }

    /// Its address (`http://127.0.0.1:8080/`).
    pub fn url(&self) -> String {
        self.0.url()
    }

    /// Stops it.
    pub async fn shutdown(self) -> Result<(), Failure> {
        self.0.shutdown().await.context("stopping the demo app")
    }

    /// Waits until it stops on its own (a server error).
    pub async fn wait(&mut self) -> Result<(), Failure> {
        self.0.wait().await.context("the demo app stopped")
    }
}
