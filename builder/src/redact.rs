//! Text that must not reach a terminal or a file as it came: a URL's password, and a server's
//! control characters (escape sequences that would retitle, clear or rewrite the terminal).

use std::borrow::Cow;

/// `text` with every control character but the line break escaped (one rule for the three
/// binaries: [`cks_pinning::terminal::controls`]).
pub use cks_pinning::terminal::controls;

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
