//! The artifact store's two tiers for one kind of entry, the local `--cache-dir` folder and the
//! shared tier, each tier's acts written once for every kind (downloaded files, image blobs,
//! image tarballs, ISOs): an entry is taken from the local folder and then from the shared tier
//! (hashed as it streams in), and kept in both. The caller checks every hit before it uses it,
//! and a hit that fails is refused by the tier that served it, the same way for every kind: a
//! local entry is removed with what is kept beside it, so no later build takes it; a shared one
//! is a miss and one warning of the tier's, and the file it wrote is removed. Each kind lays its
//! local folder out its own way ([`LocalTier`]): finished files under their key with texts
//! beside them ([`LocalFinished`]), content by digest ([`super::ContentFolder`]).

use std::path::Path;

use super::key::ArtifactKey;
use super::local::LocalFinished;
use super::local_tier::LocalTier;
use super::port::{Kept, Landing, SharedTier, Taken};

/// The tier a hit came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    /// The local `--cache-dir` folder.
    Local,
    /// The store shared between builds.
    Shared,
}

/// The entries of one kind in the local folder (of layout `L`) and the shared tier, where
/// given.
#[derive(Debug, Clone)]
pub struct Layers<L = LocalFinished> {
    local: Option<L>,
    shared: Option<SharedTier>,
}

impl<L: LocalTier> Layers<L> {
    /// The entries in the local folder `local` and the shared tier `shared`, where given.
    pub fn over(local: Option<L>, shared: Option<SharedTier>) -> Self {
        Layers { local, shared }
    }

    /// The local folder, where there is one (for the acts of its own layout).
    pub fn local(&self) -> Option<&L> {
        self.local.as_ref()
    }

    /// Whether there is neither a local folder nor a shared tier (nothing to ask or keep).
    pub fn is_empty(&self) -> bool {
        self.local.is_none() && self.shared.is_none()
    }

    /// Whether there is a shared tier to ask.
    pub fn has_shared(&self) -> bool {
        self.shared.is_some()
    }

    /// The entry `key` from the shared tier, written to `landing.file` and hashed as it
    /// streamed in; `None` when there is no tier or it holds none.
    pub async fn take_shared(&self, key: &ArtifactKey, landing: Landing<'_>) -> Option<Taken> {
        match &self.shared {
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
                    local.remove(key);
                }
            }
            Layer::Shared => {
                if let Some(shared) = &self.shared {
                    shared.0.refused(key, about, reason.to_string());
                }
            }
        }
    }

    /// Keeps the verified file `kept` as `key` in the shared tier (its failures are its own
    /// warnings).
    pub async fn keep_shared(&self, key: &ArtifactKey, kept: Kept<'_>) {
        if let Some(shared) = &self.shared {
            shared.0.keep(key, kept).await;
        }
    }
}

impl Layers<LocalFinished> {
    /// The entries named `<key>.<ext>` in the folder `local`, with the texts `sides` beside
    /// them, and the shared tier `shared`.
    pub fn new(
        local: Option<&Path>,
        ext: &'static str,
        sides: &'static [&'static str],
        shared: Option<&SharedTier>,
    ) -> Self {
        let local = local.map(|dir| LocalFinished::new(dir.to_path_buf(), ext, sides));
        Layers::over(local, shared.cloned())
    }

    /// Whether asking can find nothing: no shared tier, and a local folder that holds no entry.
    pub fn holds_none(&self) -> bool {
        self.shared.is_none() && self.local.as_ref().is_none_or(LocalFinished::holds_none)
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
        self.keep_shared(key, kept).await;
    }
}

#[cfg(test)]
mod tests {
    use super::super::ContentFolder;
    use super::*;

    /// A local hit refused by its caller goes with what is kept beside it, whatever the
    /// folder's layout: a finished file with its texts, content with nothing else left; the
    /// file the hit was put at goes too.
    #[test]
    fn a_refused_local_hit_is_removed_the_same_way_in_every_layout() {
        let dir = tempfile::tempdir().expect("temp dir");
        let out = dir.path().join("out");
        std::fs::write(dir.path().join("f"), b"bytes").expect("write");

        let finished = Layers::new(Some(&dir.path().join("iso")), "iso", &["sha256"], None);
        let key = ArtifactKey::Iso {
            recipe: "ab".repeat(32),
        };
        finished.keep_local(&key, &dir.path().join("f"), &[("sha256", "x")]);
        assert_eq!(
            finished.take_local(&key, "sha256", &out).as_deref(),
            Some("x")
        );
        finished.refuse(Layer::Local, &key, "ISO", &out, "not the one");
        assert!(!out.exists(), "the hit's file is removed");
        assert!(finished.holds_none(), "the entry is removed");
        let side = finished.local_side_path(&key, "sha256").expect("a folder");
        assert!(!side.exists(), "and the text beside it");

        let folder = ContentFolder::open(&dir.path().join("blobs")).expect("folder");
        let blob = ArtifactKey::Blob {
            digest: format!("sha256:{}", crate::digest::sha256_hex(b"bytes")),
            size: 5,
        };
        folder.put(&blob, &dir.path().join("f")).expect("put");
        let content = Layers::over(Some(folder.clone()), None);
        assert!(folder.holds(&blob));
        content.refuse(Layer::Local, &blob, "a blob", &out, "damaged");
        assert!(!folder.holds(&blob), "the content is removed");
        assert!(
            dir.path().join("f").is_file(),
            "the file it was put from stays"
        );
    }
}
