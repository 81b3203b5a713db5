//! `cks-iso show`: what an ISO says it holds, read from the image without mounting it (as
//! `skopeo inspect` reads an image): its `versions.txt` as written and its SBOM in brief. Nothing
//! is checked here; `verify` does that.

use std::fmt;
use std::path::{Path, PathBuf};

use cks_pinning::sbom::{FILE_NAME as SBOM, Summary, summarize};
use cks_pinning::versions_txt::FILE_NAME as VERSIONS_TXT;
use serde::Serialize;

use super::error::InspectError;
use super::read;

/// What [`show`] read.
#[derive(Debug, Clone, Serialize)]
pub struct Shown {
    /// The image.
    pub iso: PathBuf,
    /// Its volume identifier.
    pub volume_id: String,
    /// `versions.txt`, as written.
    pub versions_txt: String,
    /// The SBOM in brief; `None` when the ISO carries none (older builds).
    pub sbom: Option<Summary>,
}

/// Reads `versions.txt` and the SBOM of `iso` (each at most 16 MiB).
pub fn show(iso: &Path) -> Result<Shown, InspectError> {
    let (image, entries) = read::open(iso)?;
    let unreadable = |path: &str, detail: String| InspectError::Unreadable {
        iso: iso.to_path_buf(),
        path: path.to_string(),
        detail,
    };
    let holds = |name: &str| read::files(&entries).any(|(path, _)| path == name);
    let versions_txt =
        read::text(&image, VERSIONS_TXT).map_err(|d| unreadable(VERSIONS_TXT, d.to_string()))?;
    let sbom = match holds(SBOM) {
        false => None,
        true => {
            let text = read::text(&image, SBOM).map_err(|d| unreadable(SBOM, d.to_string()))?;
            Some(summarize(&text).map_err(|d| unreadable(SBOM, d.to_string()))?)
        }
    };
    Ok(Shown {
        iso: iso.to_path_buf(),
        volume_id: image.volume_id().to_string(),
        versions_txt,
        sbom,
    })
}

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "iso: {}", self.iso.display())?;
        writeln!(f, "volume id: {}", self.volume_id)?;
        writeln!(f, "\n# {VERSIONS_TXT}")?;
        write!(f, "{}", self.versions_txt)?;
        if !self.versions_txt.ends_with('\n') {
            writeln!(f)?;
        }
        let Some(sbom) = &self.sbom else {
            return writeln!(f, "\n# {SBOM}: none in this ISO");
        };
        writeln!(f, "\n# {SBOM}: components")?;
        let width = sbom.components.iter().map(|c| c.name.len()).max();
        for component in &sbom.components {
            let version = component.version.as_deref().unwrap_or("-");
            writeln!(
                f,
                "{:<width$}  {version}",
                component.name,
                width = width.unwrap_or(0)
            )?;
        }
        writeln!(f, "\n# {SBOM}: images")?;
        for image in &sbom.images {
            writeln!(f, "{}@{}", image.reference, image.digest)?;
        }
        for creator in &sbom.creators {
            writeln!(f, "\ncreator: {creator}")?;
        }
        Ok(())
    }
}
