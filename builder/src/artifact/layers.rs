//! The finished files of one kind (image tarballs, ISOs) in the artifact store's two tiers, the
//! local `--cache-dir` folder and the shared tier, each tier's acts written once: an entry is
//! taken from the local folder (a hard link, with the texts kept beside it) and then from the
//! shared tier (hashed as it streams in), and kept in both. The caller checks every hit before
//! it uses it, and a hit that fails is refused by the tier that served it, the same way for
//! every kind: a local entry is removed with its texts, so no later build takes it; a shared
//! one is a miss and one warning of the tier's, and the file it wrote is removed.

use std::path::Path;

use super::key::ArtifactKey;
use super::local::LocalFinished;
use super::port::{Kept, Landing, SharedTier, Taken};

/// The tier a hit came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    /// The local `--cache-dir` folder.
    Local,
    /// The store shared between builds.
    Shared,
}

/// The finished files of one kind in the local folder and the shared tier, where given.
#[derive(Debug, Clone)]
pub struct Layers<'a> {
    local: Option<LocalFinished>,
    shared: Option<&'a SharedTier>,
    /// The names of the texts kept beside a local entry.
    sides: &'static [&'static str],
}

impl<'a> Layers<'a> {
    /// The entries named `<key>.<ext>` in the folder `local`, with the texts `sides` beside
    /// them, and the shared tier `shared`.
    pub fn new(
        local: Option<&Path>,
        ext: &'static str,
        sides: &'static [&'static str],
        shared: Option<&'a SharedTier>,
    ) -> Self {
        Layers {
            local: local.map(|dir| LocalFinished::new(dir.to_path_buf(), ext)),
            shared,
            sides,
        }
    }

    /// Whether there is neither a local folder nor a shared tier (nothing to ask or keep).
    pub fn is_empty(&self) -> bool {
        self.local.is_none() && self.shared.is_none()
    }

    /// Whether asking can find nothing: no shared tier, and a local folder that holds no entry.
    pub fn holds_none(&self) -> bool {
        self.shared.is_none() && self.local.as_ref().is_none_or(LocalFinished::holds_none)
    }

    /// Whether there is a shared tier to ask.
    pub fn has_shared(&self) -> bool {
        self.shared.is_some()
    }

    /// The local entry `key` linked to `to` (replacing what is there), with the text `side`
    /// kept beside it; `None` when the folder holds no such entry with that text.
    pub fn take_local(&self, key: &ArtifactKey, side: &str, to: &Path) -> Option<String> {
        let local = self.local.as_ref()?;
        let name = key.local_name();
        let text = local.side(&name, side)?;
        local.link(&name, to).then_some(text)
    }

    /// Where the text `side` beside the local entry `key` is kept, when there is a folder.
    pub fn local_side_path(&self, key: &ArtifactKey, side: &str) -> Option<std::path::PathBuf> {
        Some(self.local.as_ref()?.side_path(&key.local_name(), side))
    }

    /// The entry `key` from the shared tier, written to `landing.file` and hashed as it
    /// streamed in; `None` when there is no tier or it holds none.
    pub async fn take_shared(&self, key: &ArtifactKey, landing: Landing<'_>) -> Option<Taken> {
        match self.shared {
            Some(shared) => shared.0.take(key, landing).await,
            None => {
                if let Some(mark) = landing.mark {
                    mark.ended(false);
                }
                None
            }
        }
    }

    /// The hit of `key` from `layer`, written at `file`, failed the caller's check
    /// (`reason`): it is not used. The file is removed, and the tier is told: a local entry is
    /// removed with its texts, the shared tier counts a miss and warns once (named `about`).
    pub fn refuse(&self, layer: Layer, key: &ArtifactKey, about: &str, file: &Path, reason: &str) {
        let _ = std::fs::remove_file(file);
        match layer {
            Layer::Local => {
                tracing::debug!(
                    entry = about,
                    reason,
                    "a cached entry that fails its check removed"
                );
                if let Some(local) = &self.local {
                    local.remove(&key.local_name(), self.sides);
                }
            }
            Layer::Shared => {
                if let Some(shared) = self.shared {
                    shared.0.refused(key, about, reason.to_string());
                }
            }
        }
    }

    /// Keeps the file at `path` as the local entry `key`, with the texts `sides` beside it
    /// (best effort: a folder that cannot take it is skipped).
    pub fn keep_local(&self, key: &ArtifactKey, path: &Path, sides: &[(&str, &str)]) {
        if let Some(local) = &self.local {
            local.put(&key.local_name(), path, sides);
        }
    }

    /// Keeps the text `text` as `side` beside the local entry `key` (best effort).
    pub fn keep_local_side(&self, key: &ArtifactKey, side: &str, text: &str) {
        if let Some(local) = &self.local {
            local.put_side(&key.local_name(), side, text);
        }
    }

    /// Keeps the verified file `kept` as `key`: in the local folder with the texts `sides`,
    /// and in the shared tier (its failures are its own warnings). Best effort.
    pub async fn keep(&self, key: &ArtifactKey, sides: &[(&str, &str)], kept: Kept<'_>) {
        self.keep_local(key, kept.path, sides);
        if let Some(shared) = self.shared {
            shared.0.keep(key, kept).await;
        }
    }
}
