//! A finished ISO taken from a cache before anything large is fetched, and only after it is
//! checked as thoroughly as this build's own would be.
//!
//! What the build knows on its own comes first, from small requests and no cache: each planned
//! file's digest (the lock's pin, or the checksum its publisher publishes; the small files were
//! fetched in the first phase) and each image's digest (the lock's, or the tag's at its
//! registry). Those give the recipe key ([`super::iso_recipe`]) the ISO is looked up by, in the
//! local `--cache-dir` (re-hashed against the digest it was kept with) and then in the cache
//! registry (hashed as it streams in). Whichever it is, the ISO is then read once: exactly the
//! planned files with those digests and modes, each image tarball byte for byte the one this
//! build writes for that digest ([`crate::registry::TarballCheck`]), and `versions.txt` and the
//! SBOM byte for byte the ones this build renders from all that, its own signature checks
//! included. A forged ISO whose generated files agree with its own bytes fails there: they
//! must agree with what the build knows. An ISO that fails is not used (a cache registry's is
//! warned about once and replaced by the ISO the build then makes).

use std::path::Path;

use anyhow::{Context, Result};
use cks_pinning::limits::Limits;
use cks_pinning::versions_txt::{FILE_NAME as VERSIONS_TXT, FileEntry};

use super::execution::Execution;
use super::iso_recipe::{IsoRecord, Reused, recipe_key};
use super::plan::Plan;
use super::record::record_of;
use super::sbom;
use super::sources::file_spec;
use crate::artifact::ArtifactKey;
use crate::fetch::FetchedFile;
use crate::iso::{BuildTime, Packed, partial_path, sidecar_line, sidecar_path};
use crate::registry::{PullReport, PulledImage, RemoteName, resolve_digests};
use crate::store::{IsoContents, IsoRefusal, IsoStore, IsoWant, Proof, SealFacts, check_iso};
use crate::upstream_signatures::ImagesAhead;
use cks_pinning::digest::Digest;

/// What the build knows of the ISO it is about to make, without any cache.
struct Known {
    /// Every planned file as the build records it, in plan order (sizes filled from the ISO).
    files: Vec<FetchedFile>,
    /// Each planned image's digest, in plan order.
    digests: Vec<Digest>,
}

