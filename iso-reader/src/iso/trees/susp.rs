//! The System Use Sharing Protocol entries of a primary record, and the Rock Ridge facts they
//! carry. Only what the writer writes is taken: `SP` and `ER` on the root's `.`, `CE`
//! continuations (as many as Linux follows), `PX`, `TF`, `NM`, `SL`, `ST`, and `RR` when it
//! does not stop Linux short of the names and modes read here. Anything else — relocation
//! (`CL`, `PL`, `RE`), devices (`PN`), compression (`ZF`, which Linux would inflate), `ES`,
//! padding, attributes — is refused.

use super::descriptors::SECTOR;
use super::source::SourceError;

/// The most continuation areas followed for one record (Linux stops at 32).
pub const MAX_CONTINUATIONS: usize = 32;

/// The longest name or symlink target taken, in bytes.
pub const MAX_TEXT: usize = 4096;

/// What the SUSP entries of one record say.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Susp {
    /// An `SP` entry was seen (its skip count must be 0).
    pub sp: bool,
    /// An `ER` entry was seen.
    pub er: bool,
    /// The `NM` name.
    pub name: Option<String>,
    /// The `PX` mode.
    pub mode: Option<u32>,
    /// The `SL` target.
    pub target: Option<String>,
    /// The first entry kind the writer never writes, if any (refused by the caller, once it
    /// has looked for `ER`).
    pub unknown: Option<String>,
}

