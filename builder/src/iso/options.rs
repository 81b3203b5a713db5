//! What a pack is asked to do: volume id, Joliet, time.

use super::DEFAULT_VOLUME_ID;
use super::error::PackError;
use super::time::BuildTime;

/// How to pack a tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackOptions {
    /// The volume identifier, checked by [`PackOptions::new`].
    volume_id: String,
    /// Whether a Joliet tree is written next to Rock Ridge.
    pub joliet: bool,
    /// The time every entry and descriptor carries.
    pub time: BuildTime,
}

impl PackOptions {
    /// Options with `volume_id` (checked), Joliet on, dated `time`.
    pub fn new(volume_id: &str, time: BuildTime) -> Result<Self, PackError> {
        check_volume_id(volume_id)?;
        Ok(Self {
            volume_id: volume_id.to_string(),
            joliet: true,
            time,
        })
    }

    /// The default volume id `CDROM`, Joliet on, dated `time`.
    pub fn with_time(time: BuildTime) -> Self {
        Self {
            volume_id: DEFAULT_VOLUME_ID.to_string(),
            joliet: true,
            time,
        }
    }

    /// The same options without the Joliet tree.
    pub fn without_joliet(self) -> Self {
        Self {
            joliet: false,
            ..self
        }
    }

    /// The volume identifier.
    pub fn volume_id(&self) -> &str {
        &self.volume_id
    }
}

/// Checks that `id` is 1 to 32 ISO 9660 d-characters (A-Z, 0-9, _).
pub fn check_volume_id(id: &str) -> Result<(), PackError> {
    let ok = (1..=32).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(PackError::VolumeId { id: id.to_string() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn d_character_ids_up_to_32_are_accepted() {
        for id in ["CDROM", "CKS_1_33_13", &"A".repeat(32)] {
            assert!(check_volume_id(id).is_ok(), "{id}");
        }
    }

    #[test]
    fn other_ids_are_refused_naming_the_id() {
        for id in ["", "cdrom", "CKS-1.33", "WITH SPACE", &"A".repeat(33)] {
            let err = check_volume_id(id).expect_err("refused");
            assert!(err.to_string().contains(&format!("{id:?}")), "{err}");
        }
    }
}
