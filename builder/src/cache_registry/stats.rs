//! What the cache registry did in one build, per kind of entry: hits, the bytes they brought,
//! look-ups it could not answer, pushes, and the warnings it cost.

use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;

/// The kinds of entry the cache registry holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A downloaded file (by the tag of its canonical URL).
    File,
    /// An image manifest (by the tag of its reference).
    Manifest,
    /// An image blob (by digest).
    Blob,
    /// A finished image tarball.
    Tarball,
    /// A finished ISO.
    Iso,
}

const KINDS: usize = 5;

impl Kind {
    /// The kind of the entry `key`.
    pub fn of(key: &crate::artifact::ArtifactKey) -> Kind {
        use crate::artifact::ArtifactKey;
        match key {
            ArtifactKey::File { .. } => Kind::File,
            ArtifactKey::Manifest { .. } => Kind::Manifest,
            ArtifactKey::Blob { .. } => Kind::Blob,
            ArtifactKey::Tarball { .. } => Kind::Tarball,
            ArtifactKey::Iso { .. } => Kind::Iso,
        }
    }

    fn index(self) -> usize {
        match self {
            Kind::File => 0,
            Kind::Manifest => 1,
            Kind::Blob => 2,
            Kind::Tarball => 3,
            Kind::Iso => 4,
        }
    }
}

/// The counts of one kind of entry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct KindStats {
    /// Entries taken from the cache registry (verified).
    pub hits: u64,
    /// Bytes of those entries.
    pub bytes: u64,
    /// Look-ups it could not answer (absent, damaged, or unreachable).
    pub misses: u64,
    /// Entries pushed to it.
    pub pushed: u64,
}

/// The counts of one build, per kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CacheStats {
    /// Downloaded files.
    pub files: KindStats,
    /// Image manifests.
    pub manifests: KindStats,
    /// Image blobs.
    pub blobs: KindStats,
    /// Finished image tarballs.
    pub tarballs: KindStats,
    /// Finished ISOs.
    pub iso: KindStats,
    /// Warnings the cache registry cost.
    pub warnings: u64,
}

impl CacheStats {
    /// The counts of `kind`.
    pub fn of(&self, kind: Kind) -> &KindStats {
        match kind {
            Kind::File => &self.files,
            Kind::Manifest => &self.manifests,
            Kind::Blob => &self.blobs,
            Kind::Tarball => &self.tarballs,
            Kind::Iso => &self.iso,
        }
    }

    /// Hits of every kind.
    pub fn hits(&self) -> u64 {
        self.all().iter().map(|k| k.hits).sum()
    }

    /// Bytes taken from the cache registry, every kind.
    pub fn bytes(&self) -> u64 {
        self.all().iter().map(|k| k.bytes).sum()
    }

    /// Pushes of every kind.
    pub fn pushed(&self) -> u64 {
        self.all().iter().map(|k| k.pushed).sum()
    }

    /// The lines the build summary prints: the totals, then one line per kind.
    pub fn render(&self) -> String {
        let mib = |bytes: u64| format!("{:.1} MiB", bytes as f64 / 1_048_576.0);
        let mut out = format!(
            "cache registry: {} hits ({}), {} pushed, {} warnings\n",
            self.hits(),
            mib(self.bytes()),
            self.pushed(),
            self.warnings
        );
        for (name, k) in ["files", "manifests", "blobs", "tarballs", "iso"]
            .iter()
            .zip(self.all())
        {
            out.push_str(&format!(
                "  {name}: {} hits ({}), {} misses, {} pushed\n",
                k.hits,
                mib(k.bytes),
                k.misses,
                k.pushed
            ));
        }
        out
    }

    fn all(&self) -> [&KindStats; KINDS] {
        [
            &self.files,
            &self.manifests,
            &self.blobs,
            &self.tarballs,
            &self.iso,
        ]
    }
}

#[derive(Debug, Default)]
struct KindCounters {
    hits: AtomicU64,
    bytes: AtomicU64,
    misses: AtomicU64,
    pushed: AtomicU64,
}

/// The live counters behind [`CacheStats`].
#[derive(Debug, Default)]
pub(super) struct Counters {
    kinds: [KindCounters; KINDS],
    warnings: AtomicU64,
}

impl Counters {
    pub(super) fn hit(&self, kind: Kind, bytes: u64) {
        let k = &self.kinds[kind.index()];
        k.hits.fetch_add(1, Ordering::Relaxed);
        k.bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    /// Takes back a hit whose entry was then refused.
    pub(super) fn unhit(&self, kind: Kind) {
        let k = &self.kinds[kind.index()];
        let _ = k
            .hits
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |h| h.checked_sub(1));
    }

    pub(super) fn missed(&self, kind: Kind) {
        self.kinds[kind.index()]
            .misses
            .fetch_add(1, Ordering::Relaxed);
    }

    pub(super) fn pushed(&self, kind: Kind) {
        self.kinds[kind.index()]
            .pushed
            .fetch_add(1, Ordering::Relaxed);
    }

    pub(super) fn warned(&self) {
        self.warnings.fetch_add(1, Ordering::Relaxed);
    }

    pub(super) fn snapshot(&self) -> CacheStats {
        let of = |kind: Kind| {
            let k = &self.kinds[kind.index()];
            KindStats {
                hits: k.hits.load(Ordering::Relaxed),
                bytes: k.bytes.load(Ordering::Relaxed),
                misses: k.misses.load(Ordering::Relaxed),
                pushed: k.pushed.load(Ordering::Relaxed),
            }
        };
        CacheStats {
            files: of(Kind::File),
            manifests: of(Kind::Manifest),
            blobs: of(Kind::Blob),
            tarballs: of(Kind::Tarball),
            iso: of(Kind::Iso),
            warnings: self.warnings.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_kept_per_kind_and_summed() {
        let counters = Counters::default();
        counters.hit(Kind::File, 10);
        counters.hit(Kind::Iso, 5);
        counters.pushed(Kind::Blob);
        counters.missed(Kind::Tarball);
        counters.warned();
        let stats = counters.snapshot();
        assert_eq!(stats.files.bytes, 10);
        assert_eq!(stats.of(Kind::Iso).hits, 1);
        assert_eq!((stats.hits(), stats.bytes(), stats.pushed()), (2, 15, 1));
        assert_eq!((stats.tarballs.misses, stats.warnings), (1, 1));
    }
}
