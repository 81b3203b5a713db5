//! Where a tree's bytes come from: the image, read at an offset ([`Source`]), and why it could
//! not be ([`SourceError`]). The walk and the System Use entries both read through it.

/// Why bytes of the image cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// Reading the image failed (or it ends before `len` bytes from `offset`).
    #[error("{len} bytes at offset {offset}: {source}")]
    Read {
        /// How many bytes were asked for.
        len: usize,
        /// Where in the image.
        offset: u64,
        /// What failed.
        source: std::io::Error,
    },
}

/// Reads bytes of the image.
pub trait Source {
    /// `len` bytes at `offset`, all of them, or why not.
    fn read(&self, offset: u64, len: usize) -> Result<Vec<u8>, SourceError>;
}