impl Known {
    /// What the lock, the publishers and the registries say; `None` when something cannot be
    /// known this way (a large file edited after its download, an answer that fails: the long
    /// way then reports it).
    async fn learn(
        plan: &Plan,
        tree: &Path,
        fetched: &[FetchedFile],
        run: &Execution<'_>,
    ) -> Option<Known> {
        let mut files = Vec::new();
        let mut asks = Vec::new();
        for source in &plan.files {
            if let Some(f) = fetched.iter().find(|f| f.name == source.iso_path) {
                // A manifest edited in the tree after its download says the bytes there.
                files.push(Some(f.clone()));
                continue;
            }
            if source.edit.is_some() {
                return None;
            }
            files.push(None);
            asks.push(file_spec(source, tree));
        }
        let answers = futures_util::future::join_all(
            asks.iter().map(|spec| run.fetcher.expected_sha256(spec)),
        );
        let digests = async {
            if let Some(digests) = plan.images.iter().map(|i| i.digest.clone()).collect() {
                return Some(digests);
            }
            let requests = plan.image_requests();
            resolve_digests(&requests, &run.pull).await.ok()
        };
        let (answers, digests) = tokio::join!(answers, digests);
        let mut answers = asks.into_iter().zip(answers);
        let files = files
            .into_iter()
            .map(|known| match known {
                Some(file) => Some(file),
                None => {
                    let (spec, answer) = answers.next()?;
                    let expected = answer.ok()??;
                    Some(FetchedFile {
                        name: spec.name.clone(),
                        dest: spec.dest.clone(),
                        url: expected.url.clone(),
                        url_used: expected.url,
                        sha256: expected.sha256.clone(),
                        upstream_sha256: expected.sha256,
                        bytes: 0,
                        checksum: expected.status,
                        from_cache: true,
                        attempts: 0,
                    })
                }
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Known {
            files,
            digests: digests?,
        })
    }

    /// The recipe key of this knowledge.
    fn key(&self, plan: &Plan, built: i64, signatures: &str) -> Result<String> {
        let lines: Vec<_> = self
            .files
            .iter()
            .map(|f| (f.name.clone(), f.url.clone(), f.upstream_sha256.clone()))
            .collect();
        let digests: Vec<String> = self.digests.iter().map(ToString::to_string).collect();
        recipe_key(plan, built, signatures, &lines, &digests)
    }

    /// What the ISO must hold, its image tarballs read within `limits`.
    fn want(&self, plan: &Plan, limits: Limits) -> Result<IsoWant> {
        let mut want = IsoWant {
            volume_id: plan.volume_id.clone(),
            arch: Some(plan.arch),
            generated: vec![VERSIONS_TXT.to_string(), sbom::FILE_NAME.to_string()],
            limits,
            ..IsoWant::default()
        };
        for (source, file) in plan.files.iter().zip(&self.files) {
            want.files
                .insert(source.iso_path.clone(), (file.sha256.clone(), source.mode));
        }
        for (image, digest) in plan.images.iter().zip(&self.digests) {
            let name = RemoteName::parse(&image.reference.to_string())
                .with_context(|| format!("image {}", image.reference))?;
            want.images.insert(
                format!("docker/{}", image.tarball),
                (name.full, digest.to_string()),
            );
        }
        Ok(want)
    }
}

/// The ISO of this recipe from `store` (the local cache, then the cache registry), checked, in
/// place at the plan's path; `None` (the build goes the long way) when neither holds one that
/// passes, or there is no store to ask.
pub async fn reuse(
    plan: &Plan,
    tree: &Path,
    fetched: &[FetchedFile],
    run: &Execution<'_>,
    store: &IsoStore,
    built: BuildTime,
) -> Result<Option<Reused>> {
    if store.holds_none() || run.write_lock.is_some() {
        return Ok(None);
    }
    let Some(known) = Known::learn(plan, tree, fetched, run).await else {
        return Ok(None);
    };
    let key = ArtifactKey::Iso {
        recipe: known.key(plan, built.unix_seconds, &run.signatures.recipe())?,
    };
    let partial = partial_path(&plan.iso);
    let check = |proof| check(&partial, plan, tree, &known, run, built, proof);
    let Some(hit) = store.find(&key, &partial, run.progress, check).await? else {
        return Ok(None);
    };
    install(plan, &partial, hit.sha256, hit.checked, built).map(Some)
}

/// The ISO already at the plan's path (hashing to `sha256`, as the caller found), kept when it
/// passes the same check as a cached one; what differs otherwise. Without `SOURCE_DATE_EPOCH`
/// the build time is the one the ISO's `versions.txt` records (its own build's start).
pub async fn in_place(
    plan: &Plan,
    tree: &Path,
    fetched: &[FetchedFile],
    run: &Execution<'_>,
    built: BuildTime,
    sha256: &str,
) -> Result<Result<Reused, IsoRefusal>> {
    let checked = match check_in_place(plan, tree, fetched, run, built).await? {
        Ok(checked) => checked,
        Err(reason) => return Ok(Err(reason)),
    };
    let (checked, built) = checked;
    for (suffix, text) in &checked.record.beside {
        let mut path = plan.iso.as_os_str().to_owned();
        path.push(suffix);
        super::staging::write_atomically(Path::new(&path), text.as_bytes())?;
    }
    let size = std::fs::metadata(&plan.iso)
        .with_context(|| format!("reading {}", plan.iso.display()))?
        .len();
    Ok(Ok(Reused {
        packed: Packed {
            path: plan.iso.clone(),
            sidecar: sidecar_path(&plan.iso),
            size,
            sha256: sha256.to_string(),
            checkpoints: Vec::new(),
            time: built,
            warnings: Vec::new(),
        },
        record: checked.record,
    }))
}

/// The check of [`in_place`] alone, writing nothing beside the ISO: what `release --dry-run`
/// asks of an ISO in the folder. The ISO passed, at that build time, or why not.
pub(super) async fn check_in_place(
    plan: &Plan,
    tree: &Path,
    fetched: &[FetchedFile],
    run: &Execution<'_>,
    built: BuildTime,
) -> Result<Result<(Checked, BuildTime), IsoRefusal>> {
    let Some(known) = Known::learn(plan, tree, fetched, run).await else {
        return Ok(Err(IsoRefusal::Unknowable));
    };
    let built = match run.source_date_epoch {
        Some(_) => built,
        None => match crate::register::iso_facts::versions_txt(&plan.iso)
            .ok()
            .and_then(|v| v.built)
        {
            Some(seconds) => BuildTime {
                unix_seconds: seconds,
                source: crate::iso::TimeSource::BuildStart,
            },
            None => return Ok(Err(IsoRefusal::NoBuildTime)),
        },
    };
    Ok(
        check(&plan.iso, plan, tree, &known, run, built, Proof::Nothing)
            .await?
            .map(|(checked, _)| (checked, built)),
    )
}

/// What the ISO at `path` is reported as, once it holds what `known` says and its generated
/// files are the ones this build renders, with what the check found (to seal it with); what
/// differs otherwise (an error only for what would fail the build anyway: a signature refused
/// under `require`). `proof` says what is proven of its bytes already (then the findings of its
/// seal stand in for hashing its files again) or that it is read behind its transfer.
async fn check(
    path: &Path,
    plan: &Plan,
    tree: &Path,
    known: &Known,
    run: &Execution<'_>,
    built: BuildTime,
    proof: Proof,
) -> Result<Result<(Checked, SealFacts), IsoRefusal>> {
    let mut want = known.want(plan, run.pull.limits)?;
    want.proof = proof;
    let iso = path.to_path_buf();
    // Beside the tree, in the build's temporary directory (`--tmp-dir`), never in TMPDIR.
    let scratch = tempfile::Builder::new()
        .prefix("iso-check-")
        .tempdir_in(tree.parent().unwrap_or(tree))
        .context("creating a scratch folder")?;
    // The signatures need only the files' and images' digests: they are checked (small
    // requests) while the ISO is read.
    let named = PullReport {
        images: plan
            .images
            .iter()
            .zip(&known.digests)
            .map(|(image, digest)| PulledImage {
                reference: image.reference.clone(),
                digest: digest.clone(),
                media_type: String::new(),
                platform_digest: digest.clone(),
                platform: String::new(),
                tarball: tree.join("docker").join(&image.tarball),
                tarball_size: 0,
                tarball_sha256: String::new(),
                blobs: Vec::new(),
            })
            .collect(),
        ..PullReport::default()
    };
    let (contents, signatures) = tokio::join!(
        tokio::task::spawn_blocking(move || check_iso(&iso, &want)),
        run.signatures.check(
            &plan.files,
            &known.files,
            run.material,
            &named,
            run.fetcher,
            &run.pull,
            ImagesAhead::default(),
            scratch.path(),
        ),
    );
    let contents = match contents.context("checking the ISO stopped")? {
        Ok(contents) => contents,
        Err(reason) => return Ok(Err(reason)),
    };
    let signatures = signatures?;
    let (files, report) = reported(plan, tree, known, &contents);
    let mut entries: Vec<FileEntry> = files
        .iter()
        .map(|f| FileEntry {
            path: f.name.clone(),
            sha256: f.sha256.clone(),
        })
        .chain(report.images.iter().map(|i| FileEntry {
            path: tree_path(tree, &i.tarball),
            sha256: i.tarball_sha256.trim_start_matches("sha256:").to_string(),
        }))
        .collect();
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    let mut versions = record_of(plan, &files, &report, entries, built.unix_seconds)?;
    versions.signatures = signatures.entries.clone();
    let versions_text = versions.render()?;
    let layers = report
        .images
        .iter()
        .map(|i| {
            contents
                .images
                .get(&tree_path(tree, &i.tarball))
                .map(|f| f.layers.clone())
                .unwrap_or_default()
        })
        .collect();
    let sbom_text = sbom::document(plan, &versions, &files, &report, tree, layers)?;
    for (name, text) in [
        (VERSIONS_TXT, &versions_text),
        (sbom::FILE_NAME, &sbom_text),
    ] {
        if contents.generated.get(name).map(Vec::as_slice) != Some(text.as_bytes()) {
            return Ok(Err(IsoRefusal::NotRendered(name.to_string())));
        }
    }
    let record = IsoRecord {
        files: versions.files.len() + 2,
        images: report.images.len(),
        warnings: signatures.warnings,
        notes: signatures.notes,
        beside: [(sbom::BESIDE_SUFFIX.to_string(), sbom_text)].into(),
    };
    Ok(Ok((Checked { record }, contents.facts)))
}

/// An ISO that passed, with what the build reports of it.
pub(super) struct Checked {
    record: IsoRecord,
}

/// The files and the pull report the build would have for the ISO's contents.
fn reported(
    plan: &Plan,
    tree: &Path,
    known: &Known,
    contents: &IsoContents,
) -> (Vec<FetchedFile>, PullReport) {
    let mut files = known.files.clone();
    for file in &mut files {
        if let Some(size) = contents.sizes.get(&file.name) {
            file.bytes = *size;
        }
    }
    let mut report = PullReport::default();
    for (image, digest) in plan.images.iter().zip(&known.digests) {
        let tarball = tree.join("docker").join(&image.tarball);
        let Some(facts) = contents.images.get(&tree_path(tree, &tarball)) else {
            continue;
        };
        report.images.push(PulledImage {
            reference: image.reference.clone(),
            digest: digest.clone(),
            media_type: facts.media_type.clone(),
            platform_digest: facts.platform_digest.clone(),
            platform: facts.platform.clone(),
            tarball,
            tarball_size: facts.size,
            tarball_sha256: facts.sha256.clone(),
            blobs: facts.blobs.clone(),
        });
    }
    (files, report)
}

/// `path`'s place in the tree, `/`-separated.
fn tree_path(tree: &Path, path: &Path) -> String {
    path.strip_prefix(tree)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

/// Puts the checked ISO at `partial` (whose sha256 is `sha256`) in place at the plan's path,
/// with its sidecar and the SBOM beside it.
fn install(
    plan: &Plan,
    partial: &Path,
    sha256: String,
    checked: Checked,
    built: BuildTime,
) -> Result<Reused> {
    let name = plan
        .iso
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let sidecar = sidecar_path(&plan.iso);
    let sidecar_partial = partial_path(&sidecar);
    let size = std::fs::metadata(partial)
        .with_context(|| format!("reading {}", partial.display()))?
        .len();
    std::fs::write(&sidecar_partial, sidecar_line(&sha256, &name))
        .and_then(|()| std::fs::rename(partial, &plan.iso))
        .and_then(|()| std::fs::rename(&sidecar_partial, &sidecar))
        .with_context(|| format!("writing {}", plan.iso.display()))?;
    for (suffix, text) in &checked.record.beside {
        let mut path = plan.iso.as_os_str().to_owned();
        path.push(suffix);
        super::staging::write_atomically(Path::new(&path), text.as_bytes())?;
    }
    let packed = Packed {
        path: plan.iso.clone(),
        sidecar,
        size,
        sha256,
        checkpoints: Vec::new(),
        time: built,
        warnings: Vec::new(),
    };
    Ok(Reused {
        packed,
        record: checked.record,
    })
}