/// Why the SUSP entries of a record are refused.
#[derive(Debug, thiserror::Error)]
pub enum SuspError {
    /// An entry's length is too small or runs past its area.
    #[error("a SUSP entry {sig} of length {len} that does not fit")]
    EntryLength {
        /// The entry's signature.
        sig: String,
        /// Its length byte.
        len: usize,
    },
    /// An `SP` entry with a skip count other than 0.
    #[error("an SP entry that shifts the SUSP areas")]
    ShiftingSp,
    /// An entry too short for its fields (`ER`, `PX`, `RR`, `NM`, `SL`).
    #[error("a short {0} entry")]
    Short(&'static str),
    /// An `ER` entry for another extension than Rock Ridge.
    #[error("an ER entry for {0}, which the writer never writes")]
    Extension(String),
    /// A `CE` entry too short, or a second one in the same area.
    #[error("a malformed or second CE entry")]
    BadContinuation,
    /// A `CE` continuation that does not end in its sector.
    #[error("a CE continuation that runs past its sector")]
    ContinuationPastSector,
    /// A `CE` continuation outside the volume.
    #[error("a CE continuation at sector {0}, beyond the volume")]
    ContinuationBeyondVolume(u32),
    /// A `CE` continuation that cannot be read.
    #[error("{0}")]
    Fetch(#[from] SourceError),
    /// An `RR` entry whose flags make Linux stop before the name or mode.
    #[error("an RR entry with flags {0:#04x}, which would hide its name or mode from Linux")]
    HidingRr(u8),
    /// An `NM` or `SL` entry with flags the writer never sets.
    #[error("an {entry} entry with flags {flags:#04x}")]
    Flags {
        /// `NM` or `SL`.
        entry: &'static str,
        /// The flags.
        flags: u8,
    },
    /// A name longer than [`MAX_TEXT`].
    #[error("a name longer than {MAX_TEXT} bytes")]
    LongName,
    /// A symlink target longer than [`MAX_TEXT`].
    #[error("a symlink target longer than {MAX_TEXT} bytes")]
    LongTarget,
    /// Bytes other than zeros after the last entry.
    #[error("stray bytes after the SUSP entries")]
    StrayBytes,
    /// More continuations than [`MAX_CONTINUATIONS`].
    #[error("more than {MAX_CONTINUATIONS} CE continuations")]
    Continuations,
    /// An `NM` or `SL` entry that says another follows, and none does.
    #[error("an NM or SL entry that says more follows, and none does")]
    Unfinished,
    /// An `NM` name that is not UTF-8.
    #[error("an NM name that is not UTF-8")]
    NameNotUtf8,
    /// A symlink component too short for its length.
    #[error("a short SL component")]
    ShortComponent,
    /// A symlink component that is not UTF-8.
    #[error("an SL component that is not UTF-8")]
    ComponentNotUtf8,
    /// A symlink component with flags the writer never sets.
    #[error("an SL component with flags {0:#04x}")]
    ComponentFlags(u8),
}

/// Parses the entries of `area`, following `CE` through `fetch(sector, offset, len)`;
/// `dot` tells whether the record is `.` or `..`.
pub fn parse(
    area: &[u8],
    dot: bool,
    mut fetch: impl FnMut(u32, u32, u32) -> Result<Vec<u8>, SuspError>,
) -> Result<Susp, SuspError> {
    let mut out = Susp::default();
    let mut name: Option<Vec<u8>> = None;
    let mut name_done = false;
    let mut target: Option<String> = None;
    let mut target_done = false;
    let mut link_part_open = false;
    let mut area = area.to_vec();
    let mut continuations = 0;
    loop {
        let mut next = None;
        let mut at = 0;
        while at + 4 <= area.len() {
            let sig = [area[at], area[at + 1]];
            let len = area[at + 2] as usize;
            if len < 4 || at + len > area.len() {
                return Err(SuspError::EntryLength {
                    sig: String::from_utf8_lossy(&sig).into_owned(),
                    len,
                });
            }
            let body = &area[at + 4..at + len];
            match &sig {
                b"ST" => break,
                b"SP" if dot => {
                    if body.len() < 3 || body[..2] != [0xbe, 0xef] || body[2] != 0 {
                        return Err(SuspError::ShiftingSp);
                    }
                    out.sp = true;
                }
                b"ER" if dot => {
                    let id_len = *body.first().ok_or(SuspError::Short("ER"))? as usize;
                    let id = body.get(4..4 + id_len).ok_or(SuspError::Short("ER"))?;
                    if !matches!(id, b"RRIP_1991A" | b"IEEE_P1282" | b"IEEE_1282") {
                        return Err(SuspError::Extension(
                            String::from_utf8_lossy(id).into_owned(),
                        ));
                    }
                    out.er = true;
                }
                b"CE" => {
                    if body.len() < 24 || next.is_some() {
                        return Err(SuspError::BadContinuation);
                    }
                    let le = |i: usize| {
                        u32::from_le_bytes([body[i], body[i + 1], body[i + 2], body[i + 3]])
                    };
                    let (sector, offset, size) = (le(0), le(8), le(16));
                    if offset as usize + size as usize > SECTOR {
                        return Err(SuspError::ContinuationPastSector);
                    }
                    next = Some((sector, offset, size));
                }
                b"PX" => {
                    let mode = body.get(..4).ok_or(SuspError::Short("PX"))?;
                    out.mode = Some(u32::from_le_bytes([mode[0], mode[1], mode[2], mode[3]]));
                }
                b"TF" => {}
                b"RR" => {
                    let flags = *body.first().ok_or(SuspError::Short("RR"))?;
                    // Linux stops reading a record's entries at an RR without these bits.
                    if flags & 0x01 == 0 || (!dot && flags & 0x08 == 0) {
                        return Err(SuspError::HidingRr(flags));
                    }
                }
                b"NM" => {
                    let flags = *body.first().ok_or(SuspError::Short("NM"))?;
                    // `.` and `..` may name themselves (CURRENT, PARENT), as the writer does.
                    if dot && matches!(flags, 0x02 | 0x04) && body.len() == 1 {
                        at += len;
                        continue;
                    }
                    if flags & !0x01 != 0 || name_done {
                        return Err(SuspError::Flags { entry: "NM", flags });
                    }
                    let part = name.get_or_insert_with(Vec::new);
                    part.extend_from_slice(&body[1..]);
                    if part.len() > MAX_TEXT {
                        return Err(SuspError::LongName);
                    }
                    name_done = flags & 0x01 == 0;
                }
                b"SL" => {
                    let flags = *body.first().ok_or(SuspError::Short("SL"))?;
                    if target_done || flags & !0x01 != 0 {
                        return Err(SuspError::Flags { entry: "SL", flags });
                    }
                    let text = target.get_or_insert_with(String::new);
                    link_part_open = symlink_components(&body[1..], text, link_part_open)?;
                    if text.len() > MAX_TEXT {
                        return Err(SuspError::LongTarget);
                    }
                    target_done = flags & 0x01 == 0;
                }
                other => {
                    out.unknown.get_or_insert_with(|| {
                        format!(
                            "a SUSP entry {}, which the writer never writes",
                            String::from_utf8_lossy(other)
                        )
                    });
                }
            }
            at += len;
        }
        if area[at.min(area.len())..].iter().any(|&b| b != 0) && at + 4 > area.len() {
            return Err(SuspError::StrayBytes);
        }
        let Some((sector, offset, size)) = next else {
            break;
        };
        continuations += 1;
        if continuations > MAX_CONTINUATIONS {
            return Err(SuspError::Continuations);
        }
        area = fetch(sector, offset, size)?;
    }
    if name.is_some() && !name_done || target.is_some() && !target_done {
        return Err(SuspError::Unfinished);
    }
    if let Some(name) = name {
        out.name = Some(String::from_utf8(name).map_err(|_| SuspError::NameNotUtf8)?);
    }
    out.target = target;
    Ok(out)
}

/// Appends the components of one SL entry to `text`; `open` says the last component goes on
/// (its CONTINUE flag); returns whether this entry's last one does.
fn symlink_components(
    mut body: &[u8],
    text: &mut String,
    mut open: bool,
) -> Result<bool, SuspError> {
    while !body.is_empty() {
        let (flags, len) = match body {
            [flags, len, ..] => (*flags, *len as usize),
            _ => return Err(SuspError::ShortComponent),
        };
        let part = body.get(2..2 + len).ok_or(SuspError::ShortComponent)?;
        let piece = match flags & !0x01 {
            0 => std::str::from_utf8(part).map_err(|_| SuspError::ComponentNotUtf8)?,
            0x02 => ".",
            0x04 => "..",
            0x08 => "",
            other => return Err(SuspError::ComponentFlags(other)),
        };
        if !open && !text.is_empty() && !text.ends_with('/') {
            text.push('/');
        }
        if flags & 0x08 != 0 {
            text.clear();
            text.push('/');
        } else {
            text.push_str(piece);
        }
        open = flags & 0x01 != 0;
        body = &body[2 + len..];
    }
    Ok(open)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(sig: &[u8; 2], body: &[u8]) -> Vec<u8> {
        let mut e = vec![sig[0], sig[1], (body.len() + 4) as u8, 1];
        e.extend_from_slice(body);
        e
    }

    fn no_fetch(sector: u32, _: u32, _: u32) -> Result<Vec<u8>, SuspError> {
        Err(SuspError::ContinuationBeyondVolume(sector))
    }

    #[test]
    fn names_modes_and_targets_are_read() {
        let mut area = entry(b"PX", &[0xa4, 0x81, 0, 0, 0, 0, 0x81, 0xa4]);
        area.extend(entry(b"NM", b"\x01net"));
        area.extend(entry(b"NM", b"\x00work.yaml"));
        area.extend(entry(b"SL", b"\x00\x08\x00\x00\x03usr\x00\x03bin"));
        let got = parse(&area, false, no_fetch).expect("parses");
        assert_eq!(got.name.as_deref(), Some("network.yaml"));
        assert_eq!(got.mode, Some(0o100644));
        assert_eq!(got.target.as_deref(), Some("/usr/bin"));
    }

    #[test]
    fn relocation_compression_and_unknown_entries_are_refused() {
        for sig in [b"CL", b"PL", b"RE", b"ZF", b"PN", b"AA", b"ES", b"XX"] {
            let got = parse(&entry(sig, b"\0\0\0\0\0\0\0\0"), false, no_fetch).expect("parses");
            let unknown = got.unknown.expect("named");
            assert!(
                unknown.contains(&*String::from_utf8_lossy(sig)),
                "{unknown}"
            );
        }
    }

    #[test]
    fn er_counts_only_on_dot_and_continuations_are_followed() {
        let mut er = vec![10, 0, 0, 1];
        er.extend_from_slice(b"RRIP_1991A");
        let er = entry(b"ER", &er);
        let elsewhere = parse(&er, false, no_fetch).expect("parses");
        assert!(!elsewhere.er && elsewhere.unknown.is_some());
        let mut ce = vec![0u8; 24];
        ce[16] = er.len() as u8;
        let got = parse(&entry(b"CE", &ce), true, |_, _, _| Ok(er.clone())).expect("parses");
        assert!(got.er);
        let looping = parse(&entry(b"CE", &ce), true, |_, _, _| Ok(entry(b"CE", &ce)));
        let err = looping.expect_err("bounded");
        assert!(matches!(err, SuspError::Continuations), "{err}");
        assert_eq!(err.to_string(), "more than 32 CE continuations");
    }
}
