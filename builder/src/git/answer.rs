//! Reading a git answer as it arrives, one packet (or, for dumb HTTP, one line) at a time:
//! each ref line is checked and, when it is a tag, written to a [`TagText`]; nothing else of
//! the answer is kept, so a listing holds at most one read, one unfinished packet and the tags,
//! however many packets the answer has.

use super::pktline::{self, Packet};
use super::refs::{ReadError, TagText};

/// Whether a parser wants more packets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The answer goes on.
    More,
    /// The answer's closing flush was read.
    Done,
}

/// A reader of one answer, given its packets in order.
pub trait Parser {
    /// Reads one packet.
    fn packet(&mut self, packet: Packet<'_>) -> Result<Step, ReadError>;
}

/// A data packet's line, without its `\n`; an `ERR` packet is the server's error.
fn text(payload: &[u8]) -> Result<&str, ReadError> {
    let line = std::str::from_utf8(payload)
        .map_err(|_| ReadError::Malformed("a packet that is not UTF-8".to_string()))?;
    let line = line.strip_suffix('\n').unwrap_or(line);
    if let Some(message) = line.strip_prefix("ERR ") {
        return Err(ReadError::Remote(message.to_string()));
    }
    Ok(line)
}

fn unexpected_delimiter() -> ReadError {
    ReadError::Malformed("an unexpected delimiter".to_string())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Nothing read yet: maybe a `# service=` line (HTTP).
    Start,
    /// After the service line: its flush, or the first line.
    AfterService,
    /// The first line of the advertisement proper.
    First,
    /// Protocol v2 capabilities.
    V2,
    /// v0 ref lines.
    V0,
}

/// The first answer of a smart server: an optional `# service=git-upload-pack` packet and
/// flush (HTTP), then either `version 2` and capabilities (of which only `object-format` is
/// kept, for the `ls-refs` request) or a v0 ref advertisement, whose tags go to `tags`.
#[derive(Debug)]
pub struct Advertisement<'t> {
    tags: &'t mut TagText,
    stage: Stage,
    /// The `object-format=...` capability of a v2 server.
    pub object_format: Option<String>,
}

impl<'t> Advertisement<'t> {
    /// A reader writing the tags of a v0 advertisement to `tags`.
    pub fn new(tags: &'t mut TagText) -> Self {
        Advertisement {
            tags,
            stage: Stage::Start,
            object_format: None,
        }
    }

    /// Whether the server speaks protocol v2 (its refs come from an `ls-refs` command).
    pub fn is_v2(&self) -> bool {
        self.stage == Stage::V2
    }

    fn ref_line(&mut self, line: &str) -> Result<(), ReadError> {
        let (oid, name) = line
            .split_once(' ')
            .ok_or_else(|| ReadError::Malformed(format!("ref line `{line}`")))?;
        if name == "capabilities^{}" {
            return Ok(()); // an empty repository
        }
        self.tags.push(oid, name)
    }
}

impl Parser for Advertisement<'_> {
    fn packet(&mut self, packet: Packet<'_>) -> Result<Step, ReadError> {
        let payload = match packet {
            Packet::Flush if self.stage == Stage::AfterService => {
                self.stage = Stage::First;
                return Ok(Step::More);
            }
            Packet::Flush => return Ok(Step::Done),
            Packet::Delim | Packet::ResponseEnd => return Err(unexpected_delimiter()),
            Packet::Data(payload) => payload,
        };
        let line = text(payload)?;
        match self.stage {
            Stage::Start if line.starts_with("# service=") => self.stage = Stage::AfterService,
            Stage::Start | Stage::AfterService | Stage::First if line == "version 2" => {
                self.stage = Stage::V2;
            }
            Stage::Start | Stage::AfterService | Stage::First => {
                self.stage = Stage::V0;
                let line = line.split('\0').next().unwrap_or(line);
                self.ref_line(line)?;
            }
            Stage::V2 => {
                if line.starts_with("object-format=") {
                    self.object_format = Some(line.to_string());
                }
            }
            Stage::V0 => self.ref_line(line)?,
        }
        Ok(Step::More)
    }
}

/// The answer to `ls-refs`: `<oid> <name>[ peeled:<oid>][ symref-target:<ref>]` lines.
#[derive(Debug)]
pub struct LsRefs<'t> {
    tags: &'t mut TagText,
}

impl<'t> LsRefs<'t> {
    /// A reader writing the tags of the answer to `tags`.
    pub fn new(tags: &'t mut TagText) -> Self {
        LsRefs { tags }
    }
}

