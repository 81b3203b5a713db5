//! What an entry of the artifact store is and how the shared tier is asked for it: the typed key
//! ([`ArtifactKey`], one per thing, the same in every tier) and the cache registry's tag it is
//! found by, the one port to the store shared between builds ([`SharedArtifacts`], held as a
//! [`SharedTier`]: take and keep by key, say when a taken entry is refused), the tiers of one kind
//! ([`Layers`]) over a local folder of finished files ([`LocalFinished`]) or of content by
//! digest ([`ContentFolder`]), and the small values the port speaks (where an entry
//! lands and what was taken or is kept: [`Landing`], [`Taken`], [`Kept`], [`Note`]; a file's
//! [`ChecksumStatus`], an image's [`RemoteName`], [`FetchedManifest`],
//! [`TarballId`] and [`CachedTarball`]). It knows no downloader, puller or registry: they all
//! stand on it, each asking the port by the key of its own kind of entry.

mod content;
mod file;
mod image;
mod key;
mod layers;
mod local;
mod local_tier;
mod port;
mod tag;

pub use content::ContentFolder;
pub use file::ChecksumStatus;
pub use image::{CachedTarball, FetchedManifest, RemoteName, TARBALL_FORMAT, TarballId};
pub use key::ArtifactKey;
pub use layers::{Layer, Layers};
pub use local::LocalFinished;
pub use local_tier::LocalTier;
pub use port::{Kept, Landing, Note, PortFuture, SharedArtifacts, SharedTier, Taken};
pub use tag::{file_tag, iso_tag, manifest_tag, tarball_tag};
