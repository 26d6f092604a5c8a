//! Writing to stdout, where a reader that went away (`retrace hash *.png | head -1`) is not an
//! error: every line goes through [`out!`], which returns the write's error, and `main` ends
//! quietly with exit 0 when that error is a broken pipe ([`is_broken_pipe`]).

use std::io::Write;

/// Writes one line to stdout, returning the write's error (use with `?`).
macro_rules! out {
    () => { $crate::output::line(format_args!(""))? };
    ($($arg:tt)*) => { $crate::output::line(format_args!($($arg)*))? };
}
pub(crate) use out;

/// Writes `text` and a newline to stdout and flushes.
pub fn line(text: std::fmt::Arguments<'_>) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_fmt(text)?;
    stdout.write_all(b"\n")?;
    stdout.flush()
}

/// Whether `error` (or any cause in its chain) is a write to a pipe whose reader is gone.
pub fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