impl Parser for LsRefs<'_> {
    fn packet(&mut self, packet: Packet<'_>) -> Result<Step, ReadError> {
        let payload = match packet {
            Packet::Flush => return Ok(Step::Done),
            Packet::Delim | Packet::ResponseEnd => return Err(unexpected_delimiter()),
            Packet::Data(payload) => payload,
        };
        let line = text(payload)?;
        let mut fields = line.split(' ');
        let (Some(oid), Some(name)) = (fields.next(), fields.next()) else {
            return Err(ReadError::Malformed(format!("ls-refs line `{line}`")));
        };
        self.tags.push(oid, name)?;
        if let Some(peeled) = fields.find_map(|f| f.strip_prefix("peeled:")) {
            self.tags.push_peeled(peeled, name)?;
        }
        Ok(Step::More)
    }
}

/// The bytes of an answer not decoded yet: the end of the last read that does not make a
/// whole packet (a packet is at most 64 KiB).
#[derive(Debug, Default)]
pub struct Framer {
    buf: Vec<u8>,
}

impl Framer {
    /// Gives `parser` the packets `bytes` completes, until it is done; what follows its last
    /// packet stays for the next answer.
    pub fn feed(&mut self, bytes: &[u8], parser: &mut impl Parser) -> Result<Step, ReadError> {
        self.buf.extend_from_slice(bytes);
        let mut used = 0;
        let mut step = Step::More;
        while step == Step::More {
            let Some((packet, n)) = pktline::decode(&self.buf[used..])
                .map_err(|e| ReadError::Malformed(e.to_string()))?
            else {
                break;
            };
            used += n;
            step = parser.packet(packet)?;
        }
        self.buf.drain(..used);
        Ok(step)
    }
}

/// A dumb-HTTP `info/refs` file read line by line (`<oid>\t<name>`), its tags written to
/// `tags`; only an unfinished line is held.
#[derive(Debug)]
pub struct DumbRefs<'t> {
    tags: &'t mut TagText,
    partial: Vec<u8>,
}

impl<'t> DumbRefs<'t> {
    /// A reader writing the tags of the file to `tags`.
    pub fn new(tags: &'t mut TagText) -> Self {
        DumbRefs {
            tags,
            partial: Vec::new(),
        }
    }

    /// Reads the lines `bytes` completes.
    pub fn feed(&mut self, mut bytes: &[u8]) -> Result<(), ReadError> {
        while let Some(end) = bytes.iter().position(|&b| b == b'\n') {
            let (line, rest) = bytes.split_at(end);
            if self.partial.is_empty() {
                self.line(line)?;
            } else {
                let mut whole = std::mem::take(&mut self.partial);
                whole.extend_from_slice(line);
                self.line(&whole)?;
            }
            bytes = &rest[1..];
        }
        self.partial.extend_from_slice(bytes);
        Ok(())
    }

    /// Reads the last line, if the file does not end with `\n`.
    pub fn finish(mut self) -> Result<(), ReadError> {
        let last = std::mem::take(&mut self.partial);
        self.line(&last)
    }

