//! Text that must not reach a terminal or a file as it came: a URL's password, and a server's
//! control characters (escape sequences that would retitle, clear or rewrite the terminal).

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

/// `text` with the password of every `scheme://user:password@host` in it left out
/// (`scheme://user@host`), for text that may quote a URL given by the user.
pub fn passwords(text: &str) -> Cow<'_, str> {
    let mut out = String::new();
    let mut copied = 0;
    for (at, _) in text.match_indices('@') {
        let Some(start) = text[..at].rfind("://").map(|i| i + 3) else {
            continue;
        };
        let userinfo = &text[start..at];
        if start < copied
            || userinfo.contains(['/', '?', '#'])
            || userinfo.chars().any(char::is_whitespace)
        {
            continue;
        }
        if let Some(colon) = userinfo.find(':') {
            out.push_str(&text[copied..start + colon]);
            copied = at;
        }
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
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
    fn passwords_are_left_out_of_every_url() {
        assert_eq!(
            passwords(
                "https://dl.k8s.io=https://user:s3cret@mirror.example/k8s and http://a:b@h:80"
            ),
            "https://dl.k8s.io=https://user@mirror.example/k8s and http://a@h:80"
        );
        assert_eq!(passwords("no url here"), "no url here");
        assert_eq!(
            passwords("https://h/p@x https://u:p:q@h2/"),
            "https://h/p@x https://u@h2/"
        );
    }
}
