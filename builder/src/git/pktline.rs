//! git's pkt-line framing: a 4-hex-digit length (counting itself) then the payload; `0000`
//! flush, `0001` delimiter, `0002` response end. Packets are decoded in place, borrowing the
//! bytes they arrived in, so reading an answer allocates nothing per packet.

/// One pkt-line, borrowed from the buffer it was read into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Packet<'a> {
    /// A payload (the trailing `\n`, if any, kept).
    Data(&'a [u8]),
    /// `0000`.
    Flush,
    /// `0001`.
    Delim,
    /// `0002`.
    ResponseEnd,
}

/// A packet whose length cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PktError {
    /// The 4 length bytes are not hex digits.
    #[error("packet length `{0}` is not hex")]
    NotHex(String),
    /// Length 3 names no packet.
    #[error("packet length 3 is invalid")]
    Invalid,
}

/// Encodes `payload` as one data packet.
pub fn data(payload: &[u8]) -> Vec<u8> {
    let mut out = format!("{:04x}", payload.len() + 4).into_bytes();
    out.extend_from_slice(payload);
    out
}

/// The flush packet.
pub const FLUSH: &[u8] = b"0000";
/// The delimiter packet.
pub const DELIM: &[u8] = b"0001";

/// Decodes the packet at the start of `buf`: `Ok(None)` when more bytes are needed, else the
/// packet and the bytes it took.
pub fn decode(buf: &[u8]) -> Result<Option<(Packet<'_>, usize)>, PktError> {
    let Some(head) = buf.get(..4) else {
        return Ok(None);
    };
    let not_hex = || PktError::NotHex(String::from_utf8_lossy(head).escape_debug().to_string());
    if !head.iter().all(u8::is_ascii_hexdigit) {
        return Err(not_hex());
    }
    let text = std::str::from_utf8(head).map_err(|_| not_hex())?;
    let len = usize::from_str_radix(text, 16).map_err(|_| not_hex())?;
    let packet = match len {
        0 => Packet::Flush,
        1 => Packet::Delim,
        2 => Packet::ResponseEnd,
        3 => return Err(PktError::Invalid),
        _ => match buf.get(4..len) {
            None => return Ok(None),
            Some(payload) => Packet::Data(payload),
        },
    };
    Ok(Some((packet, len.max(4))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_and_decodes_round_trip() {
        let mut wire = data(b"command=ls-refs\n");
        wire.extend_from_slice(DELIM);
        wire.extend(data(b"peel\n"));
        wire.extend_from_slice(FLUSH);
        assert_eq!(&wire[..4], b"0014");
        let mut rest = &wire[..];
        let mut packets = Vec::new();
        while let Some((packet, used)) = decode(rest).expect("well formed") {
            packets.push(packet);
            rest = &rest[used..];
        }
        assert_eq!(
            packets,
            [
                Packet::Data(b"command=ls-refs\n"),
                Packet::Delim,
                Packet::Data(b"peel\n"),
                Packet::Flush,
            ]
        );
    }

    #[test]
    fn reports_truncated_and_malformed_input() {
        assert_eq!(decode(b"00"), Ok(None));
        assert_eq!(decode(b"0010abc"), Ok(None));
        assert_eq!(decode(b"zzzz"), Err(PktError::NotHex("zzzz".into())));
        assert_eq!(decode(b"+123"), Err(PktError::NotHex("+123".into())));
        assert_eq!(decode(b"0003"), Err(PktError::Invalid));
    }
}
