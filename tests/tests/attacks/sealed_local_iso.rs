//! A finished ISO in the local `--cache-dir` is kept with a seal (its sha256's checkpoints and
//! what its check found): a rebuild proves the bytes are the sealed ones on every core and
//! compares the findings instead of hashing every file again. Each lie is played here, with the
//! bytes, the checkpoints, the findings or a whole other sealed ISO put in its place: each ends
//! with the entry not used, removed, and the right ISO built again.

use std::path::{Path, PathBuf};

use cks_builder::digest::chain::Checkpoint;
use cks_builder::pipeline::Inputs;
use cks_builder::pipeline::Request;
use cks_builder::store::Seal;
use cks_e2e::{run_build, start_upstream};
use cks_fixtures::demo::{DemoConfig, DemoUpstream};

use crate::build_cache_registry::support::without_signatures;

/// The one ISO entry in the cache folder's `iso/` and the seal beside it.
pub(super) fn entry(cache: &Path) -> (PathBuf, PathBuf) {
    let isos: Vec<_> = std::fs::read_dir(cache.join("iso"))
        .expect("the local ISO cache")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "iso"))
        .collect();
    assert_eq!(isos.len(), 1, "{isos:?}");
    let mut seal = isos[0].clone().into_os_string();
    seal.push(".seal");
    (isos[0].clone(), PathBuf::from(seal))
}

/// Breaks the hard link between the cache entry and the build's output (so only the cache's
/// bytes change), then lets `change` alter the entry's bytes.
pub(super) fn own_copy(iso: &Path, change: impl FnOnce(&mut Vec<u8>)) {
    let mut bytes = std::fs::read(iso).expect("the cached ISO");
    change(&mut bytes);
    std::fs::remove_file(iso).expect("unlink");
    std::fs::write(iso, bytes).expect("a copy");
}

/// How the kept entry is lied about before the rebuild.
enum Lie {
    /// One byte in the middle of the image changed; the sum and the seal untouched.
    Byte,
    /// A checkpoint whose state is not the hash's there.
    Checkpoint,
    /// A planned file's digest in the findings changed.
    Findings,
    /// Another build's sealed ISO (another build time) with its own sum and seal, under this
    /// recipe's key.
    OtherIso,
}

/// The demo build writing to `out`, with `cache` as its cache folder, built at `epoch`.
fn cached_at(upstream: &DemoUpstream, cache: &Path, out: &Path, epoch: i64) -> Inputs {
    let mut inputs = without_signatures(upstream, out);
    inputs.cache_dir = Some(cache.to_path_buf());
    inputs.source_date_epoch = Some(epoch);
    inputs
}

