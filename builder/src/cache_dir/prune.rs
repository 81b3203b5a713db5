//! Pruning a cache folder: with its lock held exclusively (no build is running on it), the
//! entries older than the age limit, then the least recently used until the rest fits the size
//! limit, are removed.

use std::path::Path;
use std::time::{Duration, SystemTime};

use serde::Serialize;

use super::CacheDirError;
use super::entries::{Entry, list};
use super::lock::CacheLock;

/// The limits a prune keeps the cache within.
#[derive(Debug, Clone, Default)]
pub struct Prune {
    /// The most bytes the entries may take together.
    pub max_size: Option<u64>,
    /// The longest an entry may go unused.
    pub max_age: Option<Duration>,
}

/// What a prune did.
#[derive(Debug, Clone, Serialize)]
pub struct Pruned {
    /// The entries removed, least recently used first.
    pub removed: Vec<Entry>,
    /// The entries kept.
    pub kept: usize,
    /// The bytes the kept entries take.
    pub kept_size: u64,
}

/// Prunes the cache folder `dir` to `limits`; fails at once, removing nothing, while a build
/// uses it.
pub fn prune(dir: &Path, limits: &Prune) -> Result<Pruned, CacheDirError> {
    let entries = list(dir)?;
    let _lock = CacheLock::exclusive(dir)?;
    // Listed again under the lock: what a build that just ended marked as used counts.
    let entries = match list(dir) {
        Ok(again) => again,
        Err(_) => entries,
    };
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    let (removed, kept) = choose(entries, limits, now);
    for entry in &removed {
        for file in &entry.files {
            match std::fs::remove_file(file) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(source) => {
                    return Err(CacheDirError::Io {
                        path: file.clone(),
                        source,
                    });
                }
            }
        }
    }
    Ok(Pruned {
        kept: kept.len(),
        kept_size: kept.iter().map(|e| e.size).sum(),
        removed,
    })
}

/// Splits `entries` (least recently used first) into those to remove and those to keep.
fn choose(entries: Vec<Entry>, limits: &Prune, now: i64) -> (Vec<Entry>, Vec<Entry>) {
    let oldest = limits
        .max_age
        .map(|age| now.saturating_sub(i64::try_from(age.as_secs()).unwrap_or(i64::MAX)));
    let mut total: u64 = entries.iter().map(|e| e.size).sum();
    let (mut removed, mut kept) = (Vec::new(), Vec::new());
    for entry in entries {
        let too_old = oldest.is_some_and(|oldest| entry.last_use < oldest);
        let too_big = limits.max_size.is_some_and(|max| total > max);
        if too_old || too_big {
            total -= entry.size;
            removed.push(entry);
        } else {
            kept.push(entry);
        }
    }
    debug_assert!(limits.max_size.is_none_or(|max| total <= max));
    (removed, kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache_dir::Kind;

    fn entry(name: &str, size: u64, last_use: i64) -> Entry {
        Entry {
            kind: Kind::Blob,
            name: name.to_string(),
            files: Vec::new(),
            size,
            last_use,
        }
    }

    #[test]
    fn the_old_go_then_the_least_recently_used_until_the_rest_fits() {
        let entries = vec![
            entry("a", 10, 100),
            entry("b", 10, 900),
            entry("c", 10, 950),
        ];
        let by_age = Prune {
            max_age: Some(Duration::from_secs(500)),
            ..Prune::default()
        };
        let (removed, kept) = choose(entries.clone(), &by_age, 1000);
        assert_eq!(
            removed.iter().map(|e| &e.name[..]).collect::<Vec<_>>(),
            ["a"]
        );
        assert_eq!(kept.len(), 2);
        let by_size = Prune {
            max_size: Some(15),
            ..Prune::default()
        };
        let (removed, _) = choose(entries.clone(), &by_size, 1000);
        assert_eq!(
            removed.iter().map(|e| &e.name[..]).collect::<Vec<_>>(),
            ["a", "b"]
        );
        let (removed, kept) = choose(entries, &Prune::default(), 1000);
        assert!(removed.is_empty());
        assert_eq!(kept.len(), 3);
    }
}
