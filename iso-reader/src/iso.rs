//! Reading an ISO 9660 image back: its trees checked to agree ([`trees`]), its Rock Ridge
//! entries listed, a file's bytes streamed out of the extents every tree points at.
//!
//! ```no_run
//! use cks_iso_reader::iso::IsoImage;
//!
//! let image = IsoImage::open("cks.iso".as_ref())?;
//! println!("{} {}", image.volume_id(), image.sha256("/versions.txt")?);
//! # Ok::<(), cks_iso_reader::iso::IsoError>(())
//! ```

mod error;
mod mode;
mod read;
pub mod trees;

pub use error::IsoError;
pub use mode::EntryKind;
pub use read::{IsoEntry, IsoImage};

/// The volume id nodes look the ISO up by (`blkid -t LABEL=CDROM`).
pub const DEFAULT_VOLUME_ID: &str = "CDROM";
