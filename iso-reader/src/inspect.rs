//! Reading a built ISO back: `verify` checks it against its `versions.txt` and the node
//! contract, `diff` compares two of them, `show` prints what it says it holds. All read the
//! image with [`crate::iso::IsoImage`].
//!
//! ```no_run
//! use cks_iso_reader::inspect;
//!
//! let report = inspect::verify("cks-1.33.13-x86_64.iso".as_ref())?;
//! for finding in &report.findings {
//!     println!("{finding}");
//! }
//! let diff = inspect::diff("old.iso".as_ref(), "new.iso".as_ref())?;
//! print!("{diff}");
//! # Ok::<(), cks_iso_reader::inspect::InspectError>(())
//! ```
//!
//! The checks are pure functions over what was read (`contract`, `files`, `images`,
//! `manifests`, `units`, `sbom`, `tarball` on a scratch copy); `verify` and `diff` do the reading.

mod contract;
mod diff;
mod error;
mod files;
mod finding;
mod images;
mod manifests;
mod read;
mod sbom;
mod show;
mod tarball;
mod units;
mod verify;

pub use diff::{Change, Diff, diff, diff_contents, diff_versions};
pub use error::InspectError;
pub use finding::{Finding, Problem};
pub use read::{Contents, TextError, read_contents, sbom_text};
pub use show::{Shown, show};
pub use units::opt_bin_commands;
pub use verify::{Report, verify, verify_in};
