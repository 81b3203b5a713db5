//! A pusher to the shared cache registry: its runner's upstream served a kubeadm that writes a
//! marker when it runs (with a checksum to match), so it pushed that kubeadm under the real
//! URL and an ISO holding it (whose versions.txt and SBOM agree with its own bytes); then it
//! re-points the honest runners' finished-ISO entry at that ISO. The next honest runner never
//! runs the kubeadm, never ships it, and gives the ISO a clean build gives; it pushes the true
//! entries back in place of the forged ones. The ISO entry re-pointed at bytes that are no ISO
//! at all is refused the same way.

use cks_builder::cache_registry::file_tag;
use cks_builder::pipeline::Request;
use cks_builder::upstream_signatures::Mode;
use cks_e2e::{demo_inputs, run_build, start_upstream};
use cks_fixtures::demo::DemoConfig;

use super::poison::{SwappedKubeadm, artifact, repoint, tags};
use crate::build_cache_registry::support::{CacheServer, cache_warnings, runner_inputs};

#[tokio::test(flavor = "multi_thread")]
async fn a_pusher_cannot_make_a_runner_run_or_ship_its_kubeadm_or_take_its_iso() {
    let upstream = start_upstream(DemoConfig::default()).await;
    let storage = tempfile::tempdir().expect("registry storage");
    let cache = CacheServer::start(storage.path(), false);
    let scratch = tempfile::tempdir().expect("scratch");
    let marker = scratch.path().join("kubeadm-ran");
    let honest = |name: &str| {
        let out = scratch.path().join(name).join("out");
        let dir = scratch.path().join(name).join("cache");
        std::fs::create_dir_all(&out).expect("out");
        let mut inputs = runner_inputs(&upstream, &out, &dir, &cache.url());
        // The signatures are checked as by default (the demo's are signed by its test root).
        inputs.signatures = demo_inputs(&upstream, &out, "x86_64").signatures;
        inputs.signatures.mode = Some(Mode::Warn);
        inputs
    };

    // A clean build of the honest inputs, through the cache registry.
    let clean = run_build(&honest("a"), Request::default())
        .await
        .expect("runner A");
    let iso_tags = tags(storage.path(), "cks-iso-");
    assert_eq!(iso_tags.len(), 1, "runner A pushed its ISO");
    let honest_iso = iso_tags[0].clone();
    let kubeadm_url = format!(
        "https://dl.k8s.io/release/v{}/bin/linux/amd64/kubeadm",
        upstream.config().kubernetes
    );
    let kubeadm_tag = file_tag(&kubeadm_url);
    let honest_kubeadm = artifact(storage.path(), &kubeadm_tag)["layers"][0]["digest"].clone();

    // The pusher's runner: its upstream's kubeadm is the marker one, with a checksum to
    // match; it checks no signature, so it runs that kubeadm and pushes what it made.
    {
        let _swapped = SwappedKubeadm::install(&upstream, &marker, true);
        let out = scratch.path().join("pusher/out");
        std::fs::create_dir_all(&out).expect("out");
        let pusher = runner_inputs(
            &upstream,
            &out,
            &scratch.path().join("pusher/cache"),
            &cache.url(),
        );
        let forged = run_build(&pusher, Request::default())
            .await
            .expect("the pusher's build");
        assert_ne!(forged.sha256, clean.sha256);
        assert!(marker.exists(), "the pusher's runner ran its kubeadm");
        std::fs::remove_file(&marker).expect("remove the marker");
        let forged_kubeadm = artifact(storage.path(), &kubeadm_tag)["layers"][0]["digest"].clone();
        assert_ne!(
            forged_kubeadm, honest_kubeadm,
            "the kubeadm entry is swapped"
        );
        // The forged ISO, under the honest runners' key: it agrees with itself (its
        // versions.txt and SBOM name its own bytes) but not with what they know.
        let forged_digest = format!("sha256:{}", forged.sha256);
        repoint(storage.path(), &honest_iso, &forged_digest, forged.size);
    }
    let entry = artifact(storage.path(), &honest_iso);
    assert_ne!(
        entry["layers"][0]["digest"],
        serde_json::Value::from(format!("sha256:{}", clean.sha256)),
        "the honest runners' ISO entry now names the forged ISO"
    );

    let b = run_build(&honest("b"), Request::default())
        .await
        .expect("runner B builds despite the forgeries");
    assert_eq!(
        b.sha256, clean.sha256,
        "runner B gives the clean ISO's bytes"
    );
    assert!(
        !marker.exists(),
        "the swapped kubeadm never ran on runner B"
    );
    let warnings = cache_warnings(&b);
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("not what this build makes") && w.contains("kubeadm")),
        "one warning names the forged ISO and what differs: {warnings:?}"
    );
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let stats = b.cache_registry.expect("statistics");
    assert_eq!((stats.iso.hits, stats.iso.pushed), (0, 1), "{stats:?}");

    // Runner B pushed the true entries in place of the forged ones.
    assert_eq!(
        artifact(storage.path(), &kubeadm_tag)["layers"][0]["digest"],
        honest_kubeadm,
        "the swapped kubeadm was not pushed back: the true one replaced it"
    );
    assert_eq!(
        artifact(storage.path(), &honest_iso)["layers"][0]["digest"],
        serde_json::Value::from(format!("sha256:{}", clean.sha256)),
        "the forged ISO entry was replaced by the clean ISO"
    );

    // Runner C takes the clean ISO from the cache registry.
    let c = run_build(&honest("c"), Request::default())
        .await
        .expect("runner C");
    assert_eq!(c.sha256, clean.sha256);
    assert_eq!(c.cache_registry.expect("statistics").iso.hits, 1);
    assert!(!marker.exists());

    // The ISO entry re-pointed at bytes that are no ISO at all (the kubeadm file's blob).
    let kubeadm_entry = artifact(storage.path(), &kubeadm_tag);
    let other = kubeadm_entry["layers"][0]["digest"]
        .as_str()
        .expect("a digest")
        .to_string();
    let size = kubeadm_entry["layers"][0]["size"].as_u64().expect("a size");
    repoint(storage.path(), &honest_iso, &other, size);
    let d = run_build(&honest("d"), Request::default())
        .await
        .expect("runner D");
    assert_eq!(
        d.sha256, clean.sha256,
        "runner D gives the clean ISO's bytes"
    );
    let warnings = cache_warnings(&d);
    assert!(
        warnings.len() == 1 && warnings[0].contains("not what this build makes"),
        "{warnings:?}"
    );
    drop(cache);
}
