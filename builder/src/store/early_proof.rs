//! The proof of a kept ISO begun before the build knows its recipe.
//!
//! A warm rebuild learns its recipe key only at the end of the plan (kubeadm's image list, the
//! images' digests), and then hashes the whole kept ISO on every core. The plan is mostly
//! waiting on small answers; the hash is the rebuild's one large piece of work. So the build
//! notes, per request, the recipe its last build of that request ended with
//! (`iso/last/<request>`, a hint and nothing more), and a rebuild of the same request starts
//! proving that ISO's bytes against its seal the moment it starts ([`EarlyProof::start`]),
//! while the plan runs.
//!
//! Nothing is vouched for by the hint. The proof is used only for the recipe the plan then
//! arrives at, only for the very file linked into place for it (the same device and inode as
//! the handle hashed) and only against the seal read again at that moment; otherwise it is
//! stopped and the kept ISO is proven the usual way. A wrong, forged or stale hint costs at
//! most the time of one hash, spent while the plan waits on the network.

use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::finished_iso::{SEAL, SUM};
use super::seal::Seal;
use crate::artifact::LocalFinished;
use crate::digest::chain::{self, ChainError, Checkpoint};

/// The folder, inside the local ISO folder, of the hints by request.
const LAST: &str = "last";

/// The longest hint read (a recipe key is 64 hex digits).
const MAX_HINT: u64 = 128;

/// The hint of one request: where the recipe its last build ended with is noted.
#[derive(Debug, Clone)]
pub struct LastRecipe {
    path: PathBuf,
}

impl LastRecipe {
    /// The hint of the request whose fingerprint is `request` (hex), in the ISO folder `dir`.
    pub fn new(dir: &Path, request: &str) -> Self {
        LastRecipe {
            path: dir.join(LAST).join(request),
        }
    }

    /// The recipe noted, when it reads as one (64 lower-case hex digits).
    fn read(&self) -> Option<String> {
        let mut text = String::new();
        std::fs::File::open(&self.path)
            .ok()?
            .take(MAX_HINT)
            .read_to_string(&mut text)
            .ok()?;
        let recipe = text.trim();
        (recipe.len() == 64
            && recipe
                .bytes()
                .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
        .then(|| recipe.to_string())
    }

    /// Notes `recipe` as the last of this request (best effort: [`crate::atomic::write`]; a
    /// folder that cannot take it is skipped).
    pub fn note(&self, recipe: &str) {
        let Some(dir) = self.path.parent() else {
            return;
        };
        if self.read().as_deref() == Some(recipe) || std::fs::create_dir_all(dir).is_err() {
            return;
        }
        let _ = crate::atomic::write(&self.path, recipe.as_bytes());
    }
}

/// A proof of a kept ISO's bytes against its seal, running on threads of its own; stopped
/// when dropped unless taken.
#[derive(Debug)]
pub struct EarlyProof {
    recipe: String,
    /// The device and inode of the file being hashed.
    identity: (u64, u64),
    sha256: String,
    checkpoints: Vec<Checkpoint>,
    stop: Arc<AtomicBool>,
    result: Option<tokio::sync::oneshot::Receiver<Result<String, ChainError>>>,
}

impl EarlyProof {
    /// Starts proving the ISO `last` names in the folder `dir` (`<recipe>.iso`, its sha256 and
    /// its seal beside it) on `threads` threads; `None` when there is no hint or no sealed ISO
    /// under it.
    pub fn start(dir: &Path, last: &LastRecipe, threads: usize) -> Option<EarlyProof> {
        let recipe = last.read()?;
        // The store's own layout of a kept ISO and the texts beside it.
        let folder = LocalFinished::new(dir.to_path_buf(), "iso", &[SUM, SEAL]);
        let iso = folder.path(&recipe);
        let kept = folder.side(&recipe, SUM)?;
        let seal = Seal::read(&folder.side_path(&recipe, SEAL)).ok()?;
        if seal.sha256 != kept.trim() {
            return None;
        }
        let file = std::fs::File::open(&iso).ok()?;
        let meta = file.metadata().ok()?;
        let stop = Arc::new(AtomicBool::new(false));
        let (send, result) = tokio::sync::oneshot::channel();
        let (points, stopped) = (seal.checkpoints.clone(), stop.clone());
        std::thread::Builder::new()
            .name("iso-early-proof".to_string())
            .spawn(move || {
                let _ = send.send(chain::verify_open(&file, &points, threads, &stopped));
            })
            .ok()?;
        Some(EarlyProof {
            recipe,
            identity: (meta.dev(), meta.ino()),
            sha256: seal.sha256,
            checkpoints: seal.checkpoints,
            stop,
            result: Some(result),
        })
    }

    /// The proof's outcome when it was made for `recipe`, of the file now at `placed`, under
    /// the seal of `sha256` and `checkpoints`: the whole file's sha256, or why its bytes are
    /// not the sealed ones. `None` (the proof stopped) when it was made for anything else, or
    /// could not end.
    pub async fn outcome_for(
        mut self,
        recipe: &str,
        placed: &Path,
        sha256: &str,
        checkpoints: &[Checkpoint],
    ) -> Option<Result<String, ChainError>> {
        let same_file =
            std::fs::metadata(placed).is_ok_and(|meta| (meta.dev(), meta.ino()) == self.identity);
        if recipe != self.recipe
            || !same_file
            || sha256 != self.sha256
            || checkpoints != self.checkpoints
        {
            return None;
        }
        match self.result.take()?.await {
            Ok(Err(ChainError::Stopped)) | Err(_) => None,
            Ok(outcome) => Some(outcome),
        }
    }
}

impl Drop for EarlyProof {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::SealFacts;

