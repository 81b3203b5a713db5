//! The refs a remote advertises, read from each form git servers send (protocol v2 `ls-refs`,
//! the v0 advertisement, dumb HTTP `info/refs`), and printed as `git ls-remote` prints them.

use super::pktline::{self, Packet};

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

/// The first answer of a smart server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Advertisement {
    /// Protocol v2: the capabilities; refs come from an `ls-refs` command.
    V2 {
        /// Capability lines (`ls-refs=unborn`, `object-format=sha1`, ...).
        capabilities: Vec<String>,
    },
    /// Protocol v0: every ref, with `^{}` lines merged into `peeled`.
    V0 {
        /// The refs, in the server's order.
        refs: Vec<RemoteRef>,
    },
}

fn text(payload: &[u8]) -> Result<&str, ReadError> {
    let line = std::str::from_utf8(payload)
        .map_err(|_| ReadError::Malformed("a packet that is not UTF-8".to_string()))?;
    let line = line.strip_suffix('\n').unwrap_or(line);
    if let Some(message) = line.strip_prefix("ERR ") {
        return Err(ReadError::Remote(message.to_string()));
    }
    Ok(line)
}

/// The data lines up to the first flush, or [`ReadError::Truncated`] without one.
fn until_flush(packets: &[Packet]) -> Result<(Vec<&str>, usize), ReadError> {
    let mut lines = Vec::new();
    for (i, packet) in packets.iter().enumerate() {
        match packet {
            Packet::Data(payload) => lines.push(text(payload)?),
            Packet::Flush => return Ok((lines, i + 1)),
            Packet::Delim | Packet::ResponseEnd => {
                return Err(ReadError::Malformed("an unexpected delimiter".to_string()));
            }
        }
    }
    Err(ReadError::Truncated)
}

/// Adds `oid name` to `refs`, merging `name^{}` into the ref before it.
fn push_ref(refs: &mut Vec<RemoteRef>, oid: &str, name: &str) -> Result<(), ReadError> {
    if !oid.bytes().all(|b| b.is_ascii_hexdigit()) || !(oid.len() == 40 || oid.len() == 64) {
        return Err(ReadError::Malformed(format!("`{oid}` is not an object id")));
    }
    if let Some(base) = name.strip_suffix("^{}")
        && let Some(last) = refs.last_mut()
        && last.name == base
    {
        last.peeled = Some(oid.to_string());
        return Ok(());
    }
    refs.push(RemoteRef {
        oid: oid.to_string(),
        name: name.to_string(),
        peeled: None,
    });
    Ok(())
}

/// Reads a smart server's first answer: an optional `# service=git-upload-pack` packet and
/// flush (HTTP), then either `version 2` and capabilities, or a v0 ref advertisement.
pub fn parse_advertisement(packets: &[Packet]) -> Result<Advertisement, ReadError> {
    let mut rest = packets;
    if let Some(Packet::Data(first)) = rest.first()
        && text(first)?.starts_with("# service=")
    {
        rest = match rest.get(1) {
            Some(Packet::Flush) => &rest[2..],
            Some(_) => &rest[1..],
            None => return Err(ReadError::Truncated),
        };
    }
    let (lines, _) = until_flush(rest)?;
    if lines.first() == Some(&"version 2") {
        let capabilities = lines[1..].iter().map(|l| l.to_string()).collect();
        return Ok(Advertisement::V2 { capabilities });
    }
    let mut refs = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let line = if i == 0 {
            line.split('\0').next().unwrap_or(line)
        } else {
            line
        };
        let (oid, name) = line
            .split_once(' ')
            .ok_or_else(|| ReadError::Malformed(format!("ref line `{line}`")))?;
        if name == "capabilities^{}" {
            continue; // an empty repository
        }
        push_ref(&mut refs, oid, name)?;
    }
    Ok(Advertisement::V0 { refs })
}

/// The protocol v2 `ls-refs` command asking for tags, peeled.
pub fn ls_refs_request(capabilities: &[String]) -> Vec<u8> {
    let mut out = pktline::data(b"command=ls-refs\n");
    out.extend(pktline::data(
        concat!("agent=cks-iso/", env!("CARGO_PKG_VERSION"), "\n").as_bytes(),
    ));
    if let Some(format) = capabilities
        .iter()
        .find(|c| c.starts_with("object-format="))
    {
        out.extend(pktline::data(format!("{format}\n").as_bytes()));
    }
    out.extend_from_slice(pktline::DELIM);
    out.extend(pktline::data(b"peel\n"));
    out.extend(pktline::data(b"ref-prefix refs/tags/\n"));
    out.extend_from_slice(pktline::FLUSH);
    out
}