    fn line(&mut self, line: &[u8]) -> Result<(), ReadError> {
        let line = std::str::from_utf8(line).map_err(|_| {
            ReadError::Malformed("info/refs is neither a smart advertisement nor text".to_string())
        })?;
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            return Ok(());
        }
        let (oid, name) = line
            .split_once('\t')
            .ok_or_else(|| ReadError::Malformed(format!("info/refs line `{line}`")))?;
        self.tags.push(oid, name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// Feeds `bytes` one byte at a time, as the slowest network would.
    fn feed_bytewise(bytes: &[u8], parser: &mut impl Parser) -> Result<Step, ReadError> {
        let mut framer = Framer::default();
        let mut step = Step::More;
        for byte in bytes {
            step = framer.feed(std::slice::from_ref(byte), parser)?;
            if step == Step::Done {
                break;
            }
        }
        Ok(step)
    }

    #[test]
    fn reads_a_v2_capability_advertisement_after_the_service_line() {
        let mut tags = TagText::default();
        let mut parser = Advertisement::new(&mut tags);
        let answer = wire(&[
            "# service=git-upload-pack",
            "",
            "version 2",
            "ls-refs=unborn",
            "object-format=sha1",
            "",
        ]);
        assert_eq!(feed_bytewise(&answer, &mut parser), Ok(Step::Done));
        assert!(parser.is_v2());
        assert_eq!(parser.object_format.as_deref(), Some("object-format=sha1"));
        assert_eq!(tags.into_text(), "");
    }

    #[test]
    fn reads_a_v0_advertisement_keeping_only_tags() {
        let first = format!("{A} HEAD\0multi_ack side-band-64k");
        let answer = wire(&[
            &first,
            &format!("{A} refs/heads/master"),
            &format!("{B} refs/tags/v1"),
            &format!("{A} refs/tags/v1^{{}}"),
            &format!("{C} refs/tags/v2"),
            "",
        ]);
        let mut tags = TagText::default();
        let mut parser = Advertisement::new(&mut tags);
        assert_eq!(Framer::default().feed(&answer, &mut parser), Ok(Step::Done));
        assert!(!parser.is_v2());
        assert_eq!(
            tags.into_text(),
            format!("{B}\trefs/tags/v1\n{A}\trefs/tags/v1^{{}}\n{C}\trefs/tags/v2\n")
        );
    }

    #[test]
    fn reads_ls_refs_with_peeled_attributes() {
        let answer = wire(&[
            &format!("{B} refs/tags/v1 peeled:{A}"),
            &format!("{C} refs/tags/v2"),
            "",
        ]);
        let mut tags = TagText::default();
        assert_eq!(
            feed_bytewise(&answer, &mut LsRefs::new(&mut tags)),
            Ok(Step::Done)
        );
        assert_eq!(
            tags.into_text(),
            format!("{B}\trefs/tags/v1\n{A}\trefs/tags/v1^{{}}\n{C}\trefs/tags/v2\n")
        );
    }

    #[test]
    fn reports_an_err_packet_a_missing_flush_and_bad_framing() {
        let mut tags = TagText::default();
        let answer = wire(&["ERR no such repository: /x.git"]);
        assert_eq!(
            Framer::default().feed(&answer, &mut Advertisement::new(&mut tags)),
            Err(ReadError::Remote("no such repository: /x.git".to_string()))
        );
        let answer = wire(&[&format!("{C} refs/tags/v2")]);
        assert_eq!(
            Framer::default().feed(&answer, &mut LsRefs::new(&mut tags)),
            Ok(Step::More),
            "no flush: the caller reports the answer as truncated when the connection ends"
        );
        let err = Framer::default().feed(b"zzzz", &mut LsRefs::new(&mut tags));
        assert!(
            matches!(err, Err(ReadError::Malformed(ref m)) if m.contains("zzzz")),
            "{err:?}"
        );
    }

    #[test]
    fn memory_does_not_grow_with_the_packets_that_are_not_tags() {
        // 100 000 branch packets in reads of 16 KiB: the framer never holds more than one read
        // and one packet, and nothing of a branch is kept.
        let line = pktline::data(format!("{A} refs/heads/branch-0000000\n").as_bytes());
        let mut answer = Vec::new();
        for _ in 0..100_000 {
            answer.extend_from_slice(&line);
        }
        answer.extend(pktline::data(format!("{B} refs/tags/v1\n").as_bytes()));
        answer.extend_from_slice(pktline::FLUSH);
        let mut tags = TagText::default();
        let mut parser = LsRefs::new(&mut tags);
        let mut framer = Framer::default();
        let mut most = 0;
        for read in answer.chunks(16 << 10) {
            framer.feed(read, &mut parser).expect("well formed");
            most = most.max(framer.buf.capacity());
        }
        assert!(most <= 2 * (16 << 10), "the framer grew to {most} bytes");
        assert_eq!(tags.into_text(), format!("{B}\trefs/tags/v1\n"));
    }

    #[test]
    fn reads_dumb_info_refs_in_pieces() {
        let body = format!(
            "{B}\trefs/tags/v1\r\n{A}\trefs/tags/v1^{{}}\n\n{A}\trefs/heads/main\n{C}\trefs/tags/v2"
        );
        let mut tags = TagText::default();
        let mut dumb = DumbRefs::new(&mut tags);
        for piece in body.as_bytes().chunks(7) {
            dumb.feed(piece).expect("text");
        }
        dumb.finish().expect("text");
        assert_eq!(
            tags.into_text(),
            format!("{B}\trefs/tags/v1\n{A}\trefs/tags/v1^{{}}\n{C}\trefs/tags/v2\n")
        );
        let mut tags = TagText::default();
        let mut dumb = DumbRefs::new(&mut tags);
        assert!(dumb.feed(b"\xff\xfe\n").is_err());
    }
}
