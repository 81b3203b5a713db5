//! The refs a remote advertises, read from each form git servers send (protocol v2 `ls-refs`,
//! the v0 advertisement, dumb HTTP `info/refs`), and printed as `git ls-remote` prints them.

use super::pktline;

/// One ref of a remote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteRef {
    /// The object the ref names (for an annotated tag, the tag object).
    pub oid: String,
    /// The full ref name, `refs/tags/v1.2.3`.
    pub name: String,
    /// For an annotated tag, the object it finally points to (the `^{}` line).
    pub peeled: Option<String>,
}

/// Why an answer could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// The server sent an `ERR` packet.
    Remote(String),
    /// The answer ended before its flush packet.
    Truncated,
    /// The answer is not what the protocol says.
    Malformed(String),
}

/// An object id: 40 (sha1) or 64 (sha256) hex digits.
pub fn check_oid(oid: &str) -> Result<(), ReadError> {
    if !oid.bytes().all(|b| b.is_ascii_hexdigit()) || !(oid.len() == 40 || oid.len() == 64) {
        return Err(ReadError::Malformed(format!("`{oid}` is not an object id")));
    }
    Ok(())
}

/// The tags of an answer as `git ls-remote --tags` prints them (`<oid>\t<name>` lines, a
/// peeled `<oid>\t<name>^{}` line after an annotated tag), written as each ref arrives: the
/// only part of an answer a listing keeps, so memory follows the tags, not the answer.
#[derive(Debug, Default)]
pub struct TagText {
    text: String,
}

impl TagText {
    /// Adds ref `name` at `oid` when it is a tag; every ref's id is checked.
    pub fn push(&mut self, oid: &str, name: &str) -> Result<(), ReadError> {
        check_oid(oid)?;
        if name.starts_with("refs/tags/") {
            self.line(oid, name, "");
        }
        Ok(())
    }

    /// Adds the peeled line `<peeled>\t<name>^{}` of tag `name`.
    pub fn push_peeled(&mut self, peeled: &str, name: &str) -> Result<(), ReadError> {
        check_oid(peeled)?;
        if name.starts_with("refs/tags/") {
            self.line(peeled, name, "^{}");
        }
        Ok(())
    }

    fn line(&mut self, oid: &str, name: &str, suffix: &str) {
        for part in [oid, "\t", name, suffix, "\n"] {
            self.text.push_str(part);
        }
    }

    /// The text: what `git ls-remote --tags` prints.
    pub fn into_text(self) -> String {
        self.text
    }
}

/// The protocol v2 `ls-refs` command asking for tags, peeled, in the object format the server
/// announced (its `object-format=...` capability), if any.
pub fn ls_refs_request(object_format: Option<&str>) -> Vec<u8> {
    let mut out = pktline::data(b"command=ls-refs\n");
    out.extend(pktline::data(
        concat!("agent=cks-iso/", env!("CARGO_PKG_VERSION"), "\n").as_bytes(),
    ));
    if let Some(format) = object_format {
        out.extend(pktline::data(format!("{format}\n").as_bytes()));
    }
    out.extend_from_slice(pktline::DELIM);
    out.extend(pktline::data(b"peel\n"));
    out.extend(pktline::data(b"ref-prefix refs/tags/\n"));
    out.extend_from_slice(pktline::FLUSH);
    out
}

/// Reads `git ls-remote` text or a dumb-HTTP `info/refs` file (`<oid>\t<name>` lines, `^{}`
/// lines merged into the ref before them).
pub fn parse_dumb(body: &str) -> Result<Vec<RemoteRef>, ReadError> {
    let mut refs: Vec<RemoteRef> = Vec::new();
    for line in body.lines().filter(|l| !l.trim().is_empty()) {
        let (oid, name) = line
            .split_once('\t')
            .ok_or_else(|| ReadError::Malformed(format!("info/refs line `{line}`")))?;
        check_oid(oid)?;
        if let Some(base) = name.strip_suffix("^{}")
            && let Some(last) = refs.last_mut()
            && last.name == base
        {
            last.peeled = Some(oid.to_string());
            continue;
        }
        refs.push(RemoteRef {
            oid: oid.to_string(),
            name: name.to_string(),
            peeled: None,
        });
    }
    Ok(refs)
}

/// The refs as `git ls-remote` prints them: `<oid>\t<name>` and, for a peeled ref, the
/// `<peeled>\t<name>^{}` line after it.
pub fn format_ls_remote(refs: &[RemoteRef]) -> String {
    let mut out = String::new();
    for r in refs {
        out.push_str(&format!("{}\t{}\n", r.oid, r.name));
        if let Some(peeled) = &r.peeled {
            out.push_str(&format!("{peeled}\t{}^{{}}\n", r.name));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "1111111111111111111111111111111111111111";
    const B: &str = "2222222222222222222222222222222222222222";

    #[test]
    fn keeps_only_tags_as_ls_remote_prints_them() {
        let mut tags = TagText::default();
        tags.push(A, "refs/heads/main").expect("a ref");
        tags.push(B, "refs/tags/v1").expect("a tag");
        tags.push_peeled(A, "refs/tags/v1")
            .expect("its peeled object");
        assert!(tags.push("xyz", "refs/tags/v2").is_err());
        let text = tags.into_text();
        assert_eq!(text, format!("{B}\trefs/tags/v1\n{A}\trefs/tags/v1^{{}}\n"));
        let refs = parse_dumb(&text).expect("refs");
        assert_eq!(refs.len(), 1);
        assert_eq!(refs[0].peeled.as_deref(), Some(A));
        assert_eq!(format_ls_remote(&refs), text);
    }

    #[test]
    fn asks_for_tags_in_the_announced_object_format() {
        let request = ls_refs_request(Some("object-format=sha1"));
        let text = String::from_utf8(request).expect("ascii");
        assert!(text.contains("object-format=sha1\n0001"), "{text}");
        assert!(text.ends_with("ref-prefix refs/tags/\n0000"), "{text}");
    }
}
