//! Directory records: a directory's bytes cut into records, and the fields a kernel acts on.
//! Extended attribute records, interleaving, the hidden, associated, record-format and
//! protection flags are refused (the writer never sets them, and Linux shifts or hides data
//! on them).

use super::descriptors::SECTOR;

/// One run of bytes a record points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extent {
    /// The first sector.
    pub start: u32,
    /// Its length in bytes.
    pub len: u32,
}

/// One directory record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Where its data lies.
    pub extent: Extent,
    /// A directory.
    pub dir: bool,
    /// Another section of the same file follows (multi-extent).
    pub more: bool,
    /// The file identifier's bytes (`\0` for `.`, `\1` for `..`).
    pub name: Vec<u8>,
    /// The system use area (SUSP entries).
    pub system_use: Vec<u8>,
}

/// Why a directory record is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    /// No length byte.
    #[error("an empty record")]
    Empty,
    /// The length byte is too small, or runs past the bytes there are.
    #[error("a record of length {0} that does not fit")]
    Length(usize),
    /// The name's length does not fit the record.
    #[error("a record with a name of {name} bytes in {len}")]
    NameLength {
        /// The name's length.
        name: usize,
        /// The record's length.
        len: usize,
    },
    /// The record has an extended attribute record.
    #[error("an extended attribute record, which the writer never writes")]
    ExtendedAttributes,
    /// The file is interleaved.
    #[error("an interleaved file, which the writer never writes")]
    Interleaved,
    /// Flags beyond directory and multi-extent.
    #[error(
        "flags {0:#04x} (hidden, associated, record format or protection), which the writer never sets"
    )]
    Flags(u8),
    /// The extent's little- and big-endian copies differ.
    #[error("an extent whose two byte orders differ")]
    ExtentOrders,
    /// The data length's little- and big-endian copies differ.
    #[error("a length whose two byte orders differ")]
    LengthOrders,
    /// A record runs into the next sector.
    #[error("a record at byte {0} that crosses a sector")]
    CrossesSector(usize),
}

/// The flags a record may carry: directory (2), not the final section (0x80).
const KNOWN_FLAGS: u8 = 0x02 | 0x80;

/// Parses one record from `raw` (its length byte first).
pub fn parse(raw: &[u8]) -> Result<Record, RecordError> {
    let len = *raw.first().ok_or(RecordError::Empty)? as usize;
    if len < 34 || len > raw.len() {
        return Err(RecordError::Length(len));
    }
    let raw = &raw[..len];
    let name_len = raw[32] as usize;
    if name_len == 0 || 33 + name_len > len {
        return Err(RecordError::NameLength {
            name: name_len,
            len,
        });
    }
    if raw[1] != 0 {
        return Err(RecordError::ExtendedAttributes);
    }
    if raw[26] != 0 || raw[27] != 0 {
        return Err(RecordError::Interleaved);
    }
    let flags = raw[25];
    if flags & !KNOWN_FLAGS != 0 {
        return Err(RecordError::Flags(flags));
    }
    let both = |at: usize| {
        let le = u32::from_le_bytes([raw[at], raw[at + 1], raw[at + 2], raw[at + 3]]);
        let be = u32::from_be_bytes([raw[at + 4], raw[at + 5], raw[at + 6], raw[at + 7]]);
        (le == be).then_some(le)
    };
    let start = both(2).ok_or(RecordError::ExtentOrders)?;
    let data = both(10).ok_or(RecordError::LengthOrders)?;
    let name = raw[33..33 + name_len].to_vec();
    let use_at = 33 + name_len + (name_len + 1) % 2;
    Ok(Record {
        extent: Extent { start, len: data },
        dir: flags & 0x02 != 0,
        more: flags & 0x80 != 0,
        name,
        system_use: raw.get(use_at..).unwrap_or_default().to_vec(),
    })
}

/// Cuts a directory's bytes into records: a zero length byte skips to the next sector, and no
/// record crosses a sector.
pub fn split(dir: &[u8]) -> Result<Vec<Record>, RecordError> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < dir.len() {
        let len = dir[at] as usize;
        if len == 0 {
            at = (at / SECTOR + 1) * SECTOR;
            continue;
        }
        let sector_end = ((at / SECTOR + 1) * SECTOR).min(dir.len());
        if at + len > sector_end {
            return Err(RecordError::CrossesSector(at));
        }
        out.push(parse(&dir[at..at + len])?);
        at += len;
    }
    Ok(out)
}

/// The sectors `len` bytes take.
pub fn sectors(len: u32) -> u64 {
    u64::from(len).div_ceil(SECTOR as u64)
}

/// A plain ISO 9660 name as Linux shows it (`map=normal`): lower case, `;1` and a period just
/// before it dropped, any other `;` made `.`.
pub fn plain_name(raw: &[u8]) -> String {
    let len = raw.len();
    let mut out = Vec::with_capacity(len);
    for (i, &c) in raw.iter().enumerate() {
        if c == 0 {
            break;
        }
        if c == b'.' && i + 3 == len && raw[i + 1] == b';' && raw[i + 2] == b'1' {
            break;
        }
        if c == b';' && i + 2 == len && raw[i + 1] == b'1' {
            break;
        }
        let c = if c == b';' || c == b'/' {
            b'.'
        } else {
            c.to_ascii_lowercase()
        };
        out.push(c);
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A name with `;1` and trailing periods dropped, as Linux shows Joliet names.
pub fn strip_version(name: &str) -> &str {
    let name = name.strip_suffix(";1").unwrap_or(name);
    let trimmed = name.trim_end_matches('.');
    if trimmed.is_empty() { name } else { trimmed }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(flags: u8, xar: u8, name: &[u8]) -> Vec<u8> {
        let mut r = vec![0u8; 33 + name.len() + (name.len() + 1) % 2];
        r[0] = r.len() as u8;
        r[1] = xar;
        r[2..6].copy_from_slice(&20u32.to_le_bytes());
        r[6..10].copy_from_slice(&20u32.to_be_bytes());
        r[10..14].copy_from_slice(&5u32.to_le_bytes());
        r[14..18].copy_from_slice(&5u32.to_be_bytes());
        r[25] = flags;
        r[32] = name.len() as u8;
        r[33..33 + name.len()].copy_from_slice(name);
        r
    }

    #[test]
    fn a_plain_record_parses() {
        let r = parse(&record(0, 0, b"A.;1")).expect("parses");
        assert_eq!(r.extent, Extent { start: 20, len: 5 });
        assert!(!r.dir && !r.more);
    }

    #[test]
    fn shifted_hidden_or_inconsistent_records_are_refused() {
        assert_eq!(
            parse(&record(0, 1, b"A.;1")),
            Err(RecordError::ExtendedAttributes)
        );
        assert_eq!(
            parse(&record(0x01, 0, b"A.;1")),
            Err(RecordError::Flags(0x01))
        );
        let err = parse(&record(0x04, 0, b"A.;1")).expect_err("hidden");
        assert_eq!(
            err.to_string(),
            "flags 0x04 (hidden, associated, record format or protection), which the writer never sets"
        );
        let mut r = record(0, 0, b"A.;1");
        r[6] = 1;
        assert_eq!(parse(&r), Err(RecordError::ExtentOrders));
    }

    #[test]
    fn plain_names_read_as_linux_shows_them() {
        assert_eq!(plain_name(b"NETWORK.YAML;1"), "network.yaml");
        assert_eq!(plain_name(b"KUBEADM.;1"), "kubeadm");
        assert_eq!(plain_name(b"A;2"), "a.2");
        assert_eq!(strip_version("kubeadm;1"), "kubeadm");
    }
}
