//! Quoting arguments for the remote POSIX shell that sshd hands the command to.

/// Quotes `arg` so that a POSIX shell reads it back as exactly one word with the same bytes.
///
/// Words made only of characters no shell treats specially are left as they are, so the
/// commands read as CKS writes them (`sudo /opt/bin/autoscale-kube-cluster -i <uuid> -e ...`);
/// anything else is put in single quotes, with each `'` written as `'\''`.
pub fn quote(arg: &str) -> String {
    if !arg.is_empty() && arg.chars().all(is_plain) {
        return arg.to_string();
    }
    let mut quoted = String::with_capacity(arg.len() + 2);
    quoted.push('\'');
    for ch in arg.chars() {
        if ch == '\'' {
            quoted.push_str("'\\''");
        } else {
            quoted.push(ch);
        }
    }
    quoted.push('\'');
    quoted
}

/// Quotes every word and joins them with spaces.
pub fn join<S: AsRef<str>>(words: &[S]) -> String {
    words
        .iter()
        .map(|word| quote(word.as_ref()))
        .collect::<Vec<_>>()
        .join(" ")
}

fn is_plain(ch: char) -> bool {
    ch.is_ascii_alphanumeric()
        || matches!(
            ch,
            '-' | '_' | '.' | '/' | ':' | '=' | '@' | '%' | '+' | ','
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::process::Command;

    #[test]
    fn leaves_plain_words_alone() {
        assert_eq!(
            quote("/opt/bin/autoscale-kube-cluster"),
            "/opt/bin/autoscale-kube-cluster"
        );
        assert_eq!(quote("--timeout=120s"), "--timeout=120s");
    }

    #[test]
    fn quotes_empty_and_special_words() {
        assert_eq!(quote(""), "''");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), "'it'\\''s'");
        assert_eq!(quote("$(reboot)"), "'$(reboot)'");
        assert_eq!(quote("~root"), "'~root'");
    }

    /// Runs `sh -c 'printf "%s\0" <quoted words>'` and splits the output on NUL.
    fn through_sh(words: &[String]) -> Vec<String> {
        let script = format!("printf '%s\\0' {}", join(words));
        let output = Command::new("sh")
            .arg("-c")
            .arg(&script)
            .output()
            .expect("sh runs");
        assert!(output.status.success(), "sh failed on {script:?}");
        let text = String::from_utf8(output.stdout).expect("utf-8 back");
        let mut back: Vec<String> = text.split('\0').map(str::to_string).collect();
        back.pop(); // after the last NUL
        back
    }

    #[test]
    fn awkward_words_survive_sh() {
        let words: Vec<String> = [
            "", " ", "'", "\"", "\\", "$HOME", "`id`", "a\nb", "*", "#x", "ä ö",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(through_sh(&words), words);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn any_word_survives_a_sh_round_trip(words in proptest::collection::vec("[^\u{0}]{0,12}", 1..4)) {
            prop_assert_eq!(through_sh(&words), words);
        }
    }
}