async fn rebuild_after(lie: Lie) {
    let upstream = start_upstream(DemoConfig::default()).await;
    let cache = tempfile::tempdir().expect("cache dir");
    let build = |out: &Path, epoch: i64| cached_at(&upstream, cache.path(), out, epoch);
    let first_out = tempfile::tempdir().expect("out");
    let first = run_build(&build(first_out.path(), 1_700_000_000), Request::default())
        .await
        .expect("the first build");
    let (iso, seal_path) = entry(cache.path());
    let seal = Seal::read(&seal_path).expect("the first build sealed its ISO");
    assert_eq!(seal.sha256, first.sha256);
    assert_eq!(seal.checkpoints.first().map(|c| c.offset), Some(0));
    assert!(!seal.facts.files.is_empty() && !seal.facts.images.is_empty());

    match lie {
        Lie::Byte => own_copy(&iso, |bytes| {
            let middle = bytes.len() / 2;
            bytes[middle] ^= 0xff;
        }),
        Lie::Checkpoint => {
            let mut lied = seal.clone();
            lied.checkpoints.push(Checkpoint {
                offset: 64 * 1024,
                state: [7; 8],
            });
            std::fs::write(&seal_path, lied.to_text()).expect("write the seal");
        }
        Lie::Findings => {
            let mut lied = seal.clone();
            let digest = lied.facts.files.values_mut().next().expect("a file");
            *digest = "0".repeat(64);
            std::fs::write(&seal_path, lied.to_text()).expect("write the seal");
        }
        Lie::OtherIso => {
            // A second cache folder gets the other build's sealed entry; its files go under
            // this recipe's name.
            let other_cache = tempfile::tempdir().expect("other cache");
            let other_out = tempfile::tempdir().expect("out");
            let mut inputs = build(other_out.path(), 1_700_000_999);
            inputs.cache_dir = Some(other_cache.path().to_path_buf());
            run_build(&inputs, Request::default())
                .await
                .expect("the other build");
            let (other_iso, other_seal) = entry(other_cache.path());
            let mut sum = other_iso.clone().into_os_string();
            sum.push(".sha256");
            let mut own_sum = iso.clone().into_os_string();
            own_sum.push(".sha256");
            std::fs::remove_file(&iso).expect("unlink");
            std::fs::copy(&other_iso, &iso).expect("the other ISO");
            std::fs::copy(&other_seal, &seal_path).expect("its seal");
            std::fs::copy(&sum, &own_sum).expect("its sum");
        }
    }

    let second_out = tempfile::tempdir().expect("out");
    let second = run_build(&build(second_out.path(), 1_700_000_000), Request::default())
        .await
        .expect("the second build");
    assert_eq!(
        second.sha256, first.sha256,
        "the lied-about entry was not used"
    );
    let actual = cks_builder::digest::sha256_file(&second.iso)
        .expect("hash the ISO")
        .into_hex();
    assert_eq!(
        actual, first.sha256,
        "the ISO written holds the right bytes"
    );
    assert!(
        second.phases.iter().any(|(phase, _)| phase == "pack"),
        "the ISO was packed again: {:?}",
        second.phases
    );
    let (iso, seal_path) = entry(cache.path());
    let again = cks_builder::digest::sha256_file(&iso)
        .expect("the cache holds the ISO again")
        .into_hex();
    assert_eq!(again, first.sha256, "the entry was replaced");
    assert_eq!(
        Seal::read(&seal_path).expect("sealed again").sha256,
        first.sha256
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_sealed_iso_is_taken_without_packing_when_nothing_lies() {
    let upstream = start_upstream(DemoConfig::default()).await;
    let cache = tempfile::tempdir().expect("cache dir");
    let build = |out: &Path| {
        let mut inputs = without_signatures(&upstream, out);
        inputs.cache_dir = Some(cache.path().to_path_buf());
        inputs
    };
    let first_out = tempfile::tempdir().expect("out");
    let first = run_build(&build(first_out.path()), Request::default())
        .await
        .expect("the first build");
    let (_, seal_path) = entry(cache.path());
    let sealed = std::fs::read_to_string(&seal_path).expect("sealed");
    let second_out = tempfile::tempdir().expect("out");
    let second = run_build(&build(second_out.path()), Request::default())
        .await
        .expect("the second build");
    assert_eq!(second.sha256, first.sha256);
    assert!(
        second.phases.iter().any(|(phase, _)| phase == "iso")
            && !second.phases.iter().any(|(phase, _)| phase == "pack"),
        "the sealed ISO was taken: {:?}",
        second.phases
    );
    assert_eq!(
        std::fs::read_to_string(&seal_path).expect("still sealed"),
        sealed,
        "the seal stands"
    );
    // The recipe the request ended with is noted for its next build, which proves the kept ISO
    // while it plans (the hint names the one entry).
    let (iso, _) = entry(cache.path());
    let recipe = iso
        .file_stem()
        .expect("a name")
        .to_string_lossy()
        .to_string();
    assert_eq!(hints(cache.path()), vec![recipe]);
}

/// The recipes noted in the cache folder's hints, one a request.
fn hints(cache: &Path) -> Vec<String> {
    std::fs::read_dir(cache.join("iso/last"))
        .expect("the hints")
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| std::fs::read_to_string(e.path()).expect("a hint"))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hint_naming_another_requests_iso_lends_it_nothing() {
    let upstream = start_upstream(DemoConfig::default()).await;
    let cache = tempfile::tempdir().expect("cache dir");
    let build = |out: &Path, epoch: i64| cached_at(&upstream, cache.path(), out, epoch);
    let (a_out, b_out) = (
        tempfile::tempdir().expect("out"),
        tempfile::tempdir().expect("out"),
    );
    let a = run_build(&build(a_out.path(), 1_700_000_000), Request::default())
        .await
        .expect("request A");
    let b = run_build(&build(b_out.path(), 1_700_000_999), Request::default())
        .await
        .expect("request B");
    assert_ne!(a.sha256, b.sha256);
    // Every hint now names A's ISO: B's rebuild begins proving A's bytes while it plans.
    let recipe_of = |sha256: &str| {
        std::fs::read_dir(cache.path().join("iso"))
            .expect("the ISO cache")
            .flatten()
            .map(|e| e.path())
            .find(|p| {
                p.extension().is_some_and(|e| e == "sha256")
                    && std::fs::read_to_string(p).is_ok_and(|t| t.trim() == sha256)
            })
            .and_then(|p| p.file_name()?.to_str()?.split('.').next().map(String::from))
            .expect("a kept ISO")
    };
    let a_recipe = recipe_of(&a.sha256);
    for hint in std::fs::read_dir(cache.path().join("iso/last"))
        .expect("hints")
        .flatten()
    {
        std::fs::write(hint.path(), &a_recipe).expect("write the hint");
    }
    let again = tempfile::tempdir().expect("out");
    let rebuilt = run_build(&build(again.path(), 1_700_000_999), Request::default())
        .await
        .expect("B again");
    assert_eq!(
        rebuilt.sha256, b.sha256,
        "B's own ISO, not the one the hint named"
    );
    assert_eq!(
        cks_builder::digest::sha256_file(&rebuilt.iso)
            .expect("hash the ISO")
            .into_hex(),
        b.sha256
    );
    assert!(
        !rebuilt.phases.iter().any(|(phase, _)| phase == "pack"),
        "B's kept ISO was taken: {:?}",
        rebuilt.phases
    );
    assert!(
        hints(cache.path()).contains(&recipe_of(&b.sha256)),
        "the hint names B's recipe again"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_changed_byte_under_an_intact_seal_is_found() {
    rebuild_after(Lie::Byte).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_lying_checkpoint_is_found() {
    rebuild_after(Lie::Checkpoint).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn lying_findings_are_found() {
    rebuild_after(Lie::Findings).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn another_builds_sealed_iso_under_this_key_is_found() {
    rebuild_after(Lie::OtherIso).await;
}
