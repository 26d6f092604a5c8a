//! A `[[files]]` section of `retrace.toml` that cannot be used, apart from the reader that
//! finds it ([`super::config_read`]) and the file that holds it ([`super::config`]).

/// A `[[files]]` section that cannot be used: the tests whose path its pattern matches are
/// errors, with [`BadSection::problem`] as their reason.
#[derive(Debug, Clone, PartialEq)]
pub struct BadSection {
    /// The section's `match`.
    pub pattern: String,
    /// What is wrong: the file, the section, the field, the value and where it was written.
    pub problem: String,
}
