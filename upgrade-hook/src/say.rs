//! What the commands print for a person: every line passes through
//! [`cks_pinning::terminal::controls`], so server text in it (CloudStack's `errortext`, the
//! nodes' SSH stderr, VM and node names) reaches the terminal as text, never as escape
//! sequences it obeys. `--json` output needs nothing more: JSON escapes control characters.
//!
//! Once its reader closes stdout (`cks-upgrade-hook command ... | head -0`), the program ends
//! at once with status 0 and no message, as `cks-iso` and `cks-rollout` do.

use std::io::Write;

use cks_pinning::terminal::controls;

/// Prints `text` and a line break on standard output, control characters escaped.
pub fn out(text: &str) {
    write_out(&controls(text));
}

/// Prints `text` and a line break on standard output as it is (JSON, which escapes its own
/// control characters).
pub fn out_raw(text: &str) {
    write_out(text);
}

/// Writes `text` and a line break to stdout: a closed stdout ends the program quietly with
/// status 0, another write error ends it with status 2, named.
fn write_out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    if let Err(error) = writeln!(stdout, "{text}").and_then(|()| stdout.flush()) {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        err(&format!(
            "cks-upgrade-hook: error: writing to standard output: {error}"
        ));
        std::process::exit(2);
    }
}

/// Prints `text` and a line break on standard error, control characters escaped.
pub fn err(text: &str) {
    eprintln!("{}", controls(text));
}
