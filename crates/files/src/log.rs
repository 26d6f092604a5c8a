//! [`AtomicLog`]: a file written a line at a time that never replaces a good file with an
//! empty or partial one. The first line goes to a temporary file beside the log's name, which
//! is renamed into place once that line is whole; later lines are appended whole (each one
//! written and flushed in one go). A run that ends before its first line leaves the earlier
//! log in place.

use std::io::Write;
use std::path::Path;
use std::path::PathBuf;

use crate::whole_file::context;
use crate::whole_file::temporary_beside;

/// Where the log's lines go: the temporary file until the first line is whole, then the
/// file at the log's name.
#[derive(Debug)]
enum State {
    Pending(tempfile::NamedTempFile),
    Placed(std::fs::File),
    /// Renaming the first line into place failed; nothing more is written.
    Failed,
}

/// A log file written line by line, replacing the file at its name once one line is whole.
#[derive(Debug)]
pub struct AtomicLog {
    path: PathBuf,
    state: State,
}

impl AtomicLog {
    /// Starts the log for `path` (its folder must exist); the file at `path` stays as it is
    /// until the first line is written.
    pub fn create(path: &Path) -> std::io::Result<AtomicLog> {
        Ok(AtomicLog {
            path: path.to_owned(),
            state: State::Pending(temporary_beside(path)?),
        })
    }

    /// The log's name.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `line` and a newline, flushed: the first line moves the log into place.
    pub fn write_line(&mut self, line: &str) -> std::io::Result<()> {
        let mut whole = Vec::with_capacity(line.len() + 1);
        whole.extend_from_slice(line.as_bytes());
        whole.push(b'\n');
        let failed = || std::io::Error::other("an earlier write of this log failed");
        match std::mem::replace(&mut self.state, State::Failed) {
            State::Pending(mut temp) => {
                temp.write_all(&whole).map_err(context(format!(
                    "cannot write to {}",
                    temp.path().display()
                )))?;
                let placed = temp.persist(&self.path).map_err(|error| {
                    context(format!(
                        "cannot rename a temporary file to {}",
                        self.path.display()
                    ))(error.error)
                })?;
                self.state = State::Placed(placed);
                Ok(())
            }
            State::Placed(mut file) => {
                let written = file
                    .write_all(&whole)
                    .map_err(context(format!("cannot write to {}", self.path.display())));
                self.state = State::Placed(file);
                written
            }
            State::Failed => Err(failed()),
        }
    }
}
