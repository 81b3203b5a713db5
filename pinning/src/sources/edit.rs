//! Edits applied to a downloaded file before it is put in place (`/usr/bin` → `/opt/bin` in
//! `kubelet.service` and `10-kubeadm.conf`), done as a streaming byte replacement that keeps
//! everything else, a missing trailing newline included.

use serde::{Deserialize, Serialize};

/// An edit of a downloaded file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Edit {
    /// Every occurrence of `from` becomes `to`.
    Replace {
        /// The text to find; not empty.
        from: String,
        /// Its replacement.
        to: String,
    },
}

impl Edit {
    /// `/usr/bin` → `/opt/bin`, as CKS nodes keep the Kubernetes binaries in `/opt/bin`.
    pub fn usr_bin_to_opt_bin() -> Self {
        Edit::Replace {
            from: "/usr/bin".to_string(),
            to: "/opt/bin".to_string(),
        }
    }

    /// A streaming editor for this edit, or why the edit cannot be applied.
    pub fn editor(&self) -> Result<Replacer, EditError> {
        match self {
            Edit::Replace { from, to } => Replacer::new(from.as_bytes(), to.as_bytes()),
        }
    }
}

/// Why an edit cannot be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// The text to find is empty: every position would match.
    #[error("the text to replace is empty")]
    EmptyFrom,
}

/// Replaces a byte string in a stream fed chunk by chunk; matches may span chunks.
#[derive(Debug, Clone)]
pub struct Replacer {
    from: Vec<u8>,
    to: Vec<u8>,
    carry: Vec<u8>,
}

impl Replacer {
    /// A replacer of `from` (not empty) by `to`.
    pub fn new(from: &[u8], to: &[u8]) -> Result<Self, EditError> {
        if from.is_empty() {
            return Err(EditError::EmptyFrom);
        }
        Ok(Replacer {
            from: from.to_vec(),
            to: to.to_vec(),
            carry: Vec::new(),
        })
    }

    /// Feeds the next chunk; the edited bytes that are final so far go to `out`.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<u8>) {
        let mut data = std::mem::take(&mut self.carry);
        data.extend_from_slice(chunk);
        let mut at = 0;
        while let Some(pos) = find(&data[at..], &self.from) {
            out.extend_from_slice(&data[at..at + pos]);
            out.extend_from_slice(&self.to);
            at += pos + self.from.len();
        }
        // A match can only start in the last `from.len() - 1` bytes: keep them for later.
        let keep = (self.from.len() - 1).min(data.len() - at);
        out.extend_from_slice(&data[at..data.len() - keep]);
        self.carry = data[data.len() - keep..].to_vec();
    }

    /// Ends the stream, writing what was held back.
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        out.extend_from_slice(&std::mem::take(&mut self.carry));
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn edit_in_chunks(text: &[u8], from: &str, to: &str, size: usize) -> Vec<u8> {
        let mut r = Replacer::new(from.as_bytes(), to.as_bytes()).expect("non-empty");
        let mut out = Vec::new();
        for chunk in text.chunks(size.max(1)) {
            r.feed(chunk, &mut out);
        }
        r.finish(&mut out);
        out
    }

    #[test]
    fn rewrites_usr_bin_and_keeps_a_missing_trailing_newline() {
        let unit = "[Service]\nExecStart=/usr/bin/kubelet\n[Install]\nWantedBy=multi-user.target";
        let out = edit_in_chunks(unit.as_bytes(), "/usr/bin", "/opt/bin", 3);
        assert_eq!(
            String::from_utf8(out).expect("utf-8"),
            unit.replace("/usr/bin", "/opt/bin")
        );
    }

    #[test]
    fn refuses_an_empty_pattern() {
        assert_eq!(Replacer::new(b"", b"x").err(), Some(EditError::EmptyFrom));
    }

    proptest! {
        #[test]
        fn equals_a_whole_string_replace(text in "[/usrbinopt]{0,60}", size in 1usize..9) {
            let out = edit_in_chunks(text.as_bytes(), "/usr/bin", "/opt/bin", size);
            prop_assert_eq!(String::from_utf8(out).expect("utf-8"), text.replace("/usr/bin", "/opt/bin"));
        }
    }
}
