//! Finished ISOs in the artifact store, layered in one place: the local `--cache-dir` folder
//! first (a hard link, hashed again against the digest it was kept with while the check reads
//! it), then the cache
//! registry (hashed as it streams in). Every entry is found by one key, the ISO's recipe
//! ([`ArtifactKey::Iso`]), and every hit passes the caller's check of a written ISO before it
//! is used; one that fails is not used (a local entry is removed, a cache registry's is warned
//! about once and replaced by the ISO the build then makes).

use std::future::Future;
use std::path::Path;
use std::sync::{Arc, Mutex};

use super::early_proof::{EarlyProof, LastRecipe};
use super::iso_check::Proof;
use super::refusal::IsoRefusal;
use super::seal::{Seal, SealFacts};
use crate::artifact::{ArtifactKey, Kept, Landing, Layer, Layers, Note, SharedTier};
use crate::digest::chain::{self, ChainError};
use crate::follow::Watermark;
use crate::iso::Packed;
use crate::progress::ProgressSink;

/// The text kept beside a local ISO: its sha256.
pub(super) const SUM: &str = "sha256";

/// The other text kept beside a local ISO: its seal ([`super::seal`]).
pub(super) const SEAL: &str = "seal";

/// The threads that hash a sealed ISO: one a core.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// The finished ISOs of a build's caches.
#[derive(Debug, Clone)]
pub struct IsoStore {
    layers: Layers,
    /// Where the recipe this request ends with is noted, for its next build.
    last: Option<LastRecipe>,
    /// The proof of the ISO the last build of this request ended with, begun before the plan.
    early: Arc<Mutex<Option<EarlyProof>>>,
}

/// An ISO the store served that passed the check.
#[derive(Debug)]
pub struct IsoHit<T> {
    /// Its sha256, lower-case hex.
    pub sha256: String,
    /// What the check made of it.
    pub checked: T,
}

impl IsoStore {
    /// The ISOs kept in the folder `local` and the cache registry `shared`, where given.
    pub fn new(local: Option<&Path>, shared: Option<&SharedTier>) -> Self {
        IsoStore {
            layers: Layers::new(local, "iso", &[SUM, SEAL], shared),
            last: None,
            early: Arc::default(),
        }
    }

    /// The same store, noting each recipe it serves or keeps in `last`, and taking the proof
    /// `early` (begun from that note) for the recipe it was begun for.
    pub fn with_last(self, last: Option<LastRecipe>, early: Option<EarlyProof>) -> Self {
        IsoStore {
            last,
            early: Arc::new(Mutex::new(early)),
            ..self
        }
    }

    /// Stops the early proof, if one runs (the build asks for no ISO).
    pub fn stop_early(&self) {
        drop(self.take_early());
    }

    fn take_early(&self) -> Option<EarlyProof> {
        self.early.lock().ok().and_then(|mut early| early.take())
    }

    fn note_last(&self, key: &ArtifactKey) {
        if let Some(last) = &self.last {
            last.note(&key.local_name());
        }
    }

    /// Whether there is neither a local folder nor a shared tier (nothing to ask or keep).
    pub fn is_empty(&self) -> bool {
        self.layers.is_empty()
    }

    /// Whether asking can find nothing: no shared tier, and a local folder that holds no ISO
    /// (a first build need not learn its recipe before it downloads).
    pub fn holds_none(&self) -> bool {
        self.layers.holds_none()
    }

    /// The ISO `key` at `partial`, from the local folder and then the cache registry, once
    /// `check` (given the file, and what is proven of it: see [`Proof`]) says it is the one this
    /// build would write; `None` when neither holds one that passes (nothing is left at
    /// `partial`). A check that passes gives what it found, to seal the ISO with. An ISO from
    /// the cache registry is checked behind its transfer, and again after it when the transfer
    /// started over.
    pub async fn find<T, F, Fut>(
        &self,
        key: &ArtifactKey,
        partial: &Path,
        progress: &dyn ProgressSink,
        check: F,
    ) -> anyhow::Result<Option<IsoHit<T>>>
    where
        F: Fn(Proof) -> Fut,
        Fut: Future<Output = anyhow::Result<Result<(T, SealFacts), IsoRefusal>>>,
    {
        let early = self.take_early();
        if let Some(hit) = self.find_local(key, partial, early, &check).await? {
            self.note_last(key);
            return Ok(Some(hit));
        }
        if !self.layers.has_shared() {
            return Ok(None);
        }
        let mark = Watermark::new();
        let about = format!("ISO {}", key.record_key());
        let landing = Landing {
            file: partial,
            about: &about,
            progress,
            mark: Some(&mark),
        };
        let (hit, behind) = tokio::join!(
            self.layers.take_shared(key, landing),
            check(Proof::Following(mark.clone()))
        );
        let Some(hit) = hit else {
            let _ = std::fs::remove_file(partial);
            return Ok(None);
        };
        let checked = match (mark.spoilt(), behind) {
            (false, behind) => behind?,
            // The transfer started over: what the check read may not be what the file holds.
            (true, _) => check(Proof::Nothing).await?,
        };
        match checked {
            Ok((checked, facts)) => {
                let seal = (!hit.checkpoints.is_empty()).then(|| {
                    Seal {
                        sha256: hit.sha256.clone(),
                        checkpoints: hit.checkpoints,
                        facts,
                    }
                    .to_text()
                });
                self.layers
                    .keep_local(key, partial, &sides(&hit.sha256, seal.as_deref()));
                self.note_last(key);
                Ok(Some(IsoHit {
                    sha256: hit.sha256,
                    checked,
                }))
            }
            Err(reason) => {
                let reason = reason.to_string();
                self.layers
                    .refuse(Layer::Shared, key, &about, partial, &reason);
                Ok(None)
            }
        }
    }

