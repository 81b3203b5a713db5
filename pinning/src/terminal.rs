//! Text a server chose, made safe for a terminal: its control characters (escape sequences that
//! would retitle, clear or rewrite the terminal) shown as visible escapes. `cks-iso`,
//! `cks-rollout` and `cks-upgrade-hook` pass every server text (CloudStack's `errortext`,
//! Kubernetes Status messages, node names, SSH stderr) through [`controls`] before printing it.
//!
//! ```
//! use cks_pinning::terminal::controls;
//! assert_eq!(controls("node-1"), "node-1");
//! assert_eq!(controls("x\u{1b}]0;owned\u{7}"), "x\\u{1b}]0;owned\\u{7}");
//! ```

use std::borrow::Cow;

/// `text` with every control character but the line break (C0, DEL, C1: `ESC`, `BEL`, `CR`…)
/// written as a visible escape (`\u{1b}`), for text a server sent (an error body, a header)
/// or anything that may hold it, before it is printed.
pub fn controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c.is_control() && c != '\n') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() && c != '\n' {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Like [`controls`], with the line break escaped too: for text printed inside one line (a
/// table cell, a node name) where a server's line break would forge another line.
pub fn one_line(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_escaped_and_lines_kept() {
        assert_eq!(controls("plain text\nline two"), "plain text\nline two");
        assert_eq!(
            controls("denied\u{1b}]0;owned\u{7}\u{1b}[2J\r\u{9b}x"),
            "denied\\u{1b}]0;owned\\u{7}\\u{1b}[2J\\u{d}\\u{9b}x"
        );
    }

    #[test]
    fn one_line_escapes_the_line_break_too() {
        assert_eq!(one_line("a\nb\u{1b}"), "a\\u{a}b\\u{1b}");
        assert_eq!(one_line("worker-1"), "worker-1");
    }
}
