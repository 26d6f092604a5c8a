//! The accessibility layer of the desktop: what GTK and Qt applications publish of their
//! widgets (role, name, states, extents, text) on the AT-SPI accessibility bus, read with the
//! `atspi` crates over `zbus`.
//!
//! [`AccessibilityBus`] starts a private session bus and accessibility bus for the
//! application under test; [`AtSpi`] reads the element at a screen point and the focused
//! element as [`ElementInfo`]s, as a browser reports its page's, with how a text's text is
//! drawn ([`style`]). Every question is bounded by
//! [`QUERY_TIMEOUT`]: a bus that stopped answering fails the question (the caller falls back
//! to the visual checks), it never hangs a run.

pub mod bus;
pub mod element;
pub mod style;
pub mod tree;

pub use bus::AccessibilityBus;
pub use bus::NAME;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering;
use std::time::Duration;
use std::time::Instant;

use atspi::zbus;
use retrace_protocol::element::ElementInfo;

use self::tree::Node;
use crate::error::DriveError;

/// The longest one question to the accessibility bus may take.
pub const QUERY_TIMEOUT: Duration = Duration::from_secs(5);

/// A client of one accessibility bus. Once a question goes unanswered within
/// [`QUERY_TIMEOUT`], the bus counts as dead ([`AtSpi::alive`]): later questions fail at once
/// and callers check pixels only.
#[derive(Debug, Clone)]
pub struct AtSpi {
    connection: zbus::Connection,
    address: String,
    dead: Arc<AtomicBool>,
}

impl AtSpi {
    /// Connects to the accessibility bus at `address`.
    pub async fn connect(address: &str) -> Result<Self, DriveError> {
        let connect = async { zbus::connection::Builder::address(address)?.build().await };
        let connection = tokio::time::timeout(QUERY_TIMEOUT, connect)
            .await
            .map_err(|_| timeout_error("connecting", address))?
            .map_err(|error| DriveError::Launch {
                backend: NAME.to_owned(),
                detail: format!("connecting to the accessibility bus {address}: {error}"),
            })?;
        Ok(Self {
            connection,
            address: address.to_owned(),
            dead: Arc::new(AtomicBool::new(false)),
        })
    }

    /// Whether the bus still answers (no question to it has timed out).
    pub fn alive(&self) -> bool {
        !self.dead.load(Ordering::Relaxed)
    }

    /// Runs `question` within [`QUERY_TIMEOUT`]; a bus that does not answer is dead from now
    /// on, and a warning says the checks fall back to pixels.
    async fn ask<T>(
        &self,
        doing: &str,
        question: impl std::future::Future<Output = zbus::Result<T>>,
    ) -> Result<T, DriveError> {
        if !self.alive() {
            return Err(DriveError::Operation {
                backend: NAME.to_owned(),
                doing: doing.to_owned(),
                detail: format!("the accessibility bus {} stopped answering", self.address),
            });
        }
        match tokio::time::timeout(QUERY_TIMEOUT, question).await {
            Ok(answer) => answer.map_err(|error| operation_error(doing, &error)),
            Err(_) => {
                if !self.dead.swap(true, Ordering::Relaxed) {
                    tracing::warn!(
                        address = %self.address,
                        "the accessibility bus did not answer within {:.1} s while {doing}: checks are visual only from now on",
                        QUERY_TIMEOUT.as_secs_f64()
                    );
                }
                Err(timeout_error(doing, &self.address))
            }
        }
    }

    /// Every shown node of the bus's applications.
    pub async fn nodes(&self) -> Result<Vec<Node>, DriveError> {
        self.ask(
            "reading the accessibility tree",
            tree::shown_nodes(&self.connection),
        )
        .await
    }

    /// Waits for an application with a shown window on the bus: `false` when none has
    /// registered at all within `register` (it has no accessibility bridge: a toolkit's
    /// registers long before its first window shows), or none showed a window within `show`.
    pub async fn wait_for_windows(&self, register: Duration, show: Duration) -> bool {
        let started = Instant::now();
        loop {
            if let Ok(nodes) = self.nodes().await
                && nodes.iter().any(|node| node.depth == 0)
            {
                return true;
            }
            let registered = self
                .ask(
                    "listing the applications",
                    tree::application_count(&self.connection),
                )
                .await
                .is_ok_and(|count| count > 0);
            let waited = started.elapsed();
            if waited >= show || (!registered && waited >= register) {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The element at screen point (`x`, `y`), its box moved by `offset` (the screen
    /// position of the caller's origin).
    pub async fn element_at(
        &self,
        (x, y): (i32, i32),
        offset: (i32, i32),
    ) -> Result<Option<ElementInfo>, DriveError> {
        let nodes = self.nodes().await?;
        match element::node_at(&nodes, x, y) {
            Some(node) => self.element(node, offset).await.map(Some),
            None => Ok(None),
        }
    }

    /// The element with the keyboard focus, with its text when it is a field.
    pub async fn focused_element(
        &self,
        offset: (i32, i32),
    ) -> Result<Option<ElementInfo>, DriveError> {
        let nodes = self.nodes().await?;
        match element::focused_node(&nodes) {
            Some(node) => self.element(node, offset).await.map(Some),
            None => Ok(None),
        }
    }

    /// The shown elements with `role` and `name`.
    pub async fn find_elements(
        &self,
        role: &str,
        name: &str,
        offset: (i32, i32),
    ) -> Result<Vec<ElementInfo>, DriveError> {
        let nodes = self.nodes().await?;
        Ok(nodes
            .iter()
            .filter(|node| node.role == role && node.name == name)
            .map(|node| element::element_of(node, offset, None))
            .collect())
    }

    /// Every shown node as an element, boxes moved by `offset`, fields with their text: the
    /// whole tree, as a window check compares it.
    pub async fn elements(&self, offset: (i32, i32)) -> Result<Vec<ElementInfo>, DriveError> {
        let nodes = self.nodes().await?;
        let read = nodes.iter().map(|node| self.element(node, offset));
        futures::future::join_all(read).await.into_iter().collect()
    }

    /// `node` as an element, with its text read when it is a field's, and how its text is
    /// drawn when it has text.
    async fn element(&self, node: &Node, offset: (i32, i32)) -> Result<ElementInfo, DriveError> {
        let value = match element::holds_value(node) {
            true => {
                let text = self.ask(
                    "reading a field's text",
                    tree::text_of(&self.connection, node),
                );
                match text.await {
                    Ok(text) => Some(text),
                    Err(error) if !self.alive() => return Err(error),
                    Err(_) => None,
                }
            }
            false => None,
        };
        let mut element = element::element_of(node, offset, value);
        if node.has_text {
            let attributes = self.ask(
                "reading a text's attributes",
                tree::default_attributes(&self.connection, node),
            );
            match attributes.await {
                Ok(attributes) => element.text_style = style::text_style(&attributes),
                Err(error) if !self.alive() => return Err(error),
                Err(_) => {}
            }
        }
        Ok(element)
    }
}

fn timeout_error(doing: &str, address: &str) -> DriveError {
    DriveError::Operation {
        backend: NAME.to_owned(),
        doing: doing.to_owned(),
        detail: format!(
            "the accessibility bus {address} did not answer within {:.1} s",
            QUERY_TIMEOUT.as_secs_f64()
        ),
    }
}

fn operation_error(doing: &str, error: &zbus::Error) -> DriveError {
    DriveError::Operation {
        backend: NAME.to_owned(),
        doing: doing.to_owned(),
        detail: error.to_string(),
    }
}
