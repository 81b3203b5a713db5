//! The volume descriptor set: one primary descriptor, at most one Joliet supplementary
//! descriptor, at most one ISO 9660:1999 enhanced descriptor, a terminator, and nothing else.
//! Boot records (El Torito), partition descriptors, other supplementary descriptors and a UDF
//! recognition sequence after the terminator are refused: the writer never writes them, and a
//! firmware or `mount` would act on them.

use super::error::TreeError;

/// Bytes in a logical sector.
pub const SECTOR: usize = 2048;

/// The sector of the first volume descriptor.
pub const FIRST: u64 = 16;

/// The most descriptors read before a terminator must have come (Linux looks at 84).
pub const MAX_DESCRIPTORS: u64 = 64;

/// The facts taken from the descriptor set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Descriptors {
    /// The primary volume identifier, trailing spaces cut.
    pub volume_id: String,
    /// The volume space size, in sectors.
    pub space: u32,
    /// The primary descriptor's root directory record.
    pub primary_root: Vec<u8>,
    /// The Joliet descriptor's root directory record, if any.
    pub joliet_root: Option<Vec<u8>>,
    /// The enhanced descriptor's root directory record, if any.
    pub iso1999_root: Option<Vec<u8>>,
    /// The sector after the terminator.
    pub end: u64,
}

/// What one descriptor sector is.
fn kind(sector: u64, d: &[u8]) -> Result<Kind, TreeError> {
    let bad = |detail: String| TreeError::Descriptor { sector, detail };
    if d.len() != SECTOR || &d[1..6] != b"CD001" {
        return Err(bad(
            "is not an ISO 9660 descriptor (no CD001 identifier)".into()
        ));
    }
    Ok(match (d[0], d[6]) {
        (255, _) => Kind::Terminator,
        (1, 1) => Kind::Primary,
        (2, 1) if &d[88..90] == b"%/" && matches!(d[90], b'@' | b'C' | b'E') => Kind::Joliet,
        (2, 2) => Kind::Iso1999,
        (0, _) => return Err(bad("is a boot record, which the writer never writes".into())),
        (2, _) => {
            return Err(bad(format!(
                "is a supplementary descriptor with escape sequences {:?}, which the writer never writes",
                String::from_utf8_lossy(&d[88..91])
            )));
        }
        (3, _) => {
            return Err(bad(
                "is a volume partition descriptor, which the writer never writes".into(),
            ));
        }
        (t, v) => {
            return Err(bad(format!(
                "has type {t} version {v}, which the writer never writes"
            )));
        }
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Primary,
    Joliet,
    Iso1999,
    Terminator,
}

/// Reads the descriptor set; `sector(n)` gives sector `n` (or why it cannot be read).
pub fn read(
    mut sector: impl FnMut(u64) -> Result<Vec<u8>, TreeError>,
) -> Result<Descriptors, TreeError> {
    let mut primary: Option<(String, u32, Vec<u8>)> = None;
    let mut joliet = None;
    let mut iso1999 = None;
    for n in FIRST..FIRST + MAX_DESCRIPTORS {
        let d = sector(n)?;
        let twice = |what: &str| TreeError::Descriptor {
            sector: n,
            detail: format!("is a second {what} descriptor, which the writer never writes"),
        };
        match kind(n, &d)? {
            Kind::Terminator => {
                let Some((volume_id, space, primary_root)) = primary else {
                    return Err(TreeError::Descriptor {
                        sector: n,
                        detail: "ends the set before any primary descriptor".into(),
                    });
                };
                // A UDF bridge would make `mount` and blkid take the image as UDF.
                if let Ok(next) = sector(n + 1)
                    && [
                        &b"BEA01"[..],
                        b"NSR02",
                        b"NSR03",
                        b"TEA01",
                        b"BOOT2",
                        b"CD001",
                    ]
                    .contains(&&next[1..6])
                {
                    return Err(TreeError::Descriptor {
                        sector: n + 1,
                        detail: format!(
                            "follows the terminator with a {} recognition descriptor, which the writer never writes",
                            String::from_utf8_lossy(&next[1..6])
                        ),
                    });
                }
                return Ok(Descriptors {
                    volume_id,
                    space,
                    primary_root,
                    joliet_root: joliet,
                    iso1999_root: iso1999,
                    end: n + 1,
                });
            }
            Kind::Primary if primary.is_some() => return Err(twice("primary")),
            Kind::Joliet if joliet.is_some() => return Err(twice("Joliet")),
            Kind::Iso1999 if iso1999.is_some() => return Err(twice("ISO 9660:1999")),
            Kind::Primary if n != FIRST => {
                return Err(TreeError::Descriptor {
                    sector: n,
                    detail: "is the primary descriptor but not the first one".into(),
                });
            }
            Kind::Primary => {
                let volume_id = String::from_utf8_lossy(&d[40..72]).trim_end().to_string();
                let space = u32::from_le_bytes([d[80], d[81], d[82], d[83]]);
                primary = Some((volume_id, space, d[156..190].to_vec()));
            }
            Kind::Joliet => joliet = Some(d[156..190].to_vec()),
            Kind::Iso1999 => iso1999 = Some(d[156..190].to_vec()),
        }
    }
    Err(TreeError::Descriptor {
        sector: FIRST + MAX_DESCRIPTORS,
        detail: format!("no terminator within {MAX_DESCRIPTORS} descriptors"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn descriptor(kind: u8, version: u8, escape: &[u8]) -> Vec<u8> {
        let mut d = vec![0u8; SECTOR];
        d[0] = kind;
        d[1..6].copy_from_slice(b"CD001");
        d[6] = version;
        d[40..72].copy_from_slice(b"CDROM                           ");
        d[88..88 + escape.len()].copy_from_slice(escape);
        d
    }

    fn set(kinds: Vec<Vec<u8>>) -> Result<Descriptors, TreeError> {
        read(|n| {
            Ok(kinds
                .get((n - FIRST) as usize)
                .cloned()
                .unwrap_or_else(|| vec![0u8; SECTOR]))
        })
    }

    #[test]
    fn primary_joliet_and_terminator_are_read() {
        let got = set(vec![
            descriptor(1, 1, b""),
            descriptor(2, 1, b"%/E"),
            descriptor(255, 1, b""),
        ])
        .expect("a good set");
        assert_eq!(got.volume_id, "CDROM");
        assert!(got.joliet_root.is_some() && got.iso1999_root.is_none());
        assert_eq!(got.end, 19);
    }

    #[test]
    fn boot_records_partitions_and_unknown_escapes_are_refused() {
        for odd in [
            descriptor(0, 1, b""),
            descriptor(3, 1, b""),
            descriptor(2, 1, b"%/Z"),
            descriptor(1, 1, b""),
            descriptor(7, 1, b""),
        ] {
            let err = set(vec![descriptor(1, 1, b""), odd, descriptor(255, 1, b"")])
                .expect_err("refused");
            assert!(err.to_string().contains("sector 17"), "{err}");
        }
    }

    #[test]
    fn a_set_without_terminator_or_with_udf_after_it_is_refused() {
        assert!(set(vec![descriptor(1, 1, b""); 80]).is_err());
        let mut bea = vec![0u8; SECTOR];
        bea[1..6].copy_from_slice(b"BEA01");
        let err =
            set(vec![descriptor(1, 1, b""), descriptor(255, 1, b""), bea]).expect_err("refused");
        assert!(err.to_string().contains("BEA01"), "{err}");
    }
}
