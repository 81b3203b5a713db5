//! The artifact store's finished ISOs: what a build takes from a cache and keeps for the next
//! one. An ISO is found by its recipe ([`crate::artifact::ArtifactKey`]); the local
//! `--cache-dir` folder and the shared tier (the `--cache-registry`, reached through the port
//! [`crate::artifact::SharedArtifacts`]) are layered in one place ([`IsoStore`], on
//! [`crate::artifact::Layers`]), as the finished tarballs ([`crate::registry::TarballStore`]),
//! the image blobs ([`crate::registry::BlobStore`]) and the downloaded files (the downloader's
//! content cache) are. A cache is never a source of truth: everything it serves is checked against
//! what the build knows on its own (published checksums, the digests upstream or the lock
//! gives), as thoroughly as the build's own writing would make it ([`check_iso`], each image
//! tarball in it as [`crate::registry::TarballCheck`] checks one); what fails is not used, and
//! the build makes it instead.
//!
//! ```no_run
//! use cks_builder::registry::{Arch, TarballCheck};
//!
//! let mut check = TarballCheck::new("registry.k8s.io/pause:3.10", "sha256:...", Arch::Amd64);
//! std::io::copy(&mut std::fs::File::open("pause.tar")?, &mut check)?;
//! match check.finish() {
//!     Ok(facts) => println!("{} {}", facts.sha256, facts.platform),
//!     Err(reason) => eprintln!("not used: {reason}"),
//! }
//! # Ok::<(), std::io::Error>(())
//! ```

mod early_proof;
mod finished_iso;
mod iso_check;
mod refusal;
mod seal;

pub use early_proof::{EarlyProof, LastRecipe};
pub use finished_iso::{IsoHit, IsoStore, cores};
pub use iso_check::{IsoContents, IsoWant, Proof, check_iso};
pub use refusal::IsoRefusal;
pub use seal::{Seal, SealError, SealFacts, SealedImage};
