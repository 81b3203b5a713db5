//! Standard output of the commands: once its reader closes it (`cks-iso catalog DIR | head`),
//! the command stops and `cks-iso` exits 0 without a message, as ripgrep and `cks-rollout` do.

use std::io::Write;

/// Standard output was closed by its reader: the command stops there and `cks-iso` exits 0
/// without a message (see [`closed`]).
#[derive(Debug, thiserror::Error)]
#[error("standard output was closed")]
pub struct StdoutClosed;

/// Writes `text` to standard output and flushes it. A closed stdout is [`StdoutClosed`]; any
/// other write error is named.
pub fn write(text: std::fmt::Arguments<'_>) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_fmt(text).and_then(|()| stdout.flush()) {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Err(StdoutClosed.into()),
        Err(error) => Err(anyhow::Error::new(error).context("writing to standard output")),
    }
}

/// Whether `error` is, or was caused by, a closed standard output: the quiet exit.
pub fn closed(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| cause.is::<StdoutClosed>())
}
