//! An ISO from the shared tier is checked behind its transfer, as its bytes land. A transfer
//! that starts over may write other bytes where the check has already read: the check is then
//! run again on the file as it ends up. Played here with a tier that lands a good ISO whole,
//! waits for the check behind it to pass, then starts over and writes a forged one (which hashes
//! to the digest it claims, as a hostile cache registry's would).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use cks_builder::artifact::{
    ArtifactKey, FetchedManifest, Kept, Landing, Note, PortFuture, SharedArtifacts, SharedTier,
    Taken,
};
use cks_builder::follow::Watermark;
use cks_builder::iso::{BuildTime, PackOptions, pack};
use cks_builder::progress::NoProgress;
use cks_builder::registry::Arch;
use cks_builder::store::{IsoStore, IsoWant, Proof, SealFacts, check_iso};
use tokio::sync::Notify;

/// A tier that serves `good` and, when `forged` is given, starts over once the check behind
/// has ended and serves that instead.
#[derive(Debug)]
struct Tier {
    good: PathBuf,
    forged: Option<PathBuf>,
    /// Told when a check behind the transfer has ended.
    checked: Arc<Notify>,
    refused: std::sync::Mutex<Vec<String>>,
}

impl Tier {
    async fn serve(&self, file: &Path, mark: &Watermark) -> Option<Taken> {
        let good = std::fs::read(&self.good).ok()?;
        std::fs::write(file, &good).ok()?;
        mark.landed(good.len() as u64);
        let served = match &self.forged {
            None => good,
            Some(forged) => {
                self.checked.notified().await;
                mark.restarted();
                let forged = std::fs::read(forged).ok()?;
                std::fs::write(file, &forged).ok()?;
                mark.landed(forged.len() as u64);
                forged
            }
        };
        mark.ended(true);
        Some(Taken {
            sha256: cks_builder::digest::sha256_hex(&served),
            size: served.len() as u64,
            source: "the test's tier".into(),
            checkpoints: Vec::new(),
            note: Note::Record(String::new()),
        })
    }
}

impl SharedArtifacts for Tier {
    fn take<'a>(
        &'a self,
        key: &'a ArtifactKey,
        landing: Landing<'a>,
    ) -> PortFuture<'a, Option<Taken>> {
        Box::pin(async move {
            match (key, landing.mark) {
                (ArtifactKey::Iso { .. }, Some(mark)) => self.serve(landing.file, mark).await,
                _ => None,
            }
        })
    }
    fn keep<'a>(&'a self, _: &'a ArtifactKey, _: Kept<'a>) -> PortFuture<'a, ()> {
        Box::pin(async {})
    }
    fn manifest<'a>(&'a self, _: &'a ArtifactKey) -> PortFuture<'a, Option<FetchedManifest>> {
        Box::pin(async { None })
    }
    fn keep_manifest<'a>(
        &'a self,
        _: &'a ArtifactKey,
        _: &'a FetchedManifest,
        _: bool,
    ) -> PortFuture<'a, ()> {
        Box::pin(async {})
    }
    fn refused(&self, _: &ArtifactKey, _: &str, reason: String) {
        if let Ok(mut refused) = self.refused.lock() {
            refused.push(reason);
        }
    }
}

/// Packs a tree holding `kubeadm` with `content` into `dir/name`.
fn iso(dir: &Path, name: &str, content: &[u8]) -> PathBuf {
    let tree = dir.join(format!("{name}.tree"));
    std::fs::create_dir_all(tree.join("k8s")).expect("tree");
    std::fs::write(tree.join("k8s/kubeadm"), content).expect("kubeadm");
    let out = dir.join(name);
    let options = PackOptions::new("CDROM", BuildTime::fixed(1_700_000_000)).expect("id");
    pack(&tree, &out, &options).expect("pack");
    out
}

/// Asks a store over `tier` for the ISO; what the check found, when it was taken.
async fn take(tier: Arc<Tier>, want_kubeadm: &[u8], scratch: &Path) -> Option<String> {
    let shared = SharedTier(tier.clone());
    let store = IsoStore::new(None, Some(&shared));
    let mut want = IsoWant {
        volume_id: "CDROM".into(),
        arch: Some(Arch::Amd64),
        ..IsoWant::default()
    };
    want.files.insert(
        "k8s/kubeadm".into(),
        (cks_builder::digest::sha256_hex(want_kubeadm), 0o644),
    );
    let partial = scratch.join("taken.iso.partial");
    let key = ArtifactKey::Iso {
        recipe: "0".repeat(64),
    };
    let check = |proof: Proof| {
        let (want, partial, told) = (
            IsoWant {
                proof,
                ..want.clone()
            },
            partial.clone(),
            tier.checked.clone(),
        );
        async move {
            let outcome = tokio::task::spawn_blocking(move || check_iso(&partial, &want))
                .await
                .expect("the check ran");
            told.notify_one();
            Ok(outcome.map(|contents| (contents.sizes.len(), SealFacts::default())))
        }
    };
    let hit = store
        .find(&key, &partial, &NoProgress, check)
        .await
        .expect("asked");
    hit.map(|hit| hit.sha256)
}

#[tokio::test(flavor = "multi_thread")]
async fn an_iso_checked_behind_its_transfer_is_taken() {
    let dir = tempfile::tempdir().expect("dir");
    let good = iso(dir.path(), "good.iso", b"the real kubeadm");
    let tier = Arc::new(Tier {
        good: good.clone(),
        forged: None,
        checked: Arc::new(Notify::new()),
        refused: Default::default(),
    });
    let sha256 = take(tier.clone(), b"the real kubeadm", dir.path()).await;
    let expected = cks_builder::digest::sha256_file(&good)
        .expect("hash")
        .into_hex();
    assert_eq!(sha256, Some(expected));
    assert!(tier.refused.lock().expect("refusals").is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_transfer_that_starts_over_with_a_forgery_is_checked_again_and_refused() {
    let dir = tempfile::tempdir().expect("dir");
    let good = iso(dir.path(), "good.iso", b"the real kubeadm");
    let forged = iso(dir.path(), "forged.iso", b"a trojan kubeadm");
    let tier = Arc::new(Tier {
        good,
        forged: Some(forged),
        checked: Arc::new(Notify::new()),
        refused: Default::default(),
    });
    let taken = take(tier.clone(), b"the real kubeadm", dir.path()).await;
    assert_eq!(
        taken, None,
        "the forged ISO the transfer ended with is not used"
    );
    let refused = tier.refused.lock().expect("refusals").clone();
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(refused[0].contains("k8s/kubeadm hashes to"), "{refused:?}");
    assert!(
        !dir.path().join("taken.iso.partial").exists(),
        "nothing is left behind"
    );
}
