//! The values actions carry: points, buttons and scroll directions.

/// A point in the model's coordinates.
pub type ModelPoint = (i64, i64);

/// A mouse button.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MouseButton {
    /// The primary button.
    Left,
    /// The secondary button.
    Right,
    /// The wheel button.
    Middle,
}

/// Which way to scroll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScrollDirection {
    /// Content moves down (the view goes up).
    Up,
    /// The usual "scroll down".
    Down,
    /// Towards the left.
    Left,
    /// Towards the right.
    Right,
}

/// The directions `scroll` takes.
pub(crate) const DIRECTIONS: [&str; 4] = ["up", "down", "left", "right"];
