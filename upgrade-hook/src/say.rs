//! What the commands print for a person: every line passes through
//! [`cks_pinning::terminal::controls`], so server text in it (CloudStack's `errortext`, the
//! nodes' SSH stderr, VM and node names) reaches the terminal as text, never as escape
//! sequences it obeys. `--json` output needs nothing more: JSON escapes control characters.

use cks_pinning::terminal::controls;

/// Prints `text` and a line break on standard output, control characters escaped.
pub fn out(text: &str) {
    println!("{}", controls(text));
}

/// Prints `text` and a line break on standard error, control characters escaped.
pub fn err(text: &str) {
    eprintln!("{}", controls(text));
}
