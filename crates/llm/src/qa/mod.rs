//! Image question answering and element detection, on any [`VlmProvider`].
//!
//! [`ask_image`] sends one screenshot and a question, asks for JSON following a schema
//! (as `response_format` where the provider supports it, and always in the prompt), reads
//! the JSON out of the answer (code fences tolerated) and validates it against the schema.
//! The screenshot is fitted to the model's image limits ([`crate::images`]): shrunk, or a
//! tall page cut into labelled parts.
//! [`locate_element`] builds on it: a description in, an [`ElementLocation`] (point, box,
//! confidence) out. Nothing here retries; pass a [`crate::RetryingProvider`].

mod ask;
mod json;
mod locate;
mod location;

pub use ask::QaError;
pub use ask::ask_image;
pub use json::extract_json;
pub use json::schema_errors;
pub use locate::locate_element;
pub use locate::location_schema;
pub use locate::tiled_location_schema;
pub use location::BoundingBox;
pub use location::ElementLocation;
pub use location::Point;
