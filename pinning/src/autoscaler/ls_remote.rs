//! Parsing `git ls-remote --tags` output: `<sha>\t<ref>` lines, with a peeled `<ref>^{}` line
//! after each annotated tag giving the commit it points to.

use thiserror::Error;

use super::object_id::{self, MAX_LEN, ObjectId};
use super::tag_table::TagTable;

const TAG_PREFIX: &str = "refs/tags/";
const PEELED_SUFFIX: &str = "^{}";

/// One tag of a remote, borrowed from its [`RemoteTags`]: the object its ref names and, for an
/// annotated tag, the peeled commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RemoteTag<'a> {
    /// The tag's name without `refs/tags/`, e.g. `cluster-autoscaler-1.33.6`.
    pub name: &'a str,
    /// The object the ref points to (a tag object for an annotated tag, else the commit).
    pub object: ObjectId<'a>,
    /// The commit an annotated tag points to (its `^{}` line), if listed.
    pub peeled: Option<ObjectId<'a>>,
}

impl<'a> RemoteTag<'a> {
    /// The commit the tag stands for: the peeled id of an annotated tag, else the ref's id.
    pub fn commit(&self) -> ObjectId<'a> {
        self.peeled.unwrap_or(self.object)
    }
}

/// The tags of a remote, parsed from `git ls-remote` text, sorted by name. Each name is kept
/// once and each object id as its bytes, so the tags take less memory than the text listing
/// them: a caller that drops the text after parsing holds no more than it did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RemoteTags {
    table: TagTable,
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
    /// The listing is beyond what the tags' 32-bit offsets reach (4 GiB).
    #[error("the tag listing is {size} bytes, more than the 4 GiB a listing may be")]
    TooLarge {
        /// The listing's size in bytes.
        size: usize,
    },
}

/// A line that is not `<sha>\t<ref>`.
struct Malformed;

/// A tag line: the tag's name, whether it is the peeled (`^{}`) line, and how many bytes of the
/// object id the line's hex gave.
type TagLine<'l> = (&'l str, bool, usize);

/// Reads a non-blank listing line, its object id into `oid`: `None` for a ref that is not a tag.
fn tag_line<'l>(line: &'l str, oid: &mut [u8; MAX_LEN]) -> Result<Option<TagLine<'l>>, Malformed> {
    let (sha, reference) = line.split_once('\t').ok_or(Malformed)?;
    let oid_len = object_id::decode(sha, oid).ok_or(Malformed)?;
    if reference.is_empty() || reference.contains(char::is_whitespace) {
        return Err(Malformed);
    }
    let Some(tag) = reference.strip_prefix(TAG_PREFIX) else {
        return Ok(None);
    };
    let (name, peeled) = match tag.strip_suffix(PEELED_SUFFIX) {
        Some(name) => (name, true),
        None => (tag, false),
    };
    if name.is_empty() {
        return Err(Malformed);
    }
    Ok(Some((name, peeled, oid_len)))
}

/// The listing's lines: 1-based numbers, without `\r`, blank ones left out.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .map(|raw| raw.strip_suffix('\r').unwrap_or(raw))
        .enumerate()
        .map(|(index, line)| (index + 1, line))
        .filter(|(_, line)| !line.trim().is_empty())
}

