//! What the cache registry reports to the user: it never fails a build, it warns.

use serde::Serialize;

/// A cache registry problem the build went past.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum CacheWarning {
    /// The registry did not answer (or answered 5xx); the rest of the build goes to upstream.
    Unreachable {
        /// The `--cache-registry` URL.
        registry: String,
        /// What went wrong.
        reason: String,
    },
    /// The registry refused a push (read-only, no push rights); nothing more is pushed.
    PushRefused {
        /// The `--cache-registry` URL.
        registry: String,
        /// What it answered.
        reason: String,
    },
    /// An entry did not match the digest it claims; it was ignored, and a copy fetched from
    /// upstream (or, for a finished tarball or ISO, made again) was pushed in its place. A
    /// registry whose storage holds the damaged bytes keeps serving them: content-addressed
    /// storage never rewrites a blob it has, so its operator must delete it.
    Damaged {
        /// The `--cache-registry` URL.
        registry: String,
        /// The file URL or image the entry was for.
        entry: String,
        /// The digest it claims.
        digest: String,
        /// How it differs.
        reason: String,
    },
    /// A finished tarball or ISO that is not what this build makes from what it knows on its
    /// own (the publisher's checksums, upstream's or the lock's digests): a pusher's forgery or
    /// a build of other inputs. It was not used; the build made its own and pushed it in its
    /// place.
    Refused {
        /// The `--cache-registry` URL.
        registry: String,
        /// The image or ISO the entry was for.
        entry: String,
        /// What differs.
        reason: String,
    },
}

impl std::fmt::Display for CacheWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CacheWarning::Unreachable { registry, reason } => write!(
                f,
                "cache registry {registry} is unavailable ({reason}); the rest of the build fetches from upstream"
            ),
            CacheWarning::PushRefused { registry, reason } => write!(
                f,
                "cache registry {registry} refused a push ({reason}); nothing more is pushed to it (check that it is writable and the credentials may push)"
            ),
            CacheWarning::Damaged {
                registry,
                entry,
                digest,
                reason,
            } => write!(
                f,
                "cache registry {registry} holds a damaged {digest} for {entry} ({reason}); it was ignored and replaced (fetched from upstream, or made again, and pushed again); a registry whose storage holds the damaged bytes keeps them (the distribution registry never rewrites a blob it has): delete that blob from its storage and garbage-collect"
            ),
            CacheWarning::Refused {
                registry,
                entry,
                reason,
            } => write!(
                f,
                "cache registry {registry} holds a finished {entry} that is not what this build makes ({reason}); it was not used: this build made its own and pushed it in its place (check who may push to the cache registry)"
            ),
        }
    }
}
