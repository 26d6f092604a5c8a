//! [`error_chain`]: the text of an error with every cause behind it, as a user reads it in
//! the console, the `--json` document, the event log and the reports. A summary alone ("the
//! replay did not start") says nothing a user can act on; the causes say what and where.

/// `error`'s text, then each cause's, joined by `: `. A cause whose text the text so far
/// already holds (an error that prints its source itself) is not repeated.
pub fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !cause_text.is_empty() && !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("the report could not be written")]
    struct Summary(#[source] std::io::Error);

    #[derive(Debug, thiserror::Error)]
    #[error("out/report.json: {0}")]
    struct Repeats(#[source] std::io::Error);

    #[test]
    fn every_cause_is_kept_once() {
        let cause = || std::io::Error::other("No space left on device (os error 28)");
        assert_eq!(
            error_chain(&Summary(cause())),
            "the report could not be written: No space left on device (os error 28)"
        );
        assert_eq!(
            error_chain(&Repeats(cause())),
            "out/report.json: No space left on device (os error 28)"
        );
    }
}