    const RECIPE: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    const OTHER: &str = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210";

    /// A folder keeping a sealed "ISO" under `RECIPE`, with the hint of request `req` naming it.
    fn kept(bytes: &[u8]) -> (tempfile::TempDir, LastRecipe, Seal) {
        let dir = tempfile::tempdir().expect("temp dir");
        let iso = dir.path().join(format!("{RECIPE}.iso"));
        std::fs::write(&iso, bytes).expect("write");
        let (digested, checkpoints) = chain::noted_file(&iso).expect("hashed");
        let seal = Seal {
            sha256: digested.hex().to_string(),
            checkpoints,
            facts: SealFacts::default(),
        };
        std::fs::write(
            dir.path().join(format!("{RECIPE}.iso.sha256")),
            &seal.sha256,
        )
        .expect("write");
        std::fs::write(
            dir.path().join(format!("{RECIPE}.iso.seal")),
            seal.to_text(),
        )
        .expect("write");
        let last = LastRecipe::new(dir.path(), "req");
        last.note(RECIPE);
        (dir, last, seal)
    }

    fn content() -> Vec<u8> {
        (0..(40usize << 20)).map(|i| (i % 251) as u8).collect()
    }

    /// The ISO linked into place, as the store's local take does.
    fn placed(dir: &Path) -> PathBuf {
        let to = dir.join("out.iso.partial");
        std::fs::hard_link(dir.join(format!("{RECIPE}.iso")), &to).expect("linked");
        to
    }

    #[tokio::test]
    async fn the_proof_begun_from_the_hint_serves_the_recipe_the_plan_arrives_at() {
        let bytes = content();
        let (dir, last, seal) = kept(&bytes);
        let early = EarlyProof::start(dir.path(), &last, 2).expect("begun");
        let to = placed(dir.path());
        let outcome = early
            .outcome_for(RECIPE, &to, &seal.sha256, &seal.checkpoints)
            .await;
        assert_eq!(
            outcome.map(|o| o.ok()),
            Some(Some(cks_pinning::digest::sha256_hex(&bytes)))
        );
    }

    #[tokio::test]
    async fn another_recipe_another_file_or_another_seal_gets_nothing_from_it() {
        let (dir, last, seal) = kept(&content());
        let to = placed(dir.path());
        // The plan arrived at another recipe.
        let early = EarlyProof::start(dir.path(), &last, 2).expect("begun");
        let stop = early.stop.clone();
        assert!(
            early
                .outcome_for(OTHER, &to, &seal.sha256, &seal.checkpoints)
                .await
                .is_none()
        );
        assert!(stop.load(Ordering::Relaxed), "the proof is stopped");
        // A copy in place, not the file hashed.
        let copy = dir.path().join("copy.iso");
        std::fs::copy(&to, &copy).expect("copied");
        let early = EarlyProof::start(dir.path(), &last, 2).expect("begun");
        assert!(
            early
                .outcome_for(RECIPE, &copy, &seal.sha256, &seal.checkpoints)
                .await
                .is_none()
        );
        // The seal read now is not the one the proof began under.
        let early = EarlyProof::start(dir.path(), &last, 2).expect("begun");
        assert!(
            early
                .outcome_for(RECIPE, &to, &seal.sha256, &seal.checkpoints[1..])
                .await
                .is_none()
        );
    }

    #[tokio::test]
    async fn a_changed_byte_in_the_kept_iso_is_found_by_the_early_proof() {
        let (dir, last, seal) = kept(&content());
        let iso = dir.path().join(format!("{RECIPE}.iso"));
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(&iso)
            .expect("opens");
        std::os::unix::fs::FileExt::write_all_at(&file, b"\xff", 20 << 20).expect("write");
        let early = EarlyProof::start(dir.path(), &last, 2).expect("begun");
        let to = placed(dir.path());
        let outcome = early
            .outcome_for(RECIPE, &to, &seal.sha256, &seal.checkpoints)
            .await;
        assert!(matches!(outcome, Some(Err(ChainError::Broken { .. }))));
    }

    #[test]
    fn a_hint_that_is_no_recipe_or_names_no_sealed_iso_begins_nothing() {
        let (dir, last, _) = kept(b"a small image");
        for forged in ["not a recipe", &"a".repeat(200), "../../etc/passwd", OTHER] {
            std::fs::write(dir.path().join(LAST).join("req"), forged).expect("write");
            assert!(
                EarlyProof::start(dir.path(), &last, 2).is_none(),
                "{forged:.20}"
            );
        }
        // No hint at all.
        let fresh = LastRecipe::new(dir.path(), "another request");
        assert!(EarlyProof::start(dir.path(), &fresh, 2).is_none());
        // The hint noted again reads back.
        last.note(RECIPE);
        assert_eq!(last.read().as_deref(), Some(RECIPE));
        assert!(EarlyProof::start(dir.path(), &last, 2).is_some());
    }
}
