//! The fixed-capacity buffers the image is gathered in before a write, reused between the
//! writer and its hash thread.
//!
//! The image goes through the page cache. It was once written around it (`O_DIRECT`), to spare
//! the build host's cache; but the ISO is read again right after it is written: by the next
//! rebuild (which hashes every byte of it), by `verify`, by an upload to the cache registry or to
//! CloudStack. Written around the cache, each of those reads it from the disk, and on the bench
//! machine one read of it from the disk alone is more than a warm rebuild may take. The kernel's
//! writeback bounds the dirty pages as it does for `cp`.

/// A byte buffer of fixed capacity, allocated once and never grown.
pub struct Buffer {
    bytes: Vec<u8>,
    len: usize,
}

impl Buffer {
    /// An empty buffer of `capacity` bytes.
    pub fn new(capacity: usize) -> Self {
        Buffer {
            bytes: vec![0u8; capacity],
            len: 0,
        }
    }

    /// Copies as much of `src` as fits; returns how many bytes it took.
    pub fn fill(&mut self, src: &[u8]) -> usize {
        let take = (self.bytes.len() - self.len).min(src.len());
        self.bytes[self.len..self.len + take].copy_from_slice(&src[..take]);
        self.len += take;
        take
    }

    /// Whether no more bytes fit.
    pub fn is_full(&self) -> bool {
        self.len == self.bytes.len()
    }

    /// Whether it holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Empties it for reuse.
    pub fn clear(&mut self) {
        self.len = 0;
    }
}

impl AsRef<[u8]> for Buffer {
    fn as_ref(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_fills_to_its_capacity_and_empties() {
        let mut buffer = Buffer::new(3 * 2048);
        assert!(buffer.is_empty());
        assert_eq!(buffer.fill(&[7; 4096]), 4096);
        assert_eq!(buffer.fill(&[8; 4096]), 2048);
        assert!(buffer.is_full());
        assert_eq!(&buffer.as_ref()[4094..4098], &[7, 7, 8, 8]);
        buffer.clear();
        assert!(buffer.is_empty() && buffer.as_ref().is_empty());
    }
}
