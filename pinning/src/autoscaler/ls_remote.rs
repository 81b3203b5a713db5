//! Parsing `git ls-remote --tags` output: `<sha>\t<ref>` lines, with a peeled `<ref>^{}` line
//! after each annotated tag giving the commit it points to.

use std::collections::BTreeMap;

use thiserror::Error;

const TAG_PREFIX: &str = "refs/tags/";
const PEELED_SUFFIX: &str = "^{}";

/// One tag of a remote: the object its ref names and, for an annotated tag, the peeled commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteTag {
    /// The tag's name without `refs/tags/`, e.g. `cluster-autoscaler-1.33.6`.
    pub name: String,
    /// The object the ref points to (a tag object for an annotated tag, else the commit).
    pub object: String,
    /// The commit an annotated tag points to (its `^{}` line), if listed.
    pub peeled: Option<String>,
}

impl RemoteTag {
    /// The commit the tag stands for: the peeled sha of an annotated tag, else the ref's sha.
    pub fn commit(&self) -> &str {
        self.peeled.as_deref().unwrap_or(&self.object)
    }
}

/// The tags of a remote, parsed from `git ls-remote` text, sorted by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RemoteTags {
    tags: BTreeMap<String, RemoteTag>,
}

/// Why a text is not `git ls-remote` output.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LsRemoteError {
    /// A line is not `<40 or 64 hex>\t<ref>`.
    #[error(
        "line {line_number} of the tag listing is not `<sha>\\t<ref>` as `git ls-remote` prints: {line:?}"
    )]
    Line {
        /// The 1-based line number.
        line_number: usize,
        /// The line's text.
        line: String,
    },
    /// The same ref is listed twice with different objects.
    #[error(
        "the tag listing names {reference} twice (line {line_number}) with different objects {first} and {second}; list the tags again"
    )]
    Conflict {
        /// The ref listed twice.
        reference: String,
        /// The 1-based line number of the second listing.
        line_number: usize,
        /// The first object.
        first: String,
        /// The second object.
        second: String,
    },
}

impl RemoteTags {
    /// Parses `git ls-remote` output. Lines for other refs (`HEAD`, `refs/heads/...`,
    /// `refs/pull/...`) and blank lines are skipped; peeled lines may come in any order.
    pub fn parse(text: &str) -> Result<RemoteTags, LsRemoteError> {
        let mut tags: BTreeMap<String, RemoteTag> = BTreeMap::new();
        for (index, raw) in text.lines().enumerate() {
            let line_number = index + 1;
            let line = raw.strip_suffix('\r').unwrap_or(raw);
            if line.trim().is_empty() {
                continue;
            }
            let malformed = || LsRemoteError::Line {
                line_number,
                line: line.to_string(),
            };
            let (sha, reference) = line.split_once('\t').ok_or_else(malformed)?;
            if !is_object_id(sha) || reference.is_empty() || reference.contains(char::is_whitespace)
            {
                return Err(malformed());
            }
            let Some(tag) = reference.strip_prefix(TAG_PREFIX) else {
                continue;
            };
            let (name, peeled) = match tag.strip_suffix(PEELED_SUFFIX) {
                Some(name) => (name, true),
                None => (tag, false),
            };
            if name.is_empty() {
                return Err(malformed());
            }
            let entry = tags.entry(name.to_string()).or_insert_with(|| RemoteTag {
                name: name.to_string(),
                object: String::new(),
                peeled: None,
            });
            let slot = if peeled {
                entry.peeled.get_or_insert_with(String::new)
            } else {
                &mut entry.object
            };
            if slot.is_empty() {
                *slot = sha.to_ascii_lowercase();
            } else if !slot.eq_ignore_ascii_case(sha) {
                return Err(LsRemoteError::Conflict {
                    reference: reference.to_string(),
                    line_number,
                    first: slot.clone(),
                    second: sha.to_string(),
                });
            }
        }
        // A peeled line without its tag line still names the commit; use it for both.
        for tag in tags.values_mut() {
            if tag.object.is_empty() {
                tag.object = tag.peeled.clone().unwrap_or_default();
            }
        }
        Ok(RemoteTags { tags })
    }

    /// The tag called `name`, if listed.
    pub fn get(&self, name: &str) -> Option<&RemoteTag> {
        self.tags.get(name)
    }

    /// Every tag, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = &RemoteTag> {
        self.tags.values()
    }

    /// How many tags are listed.
    pub fn len(&self) -> usize {
        self.tags.len()
    }

    /// Whether no tag is listed.
    pub fn is_empty(&self) -> bool {
        self.tags.is_empty()
    }
}

/// A SHA-1 (40) or SHA-256 (64) object id in hex.
fn is_object_id(sha: &str) -> bool {
    (sha.len() == 40 || sha.len() == 64) && sha.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "1111111111111111111111111111111111111111";
    const B: &str = "2222222222222222222222222222222222222222";

    #[test]
    fn records_peeled_commits_in_any_order() {
        let text = format!(
            "{A}\tHEAD\n{B}\trefs/tags/x^{{}}\n{A}\trefs/tags/x\n{A}\trefs/heads/main\n\n{B}\trefs/tags/y\r\n"
        );
        let tags = RemoteTags::parse(&text).expect("valid listing");
        assert_eq!(tags.len(), 2);
        assert!(!tags.is_empty());
        let x = tags.get("x").expect("x listed");
        assert_eq!((x.object.as_str(), x.commit()), (A, B));
        assert_eq!(tags.get("y").expect("y listed").commit(), B);
    }

    #[test]
    fn refuses_malformed_lines_naming_them() {
        for line in [
            "nothex\trefs/tags/x",
            "1111 refs/tags/x",
            &format!("{A}\t"),
            &format!("{A}\trefs/tags/"),
        ] {
            let error = RemoteTags::parse(&format!("{B}\tHEAD\n{line}\n")).expect_err(line);
            assert!(error.to_string().contains("line 2"), "{error}");
        }
    }

    #[test]
    fn a_listing_without_tags_is_empty() {
        let tags = RemoteTags::parse(&format!("{A}\tHEAD\n{B}\trefs/heads/main\n")).expect("valid");
        assert!(tags.is_empty());
        assert_eq!(tags.len(), 0);
    }

    #[test]
    fn object_ids_are_sha1_or_sha256_hex() {
        assert!(is_object_id(A));
        assert!(is_object_id(&"ab".repeat(32)));
        for bad in [
            "1".repeat(39),
            "1".repeat(41),
            "1".repeat(63),
            "g".repeat(40),
            "g".repeat(64),
        ] {
            assert!(!is_object_id(&bad), "{bad}");
        }
    }

    #[test]
    fn refuses_conflicting_listings() {
        let text = format!("{A}\trefs/tags/x\n{B}\trefs/tags/x\n");
        let error = RemoteTags::parse(&text).expect_err("conflict");
        assert!(error.to_string().contains("refs/tags/x twice"), "{error}");
    }
}
