//! The test modules, one per concern. `support` holds the helpers they share.

/// Screenshot analysis schemas: the six types, boxes, confidences, accessibility, size.
mod analysis;
/// `parse_model_answer`: fences, prose, several objects.
mod answer;
/// The comparison schema and its options.
mod comparison;
/// The specialised validator against the `jsonschema` crate, on vectors and random answers.
mod differential;
/// The manager: caching, versions, option parsing.
mod manager;
/// The agent response schema: the seed's examples, decision rules, commands, reasoning.
mod response;
/// The CSS selector check.
mod selector;
/// Committed generated schemas match what the generator produces now.
mod snapshot;
/// Helpers shared by the modules above.
mod support;
/// Model command → executor command, with `${variable}` resolution.
mod transform;
/// The shared ajv vectors: schema.json, valid.json, invalid.json.
mod vectors;
