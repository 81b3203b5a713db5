//! The artifact store: what a build takes from a cache and keeps for the next one. Every entry
//! has a typed key ([`ArtifactKey`]: a file by canonical URL and checksum, a manifest, a blob
//! by digest, a finished tarball, an ISO by recipe), named in every layer by one tag
//! ([`file_tag`], [`manifest_tag`], [`tarball_tag`], [`iso_tag`]); the shared tier (the `--cache-registry`)
//! is reached through one port ([`SharedArtifacts`]); the local `--cache-dir` folder and the
//! shared tier are layered in one place per kind ([`IsoStore`], [`TarballStore`]; files in
//! the downloader's store layer). A cache is never a source of truth: everything it serves is
//! checked against what the build knows on its own (published checksums, the digests upstream
//! or the lock gives), as thoroughly as the build's own writing would make it
//! ([`TarballCheck`], [`check_iso`]); what fails is not used, and the build makes it instead.
//!
//! ```no_run
//! use cks_builder::registry::Arch;
//! use cks_builder::store::TarballCheck;
//!
//! let mut check = TarballCheck::new("registry.k8s.io/pause:3.10", "sha256:...", Arch::Amd64);
//! std::io::copy(&mut std::fs::File::open("pause.tar")?, &mut check)?;
//! match check.finish() {
//!     Ok(facts) => println!("{} {}", facts.sha256, facts.platform),
//!     Err(reason) => eprintln!("not used: {reason}"),
//! }
//! # Ok::<(), std::io::Error>(())
//! ```

mod finished_iso;
mod finished_tarball;
mod iso_check;
mod key;
mod local;
mod port;
mod tag;
mod tarball_check;

pub use finished_iso::{IsoHit, IsoStore};
pub use finished_tarball::TarballStore;
pub use iso_check::{IsoContents, IsoWant, check_iso};
pub use key::ArtifactKey;
pub use local::LocalFinished;
pub use port::{FinishedFile, PortFuture, SharedArtifacts, SharedTier};
pub(crate) use tag::tarball_key;
pub use tag::{file_tag, iso_tag, manifest_tag, tarball_tag};
pub use tarball_check::{TarballCheck, TarballFacts, check_tarball_file};
