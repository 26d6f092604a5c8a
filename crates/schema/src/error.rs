//! The crate's error type: everything that stops a call from producing its result.
//!
//! Validation *findings* (a missing field, a bad URL) are not errors: they are data in a
//! [`crate::ValidationResult`]. These variants are for bad calls and bad inputs to the
//! generator, the compiler, the answer parser and the command transformation.

/// What went wrong in a `retrace-schema` call. Every message names the key, value or variable.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SchemaError {
    /// An option key that the schema kind does not know (`--option K=V`).
    #[error("unknown option `{key}` for {kind} schemas; valid options: {valid}")]
    UnknownOption {
        /// The schema kind (`response`, `analysis`, `comparison`).
        kind: &'static str,
        /// The key given.
        key: String,
        /// The keys the kind accepts, comma separated.
        valid: String,
    },
    /// An option value that does not parse (booleans are `true`/`false`).
    #[error("option `{key}` expects {expected}, got `{value}`")]
    BadOptionValue {
        /// The option key.
        key: String,
        /// The value given.
        value: String,
        /// What the option accepts.
        expected: &'static str,
    },
    /// An option written without `=` (`--option includeCoordinates` instead of `=true`).
    #[error("option `{0}` must be written KEY=VALUE")]
    OptionSyntax(String),
    /// An analysis type name that is not one of the six.
    #[error(
        "unknown analysis type `{0}`; valid types: CONTENT_SUMMARY, ELEMENT_DETECTION, \
         UI_STRUCTURE, TEXT_EXTRACTION, ACCESSIBILITY_AUDIT, COMPARISON"
    )]
    UnknownAnalysisType(String),
    /// A schema version that is not `MAJOR.MINOR.PATCH`.
    #[error("schema version `{0}` must be MAJOR.MINOR.PATCH, for example 1.2.0")]
    BadVersion(String),
    /// A schema the validator cannot compile (only for schemas supplied from outside).
    #[error("cannot compile schema: {0}")]
    Compile(String),
    /// Text given as JSON does not parse (the parser's message names line and column).
    #[error("invalid JSON: {0}")]
    InvalidJson(String),
    /// The model's answer holds no JSON object.
    #[error("the answer holds no JSON object ({chars} characters of text)")]
    NoJsonObject {
        /// Length of the answer, in characters.
        chars: usize,
    },
    /// The model's answer holds several different JSON objects; which one is meant is unclear.
    #[error("the answer holds {count} different JSON objects; answer with exactly one")]
    SeveralJsonObjects {
        /// How many distinct top-level objects were found.
        count: usize,
    },
    /// The model's answer is larger than the parser accepts.
    #[error("the answer is {len} bytes; at most {limit} are accepted")]
    AnswerTooLarge {
        /// Size of the answer.
        len: usize,
        /// The limit.
        limit: usize,
    },
    /// The command is not one the executor knows, or its parameters do not fit it.
    #[error("command is not executable: {0}")]
    BadCommand(String),
    /// A `${name}` reference to a variable the session has not saved.
    #[error(
        "command field `{field}` refers to `${{{name}}}`, which this session has not saved; \
         saved variables: {known}"
    )]
    UnknownVariable {
        /// Which parameter held the reference (`url`, `selector`, `text`).
        field: &'static str,
        /// The variable name.
        name: String,
        /// The saved variable names, comma separated (`none` when empty).
        known: String,
    },
    /// A `${` that is not closed, or a reference whose name is not a valid variable name.
    #[error("command field `{field}` has a malformed variable reference at byte {at}: {reason}")]
    BadVariableReference {
        /// Which parameter held the reference.
        field: &'static str,
        /// Byte offset of the `${`.
        at: usize,
        /// What is wrong.
        reason: &'static str,
    },
    /// The URL, after `${variable}` substitution, uses a scheme the executor refuses.
    #[error("command url scheme `{scheme}` is not allowed after substitution; allowed: {allowed}")]
    UrlSchemeNotAllowed {
        /// The scheme found.
        scheme: String,
        /// The allowed schemes, comma separated.
        allowed: String,
    },
}