    /// The ISO `key` from the local folder at `partial`, checked: under its seal, the bytes
    /// proven by the chain of its sha256 on every core while `check` compares the sealed
    /// findings; without one, hashed once (noting checkpoints) while `check` reads every file,
    /// and sealed when it passes. One that fails is removed.
    async fn find_local<T, F, Fut>(
        &self,
        key: &ArtifactKey,
        partial: &Path,
        early: Option<EarlyProof>,
        check: &F,
    ) -> anyhow::Result<Option<IsoHit<T>>>
    where
        F: Fn(Proof) -> Fut,
        Fut: Future<Output = anyhow::Result<Result<(T, SealFacts), IsoRefusal>>>,
    {
        let Some(kept) = self.layers.take_local(key, SUM, partial) else {
            return Ok(None);
        };
        let kept = kept.trim().to_string();
        let seal = self
            .layers
            .local_side_path(key, SEAL)
            .and_then(|path| Seal::read(&path).ok())
            .filter(|seal| seal.sha256 == kept);
        let outcome = match seal {
            Some(seal) => {
                let whole = async {
                    let begun = match early {
                        Some(early) => {
                            let recipe = key.local_name();
                            let (sha256, points) = (&seal.sha256, &seal.checkpoints);
                            early.outcome_for(&recipe, partial, sha256, points).await
                        }
                        None => None,
                    };
                    if let Some(outcome) = begun {
                        return outcome;
                    }
                    let (partial, points) = (partial.to_path_buf(), seal.checkpoints.clone());
                    tokio::task::spawn_blocking(move || {
                        chain::verify_file(&partial, &points, cores())
                    })
                    .await
                    .unwrap_or_else(|error| Err(ChainError::Read(std::io::Error::other(error))))
                };
                let facts = seal.facts.clone();
                let (whole, checked) = tokio::join!(whole, check(Proof::Sealed(facts)));
                match (whole, checked?) {
                    (Ok(actual), Ok((checked, _))) if actual == kept => Ok(checked),
                    (Ok(actual), Ok(_)) => Err(IsoRefusal::Unproven(format!(
                        "it hashes to {actual}, not {kept}"
                    ))),
                    (Err(error), _) => Err(IsoRefusal::Unproven(error.to_string())),
                    (_, Err(reason)) => Err(reason),
                }
            }
            None => {
                let whole = {
                    let partial = partial.to_path_buf();
                    tokio::task::spawn_blocking(move || chain::noted_file(&partial))
                };
                let (whole, checked) = tokio::join!(whole, check(Proof::Nothing));
                match (whole, checked?) {
                    (Ok(Ok((actual, checkpoints))), Ok((checked, facts)))
                        if actual.hex() == kept =>
                    {
                        let seal = Seal {
                            sha256: kept.clone(),
                            checkpoints,
                            facts,
                        };
                        self.layers.keep_local_side(key, SEAL, &seal.to_text());
                        Ok(checked)
                    }
                    (Ok(Ok((actual, _))), Ok(_)) => Err(IsoRefusal::Unproven(format!(
                        "it hashes to {}, not {kept}",
                        actual.hex()
                    ))),
                    (Ok(Err(error)), _) => Err(IsoRefusal::Unproven(error.to_string())),
                    (Err(error), _) => Err(IsoRefusal::Unproven(error.to_string())),
                    (_, Err(reason)) => Err(reason),
                }
            }
        };
        match outcome {
            Ok(checked) => Ok(Some(IsoHit {
                sha256: kept,
                checked,
            })),
            Err(reason) => {
                let about = format!("ISO {}", key.record_key());
                let reason = reason.to_string();
                self.layers
                    .refuse(Layer::Local, key, &about, partial, &reason);
                Ok(None)
            }
        }
    }

    /// Keeps the ISO `packed` as `key`: in the local folder, sealed with `facts` (what the
    /// build verified of what it packed), and with `record` (what the build reports of it) in
    /// the cache registry (pushed after it was written and hashed; failures are the registry's
    /// warnings). Best effort.
    pub async fn keep(
        &self,
        key: &ArtifactKey,
        packed: &Packed,
        facts: Option<SealFacts>,
        record: Option<String>,
    ) {
        let seal = match facts {
            Some(facts) if !packed.checkpoints.is_empty() => Some(
                Seal {
                    sha256: packed.sha256.clone(),
                    checkpoints: packed.checkpoints.clone(),
                    facts,
                }
                .to_text(),
            ),
            _ => None,
        };
        let sides = sides(&packed.sha256, seal.as_deref());
        self.note_last(key);
        let Some(record) = record else {
            self.layers.keep_local(key, &packed.path, &sides);
            return;
        };
        let kept = Kept {
            path: &packed.path,
            sha256: &packed.sha256,
            size: packed.size,
            note: Note::Record(record),
        };
        self.layers.keep(key, &sides, kept).await;
    }
}

/// The texts kept beside a local ISO: its sha256, and its seal where there is one.
fn sides<'t>(sha256: &'t str, seal: Option<&'t str>) -> Vec<(&'static str, &'t str)> {
    let mut sides = vec![(SUM, sha256)];
    sides.extend(seal.map(|seal| (SEAL, seal)));
    sides
}
