//! What a tarball check found wrong: one variant per way a tarball can differ from the one the
//! build writes, each with the names and sizes its message gives.

use cks_pinning::digest::DigestError;

use crate::registry::error::RegistryError;

/// Why a tarball is not the one the build writes for its image.
#[derive(Debug, thiserror::Error)]
pub enum TarballError {
    /// A header after the first end-of-archive block.
    #[error("a header follows an end-of-archive block")]
    HeaderAfterEnd,
    /// An entry's name cannot be read.
    #[error("an entry name is unreadable: {detail}")]
    Name {
        /// What the reader said.
        detail: String,
    },
    /// An entry's size cannot be read.
    #[error("{name}: the size is unreadable: {detail}")]
    Size {
        /// The entry.
        name: String,
        /// What the reader said.
        detail: String,
    },
    /// More entries than the limits allow.
    #[error("more than {max} entries")]
    TooManyEntries {
        /// The most entries.
        max: u64,
    },
    /// An entry no image layout has.
    #[error("it holds {name}, which no image layout has")]
    Unknown {
        /// The entry.
        name: String,
    },
    /// A file read in memory that is larger than the `oci` limit.
    #[error("{name} is {size} bytes")]
    TooLarge {
        /// The entry.
        name: String,
        /// Its size.
        size: u64,
    },
    /// Padding after a content that is not zeros.
    #[error("an entry's padding is not zeros")]
    Padding,
    /// Bytes after the two end-of-archive blocks.
    #[error("bytes follow the end of the archive")]
    BytesAfterEnd,
    /// The stream ended before the end-of-archive blocks.
    #[error("it ends before its end-of-archive blocks")]
    Truncated,
    /// A blob whose bytes do not hash to its name.
    #[error("blob {hex} holds bytes hashing to {actual}")]
    BlobDigest {
        /// The name's hex digest.
        hex: String,
        /// What the bytes hash to.
        actual: String,
    },
    /// A blob met before whose SHA-1 is no longer known.
    #[error("blob {hex}'s SHA-1 was not kept")]
    Sha1Lost {
        /// The blob's hex digest.
        hex: String,
    },
    /// The same blob twice.
    #[error("blob {hex} is there twice")]
    BlobTwice {
        /// The blob's hex digest.
        hex: String,
    },
    /// A blob the image needs is not there.
    #[error("it lacks blob {digest}")]
    MissingBlob {
        /// The blob's digest.
        digest: String,
    },
    /// `index.json` is missing or not JSON.
    #[error("its index.json is missing or not JSON")]
    IndexJson,
    /// A manifest or config that does not parse.
    #[error(transparent)]
    Manifest(#[from] RegistryError),
    /// The index has no manifest for the platform.
    #[error("its index has no {platform}")]
    NoPlatform {
        /// The platform, e.g. `linux/amd64`.
        platform: String,
    },
    /// A platform manifest of another size than its index says.
    #[error("manifest {digest} has another size")]
    ManifestSize {
        /// The manifest's digest.
        digest: String,
    },
    /// An index where a platform manifest belongs.
    #[error("{digest} is an index inside an index")]
    NestedIndex {
        /// The inner index's digest.
        digest: String,
    },
    /// A single-platform image for another platform.
    #[error("it is for {found}")]
    OtherPlatform {
        /// The image's platform.
        found: String,
    },
    /// The image's digest is not a digest.
    #[error(transparent)]
    Digest(#[from] DigestError),
    /// Other blobs than the image reaches.
    #[error("it holds {held} blob(s) where the image has {wanted}")]
    BlobCount {
        /// Blobs in the tarball.
        held: usize,
        /// Blobs the image reaches.
        wanted: usize,
    },
    /// A blob of another size than its descriptor says.
    #[error("blob {digest} has another size")]
    BlobSize {
        /// The blob's digest.
        digest: String,
    },
    /// A layout file with other bytes than the build writes.
    #[error("its {name} is not the one this image gets")]
    LayoutFile {
        /// The file, e.g. `index.json`.
        name: String,
    },
    /// Another number of entries than the build writes.
    #[error("it has {seen} entries where {written} were written")]
    EntryCount {
        /// Entries in the tarball.
        seen: usize,
        /// Entries the build writes.
        written: usize,
    },
    /// The header the build writes for an entry cannot be made.
    #[error("{0}")]
    Header(std::io::Error),
    /// An entry's header differs from the one the build writes.
    #[error("its entry {seen} is not the one written for {name}")]
    Entry {
        /// The entry found.
        seen: String,
        /// The entry the build writes there.
        name: String,
    },
    /// The whole tarball's digest could not be completed.
    #[error("{0}")]
    Hash(#[from] crate::digest::HashBesideError),
    /// The tarball file cannot be opened or read.
    #[error("{}: {source}", path.display())]
    File {
        /// The file.
        path: std::path::PathBuf,
        /// What failed.
        source: std::io::Error,
    },
}

impl From<cks_iso_reader::oci::ManifestError> for TarballError {
    /// A manifest that does not read, said as the registry's reading says it.
    fn from(error: cks_iso_reader::oci::ManifestError) -> Self {
        TarballError::Manifest(RegistryError::from(error))
    }
}
