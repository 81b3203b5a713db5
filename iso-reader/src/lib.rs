//! Reading a built ISO and judging it: what `cks-iso verify`, `diff` and `show`, the builder's
//! cache store and `cks-upgrade-hook preload --iso` share. Everything here reads files and
//! decides; nothing reaches the network.
//!
//! Where each behaviour lives:
//!
//! | folder / file | behaviour |
//! |---|---|
//! | [`iso`] | the ISO 9660 reader: every tree an image carries checked to agree, entries listed, files streamed out |
//! | [`inspect`] | `verify`, `diff` and `show`: what an ISO holds against its `versions.txt` and the node contract |
//! | [`oci`] | the OCI and Docker media types, manifests and platforms an image tarball is checked by |
//! | [`digest`] | every sha256: hashing writer, file and reader digests, cache keys, the checkpoints that check a file again on every core |
//! | [`follow`] | reading a file while a transfer writes it (a check beside the transfer) |
//!
//! An ISO checked against the node contract:
//!
//! ```no_run
//! use cks_iso_reader::inspect;
//!
//! let report = inspect::verify("cks-1.33.13-x86_64.iso".as_ref())?;
//! for finding in &report.findings {
//!     println!("{finding}");
//! }
//! # Ok::<(), cks_iso_reader::inspect::InspectError>(())
//! ```

pub mod digest;
pub mod follow;
pub mod inspect;
pub mod iso;
pub mod oci;
