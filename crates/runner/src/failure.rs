//! [`Failure`]: why one of the command services ([`crate::hash`], [`crate::diff`],
//! [`crate::schema`], ...) could not do its work: what it was doing, then the cause, as a
//! chain of `source()`s, so a front end prints "cannot read a.png: No such file or directory".

use std::fmt::Display;

/// A cause, boxed.
type Cause = Box<dyn std::error::Error + Send + Sync + 'static>;

/// What a command service was doing when it failed, with the cause behind it.
#[derive(Debug)]
pub struct Failure {
    /// What was being done; `None`: the cause says it all (its text is the failure's).
    message: Option<String>,
    cause: Option<Cause>,
}

impl Failure {
    /// A failure with no cause behind it.
    pub fn msg(message: impl Display) -> Self {
        Failure {
            message: Some(message.to_string()),
            cause: None,
        }
    }

    /// `cause` itself, with nothing said over it.
    pub fn of(cause: impl Into<Cause>) -> Self {
        Failure {
            message: None,
            cause: Some(cause.into()),
        }
    }

    /// `message`, caused by `cause`.
    pub fn because(message: impl Display, cause: impl Into<Cause>) -> Self {
        Failure {
            message: Some(message.to_string()),
            cause: Some(cause.into()),
        }
    }
}

impl Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.message, &self.cause) {
            (Some(message), _) => f.write_str(message),
            (None, Some(cause)) => cause.fmt(f),
            (None, None) => Ok(()),
        }
    }
}

impl std::error::Error for Failure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match (&self.message, &self.cause) {
            (Some(_), Some(cause)) => Some(cause.as_ref()),
            (None, Some(cause)) => cause.source(),
            _ => None,
        }
    }
}

/// Says what was being done over a result's error.
pub trait Context<T> {
    /// The error, under `message`.
    fn context(self, message: impl Display) -> Result<T, Failure>;
    /// The error, under the message `message` makes (only made when there is an error).
    fn with_context<M: Display>(self, message: impl FnOnce() -> M) -> Result<T, Failure>;
}

impl<T, E: Into<Cause>> Context<T> for Result<T, E> {
    fn context(self, message: impl Display) -> Result<T, Failure> {
        self.map_err(|cause| Failure::because(message, cause))
    }

    fn with_context<M: Display>(self, message: impl FnOnce() -> M) -> Result<T, Failure> {
        self.map_err(|cause| Failure::because(message(), cause))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn the_chain_reads_as_the_message_then_each_cause() {
        let io = std::io::Error::other("No such file or directory");
        let failure: Result<(), _> = Err::<(), _>(io).context("cannot read a.png");
        let failure = failure.unwrap_err();
        assert_eq!(failure.to_string(), "cannot read a.png");
        let cause = std::error::Error::source(&failure).unwrap();
        assert_eq!(cause.to_string(), "No such file or directory");
        let bare = Failure::of(Failure::because("outer", Failure::msg("inner")));
        assert_eq!(bare.to_string(), "outer");
        assert_eq!(
            std::error::Error::source(&bare).unwrap().to_string(),
            "inner"
        );
    }
}
