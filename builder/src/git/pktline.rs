//! git's pkt-line framing: a 4-hex-digit length (counting itself) then the payload; `0000`
//! flush, `0001` delimiter, `0002` response end.

/// One pkt-line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Packet {
    /// A payload (the trailing `\n`, if any, kept).
    Data(Vec<u8>),
    /// `0000`.
    Flush,
    /// `0001`.
    Delim,
    /// `0002`.
    ResponseEnd,
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
pub fn decode(buf: &[u8]) -> Result<Option<(Packet, usize)>, String> {
    if buf.len() < 4 {
        return Ok(None);
    }
    let head = std::str::from_utf8(&buf[..4]).map_err(|_| "a packet length that is not hex")?;
    let len = usize::from_str_radix(head, 16)
        .map_err(|_| format!("packet length `{}` is not hex", head.escape_debug()))?;
    let packet = match len {
        0 => Packet::Flush,
        1 => Packet::Delim,
        2 => Packet::ResponseEnd,
        3 => return Err("packet length 3 is invalid".to_string()),
        _ if buf.len() < len => return Ok(None),
        _ => Packet::Data(buf[4..len].to_vec()),
    };
    Ok(Some((packet, len.max(4))))
}

/// Decodes every packet of a complete buffer; `Err` on malformed input, and the error
/// `"truncated"` when the buffer ends inside a packet.
pub fn decode_all(mut buf: &[u8]) -> Result<Vec<Packet>, String> {
    let mut packets = Vec::new();
    while !buf.is_empty() {
        match decode(buf)? {
            None => return Err("truncated".to_string()),
            Some((packet, used)) => {
                packets.push(packet);
                buf = &buf[used..];
            }
        }
    }
    Ok(packets)
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
        assert_eq!(
            decode_all(&wire),
            Ok(vec![
                Packet::Data(b"command=ls-refs\n".to_vec()),
                Packet::Delim,
                Packet::Data(b"peel\n".to_vec()),
                Packet::Flush,
            ])
        );
    }

    #[test]
    fn reports_truncated_and_malformed_input() {
        assert_eq!(decode(b"00"), Ok(None));
        assert_eq!(decode(b"0010abc"), Ok(None));
        assert_eq!(decode_all(b"0010abc"), Err("truncated".to_string()));
        assert!(decode(b"zzzz").is_err());
        assert!(decode(b"0003").is_err());
    }
}