impl RemoteTags {
    /// Parses `git ls-remote` output. Lines for other refs (`HEAD`, `refs/heads/...`,
    /// `refs/pull/...`) and blank lines are skipped; peeled lines may come in any order.
    pub fn parse(text: &str) -> Result<RemoteTags, LsRemoteError> {
        let mut table = TagTable::default();
        let mut oid = [0; MAX_LEN];
        let mut malformed = None;
        for (line_number, line) in lines(text) {
            match tag_line(line, &mut oid) {
                Ok(Some((name, peeled, oid_len))) => table
                    .push(name, peeled, &oid[..oid_len], line_number)
                    .map_err(|_| LsRemoteError::TooLarge { size: text.len() })?,
                Ok(None) => {}
                Err(Malformed) => {
                    malformed = Some(LsRemoteError::Line {
                        line_number,
                        line: line.to_string(),
                    });
                    break;
                }
            }
        }
        // A conflict before the malformed line is the first thing wrong with the listing.
        if let Err(conflict) = table.finish() {
            let second = lines(text)
                .find(|(number, _)| *number == conflict.line_number)
                .and_then(|(_, line)| line.split_once('\t'))
                .map(|(sha, _)| sha.to_string())
                .unwrap_or_default();
            let suffix = if conflict.peeled { PEELED_SUFFIX } else { "" };
            return Err(LsRemoteError::Conflict {
                reference: format!("{TAG_PREFIX}{}{suffix}", conflict.name),
                line_number: conflict.line_number,
                first: conflict.first,
                second,
            });
        }
        match malformed {
            Some(error) => Err(error),
            None => Ok(RemoteTags { table }),
        }
    }

    /// The tag called `name`, if listed.
    pub fn get(&self, name: &str) -> Option<RemoteTag<'_>> {
        self.table.get(name).map(tag)
    }

    /// Every tag, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = RemoteTag<'_>> {
        self.table.iter().map(tag)
    }

    /// How many tags are listed.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// Whether no tag is listed.
    pub fn is_empty(&self) -> bool {
        self.table.len() == 0
    }
}

fn tag<'a>((name, object, peeled): (&'a str, ObjectId<'a>, Option<ObjectId<'a>>)) -> RemoteTag<'a> {
    RemoteTag {
        name,
        object,
        peeled,
    }
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
        assert_eq!(
            (x.object.to_string(), x.commit().to_string()),
            (A.into(), B.into())
        );
        assert_eq!(tags.get("y").expect("y listed").commit().to_string(), B);
        let names: Vec<&str> = tags.iter().map(|tag| tag.name).collect();
        assert_eq!(names, ["x", "y"]);
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
    fn refuses_conflicting_listings() {
        let text = format!("{A}\trefs/tags/x\n{B}\trefs/tags/x\n");
        let error = RemoteTags::parse(&text).expect_err("conflict");
        assert!(error.to_string().contains("refs/tags/x twice"), "{error}");
    }

    #[test]
    fn the_first_conflict_is_named_as_listed() {
        let upper = "ABCDEF0123".repeat(4);
        let text = format!(
            "{A}\trefs/tags/y^{{}}\n{A}\trefs/tags/x\n{A}\trefs/tags/y\n{upper}\trefs/tags/y^{{}}\r\n{B}\trefs/tags/x\nbad\n"
        );
        let error = RemoteTags::parse(&text).expect_err("conflict");
        assert_eq!(
            error,
            LsRemoteError::Conflict {
                reference: "refs/tags/y^{}".to_string(),
                line_number: 4,
                first: A.to_string(),
                second: upper,
            }
        );
    }

    #[test]
    fn a_malformed_line_before_any_conflict_is_named() {
        let text = format!("{A}\trefs/tags/x\nbad\n{B}\trefs/tags/x\n");
        let error = RemoteTags::parse(&text).expect_err("malformed");
        assert_eq!(
            error,
            LsRemoteError::Line {
                line_number: 2,
                line: "bad".to_string(),
            }
        );
    }

    #[test]
    fn repeated_lines_and_mixed_case_ids_agree() {
        let upper = "ABCDEF0123".repeat(4);
        let sha256 = "ab".repeat(32);
        let text = format!(
            "{upper}\trefs/tags/x\n{}\trefs/tags/x\n{sha256}\trefs/tags/z^{{}}\n",
            upper.to_ascii_lowercase()
        );
        let tags = RemoteTags::parse(&text).expect("valid listing");
        let x = tags.get("x").expect("x listed");
        assert_eq!(
            (x.object.to_string(), x.peeled),
            (upper.to_ascii_lowercase(), None)
        );
        let z = tags.get("z").expect("z listed");
        assert_eq!(
            (z.object.to_string(), z.commit().to_string()),
            (sha256.clone(), sha256)
        );
    }
}
