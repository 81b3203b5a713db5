//! The answer readers on whole answers and on answers cut into pieces.

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
