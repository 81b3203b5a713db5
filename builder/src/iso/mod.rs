//! The ISO 9660 image of a build: Rock Ridge names, modes and symlinks, a Joliet tree, level 3
//! (files of 4 GiB and more), reproducible from `SOURCE_DATE_EPOCH`, streamed from disk. The
//! reader ([`IsoImage`], [`trees`]) is `cks_iso_reader`'s, re-exported here.
//!
//! ```no_run
//! use cks_builder::iso::{BuildTime, PackOptions, pack};
//!
//! let options = PackOptions::with_time(BuildTime::from_env()?);
//! let packed = pack("tree".as_ref(), "cks.iso".as_ref(), &options)?;
//! println!("{}  {}", packed.sha256, packed.path.display());
//! for warning in &packed.warnings {
//!     eprintln!("warning: {warning}");
//! }
//! # Ok::<(), cks_builder::iso::PackError>(())
//! ```

mod error;
mod hadris;
mod mode;
mod options;
mod output;
mod pack;
mod time;
mod warning;

pub use cks_iso_reader::iso::{DEFAULT_VOLUME_ID, EntryKind, IsoEntry, IsoError, IsoImage, trees};
pub use error::PackError;
pub use mode::image_mode;
pub use options::{PackOptions, check_volume_id};
pub use output::{partial_path, sidecar_line, sidecar_path};
pub use pack::{Packed, pack, pack_counting, tree_bytes};
pub use time::{BuildTime, TimeSource};
pub use warning::PackWarning;
