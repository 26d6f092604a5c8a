//! The one printer: every byte the binary writes goes through here (a clippy configuration,
//! `crates/cli/clippy.toml`, forbids `std::io::stdout`, `std::io::stderr` and the print
//! macros elsewhere in the crate).
//!
//! - Results go to stdout by [`out!`] (one line, the write's error returned, so that `main`
//!   ends quietly with exit 0 when the reader went away: `retrace hash *.png | head -1`,
//!   [`is_broken_pipe`]), by [`stdout`] for a batch of lines, or by [`stdout_writer`] for the
//!   console renderer and the progress display.
//! - Notes and errors go to stderr by [`note!`] (a closed stderr is not an error).
//! - Colours, where any are drawn (the log lines on stderr), follow the terminal and
//!   `NO_COLOR` ([`colours`]).
#![allow(clippy::disallowed_methods)]

use std::io::Write;

/// Writes one line to stdout, returning the write's error (use with `?`).
macro_rules! out {
    () => { $crate::output::line(format_args!(""))? };
    ($($arg:tt)*) => { $crate::output::line(format_args!($($arg)*))? };
}
pub(crate) use out;

/// Writes one line to stderr: a note or an error, never a result.
macro_rules! note {
    ($($arg:tt)*) => { $crate::output::note_line(format_args!($($arg)*)) };
}
pub(crate) use note;

/// Writes `text` and a newline to stdout and flushes.
pub fn line(text: std::fmt::Arguments<'_>) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_fmt(text)?;
    stdout.write_all(b"\n")?;
    stdout.flush()
}

/// Writes `text` and a newline to stderr; a stderr that cannot be written is ignored (there
/// is nowhere left to say so).
pub fn note_line(text: std::fmt::Arguments<'_>) {
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_fmt(text);
    let _ = stderr.write_all(b"\n");
}

/// Stdout, locked, for a command that writes many lines in one go (`hash --batch`); each
/// write's error is the caller's to return.
pub fn stdout() -> std::io::StdoutLock<'static> {
    std::io::stdout().lock()
}

/// Stdout as a writer of its own, for the console renderer and the progress display.
pub fn stdout_writer() -> Box<dyn Write + Send> {
    Box::new(std::io::stdout())
}

/// Stderr as a writer of its own, for notices of commands whose stdout holds results.
pub fn stderr_writer() -> Box<dyn Write + Send> {
    Box::new(std::io::stderr())
}

/// Whether stdout is a terminal (a person reading, not a pipe or a file).
pub fn stdout_is_terminal() -> bool {
    std::io::IsTerminal::is_terminal(&std::io::stdout())
}

/// Whether stderr's log lines are coloured: on a terminal, unless `NO_COLOR` is set to
/// anything but the empty string (no-color.org).
pub fn colours() -> bool {
    colours_for(
        std::io::IsTerminal::is_terminal(&std::io::stderr()),
        std::env::var_os("NO_COLOR"),
    )
}

fn colours_for(terminal: bool, no_color: Option<std::ffi::OsString>) -> bool {
    terminal && no_color.is_none_or(|value| value.is_empty())
}

/// Whether `error` (or any cause in its chain) is a write to a pipe whose reader is gone.
pub fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::colours_for;

    #[test]
    fn colours_need_a_terminal_and_no_no_color() {
        assert!(colours_for(true, None));
        assert!(colours_for(true, Some("".into())));
        assert!(!colours_for(true, Some("1".into())));
        assert!(!colours_for(false, None));
    }
}