/// Reads the answer to `ls-refs`: `<oid> <name>[ peeled:<oid>][ symref-target:<ref>]` lines.
pub fn parse_ls_refs(packets: &[Packet]) -> Result<Vec<RemoteRef>, ReadError> {
    let (lines, _) = until_flush(packets)?;
    let mut refs = Vec::new();
    for line in lines {
        let mut fields = line.split(' ');
        let (Some(oid), Some(name)) = (fields.next(), fields.next()) else {
            return Err(ReadError::Malformed(format!("ls-refs line `{line}`")));
        };
        push_ref(&mut refs, oid, name)?;
        let peeled = fields.find_map(|f| f.strip_prefix("peeled:"));
        if let (Some(peeled), Some(last)) = (peeled, refs.last_mut()) {
            last.peeled = Some(peeled.to_string());
        }
    }
    Ok(refs)
}

/// Reads a dumb-HTTP `info/refs` file: `<oid>\t<name>` lines, `^{}` lines included.
pub fn parse_dumb(body: &str) -> Result<Vec<RemoteRef>, ReadError> {
    let mut refs = Vec::new();
    for line in body.lines().filter(|l| !l.trim().is_empty()) {
        let (oid, name) = line
            .split_once('\t')
            .ok_or_else(|| ReadError::Malformed(format!("info/refs line `{line}`")))?;
        push_ref(&mut refs, oid, name)?;
    }
    Ok(refs)
}

/// Only the tags, in the given order.
pub fn tags_only(refs: Vec<RemoteRef>) -> Vec<RemoteRef> {
    refs.into_iter()
        .filter(|r| r.name.starts_with("refs/tags/"))
        .collect()
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
    use crate::git::pktline::decode_all;

    const A: &str = "1111111111111111111111111111111111111111";
    const B: &str = "2222222222222222222222222222222222222222";
    const C: &str = "3333333333333333333333333333333333333333";

    fn wire(lines: &[&str]) -> Vec<u8> {
        let mut out = Vec::new();
        for line in lines {
            if line.is_empty() {
                out.extend_from_slice(pktline::FLUSH);
            } else {
                out.extend(pktline::data(format!("{line}\n").as_bytes()));
            }
        }
        out
    }

    #[test]
    fn reads_a_v2_capability_advertisement_after_the_service_line() {
        let packets = decode_all(&wire(&[
            "# service=git-upload-pack",
            "",
            "version 2",
            "ls-refs=unborn",
            "object-format=sha1",
            "",
        ]))
        .expect("packets");
        let Ok(Advertisement::V2 { capabilities }) = parse_advertisement(&packets) else {
            panic!("not v2");
        };
        assert_eq!(capabilities, ["ls-refs=unborn", "object-format=sha1"]);
        let request = ls_refs_request(&capabilities);
        let text = String::from_utf8(request).expect("ascii");
        assert!(text.contains("object-format=sha1\n0001"), "{text}");
        assert!(text.ends_with("ref-prefix refs/tags/\n0000"), "{text}");
    }

    #[test]
    fn reads_a_v0_advertisement_merging_peeled_lines() {
        let first = format!("{A} HEAD\0multi_ack side-band-64k");
        let packets = decode_all(&wire(&[
            &first,
            &format!("{A} refs/heads/master"),
            &format!("{B} refs/tags/v1"),
            &format!("{A} refs/tags/v1^{{}}"),
            &format!("{C} refs/tags/v2"),
            "",
        ]))
        .expect("packets");
        let Ok(Advertisement::V0 { refs }) = parse_advertisement(&packets) else {
            panic!("not v0");
        };
        let tags = tags_only(refs);
        assert_eq!(
            format_ls_remote(&tags),
            format!("{B}\trefs/tags/v1\n{A}\trefs/tags/v1^{{}}\n{C}\trefs/tags/v2\n")
        );
    }

    #[test]
    fn reads_ls_refs_with_peeled_attributes() {
        let packets = decode_all(&wire(&[
            &format!("{B} refs/tags/v1 peeled:{A}"),
            &format!("{C} refs/tags/v2"),
            "",
        ]))
        .expect("packets");
        let refs = parse_ls_refs(&packets).expect("refs");
        assert_eq!(refs[0].peeled.as_deref(), Some(A));
        assert_eq!(refs[1].peeled, None);
    }

    #[test]
    fn reports_an_err_packet_and_a_missing_flush() {
        let packets = decode_all(&wire(&["ERR no such repository: /x.git"])).expect("packets");
        assert_eq!(
            parse_advertisement(&packets),
            Err(ReadError::Remote("no such repository: /x.git".to_string()))
        );
        let packets = decode_all(&wire(&[&format!("{C} refs/tags/v2")])).expect("packets");
        assert_eq!(parse_ls_refs(&packets), Err(ReadError::Truncated));
    }

    #[test]
    fn reads_dumb_info_refs() {
        let body = format!("{B}\trefs/tags/v1\n{A}\trefs/tags/v1^{{}}\n{A}\trefs/heads/main\n");
        let refs = tags_only(parse_dumb(&body).expect("refs"));
        assert_eq!(refs.len(), 1);
        assert_eq!(refs[0].peeled.as_deref(), Some(A));
    }
}
