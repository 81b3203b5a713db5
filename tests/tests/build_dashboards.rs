//! The dashboards of a whole build against the demo upstream: the legacy dashboard only,
//! Headlamp only (for CloudStack 4.23) and both (`any`), each checked in the ISO (the files, the
//! Headlamp manifest pinned to the release's own image with `IfNotPresent`, that image's tarball
//! and digest), in `versions.txt` and in the SBOM, and by `verify`'s line fit.

use std::path::{Path, PathBuf};
use std::process::Command;

use cks_builder::pipeline::{Inputs, Request, Summary};
use cks_e2e::{demo_inputs, run_build, start_upstream, versions_txt_of};
use cks_fixtures::demo::{DemoConfig, DemoUpstream};
use cks_pinning::node_contract::Line;
use cks_pinning::versions_txt::VersionsTxt;
use serde_json::Value;

pub(crate) const HEADLAMP_IMAGE: &str = "ghcr.io/headlamp-k8s/headlamp:v0.40.1";
const HEADLAMP_URL: &str =
    "https://raw.githubusercontent.com/kubernetes-sigs/headlamp/v0.40.1/kubernetes-headlamp.yaml";

/// Which dashboards a build bundles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dashboards {
    Legacy,
    Headlamp,
    Both,
}

/// The demo inputs with `dashboards` (Headlamp only asks for CloudStack 4.23).
pub(crate) fn inputs(upstream: &DemoUpstream, out: &Path, dashboards: Dashboards) -> Inputs {
    let mut inputs = demo_inputs(upstream, out, "x86_64");
    match dashboards {
        Dashboards::Legacy => {}
        Dashboards::Headlamp => {
            inputs.dashboard_yaml = None;
            inputs.headlamp_version = Some(upstream.headlamp_version());
            inputs.cloudstack = Some("4.23".to_string());
        }
        Dashboards::Both => inputs.headlamp_version = Some(upstream.headlamp_version()),
    }
    inputs
}

/// Builds `dashboards` into `out`.
pub(crate) async fn build(upstream: &DemoUpstream, out: &Path, dashboards: Dashboards) -> Summary {
    run_build(&inputs(upstream, out, dashboards), Request::default())
        .await
        .unwrap_or_else(|e| panic!("the {dashboards:?} build: {e:#}"))
}

/// Extracts the whole ISO with the real xorriso into `dest`, left writable.
pub(crate) fn extract(iso: &Path, dest: &Path) {
    let status = Command::new("xorriso")
        .args(["-osirrox", "on", "-indev"])
        .arg(iso)
        .args(["-extract", "/"])
        .arg(dest)
        .stderr(std::process::Stdio::null())
        .status()
        .expect("xorriso runs");
    assert!(status.success(), "xorriso extracts {}", iso.display());
    let status = Command::new("chmod")
        .args(["-R", "u+w"])
        .arg(dest)
        .status()
        .expect("chmod runs");
    assert!(status.success());
}

fn read(dir: &Path, path: &str) -> Option<String> {
    std::fs::read_to_string(dir.join(path)).ok()
}

/// The SBOM package whose download location is `url`.
fn package<'a>(sbom: &'a Value, url: &str) -> Option<&'a Value> {
    sbom["packages"]
        .as_array()?
        .iter()
        .find(|p| p["downloadLocation"] == url)
}

/// Checks one built ISO: the dashboard files, the Headlamp pin, versions.txt, the SBOM and the fit.
fn check(upstream: &DemoUpstream, summary: &Summary, dashboards: Dashboards) {
    let dir = tempfile::tempdir().expect("extract dir");
    extract(&summary.iso, dir.path());
    let tree = dir.path();
    let headlamp = dashboards != Dashboards::Legacy;
    let legacy = dashboards != Dashboards::Headlamp;
    assert_eq!(
        tree.join("dashboard.yaml").is_file(),
        legacy,
        "{dashboards:?}"
    );
    assert_eq!(
        tree.join("headlamp.yaml").is_file(),
        headlamp,
        "{dashboards:?}"
    );
    let tarball = tree.join("docker/headlamp:v0.40.1.tar");
    assert_eq!(tarball.is_file(), headlamp, "{dashboards:?}");
    let versions = VersionsTxt::parse(&versions_txt_of(&summary.iso)).expect("versions.txt");
    let sbom: Value =
        serde_json::from_str(&read(tree, "sbom.spdx.json").expect("the SBOM")).expect("JSON");
    let report = cks_builder::inspect::verify(&summary.iso).expect("verify reads the ISO");
    assert!(report.is_clean(), "{report}");
    if !headlamp {
        assert_eq!(versions.headlamp, None);
        assert!(!versions.urls.iter().any(|u| u.contains("headlamp")));
        assert_eq!(report.fits.fitting(), Line::ALL);
        return;
    }
    // The manifest: one image changed to the release's own tag, pulled only when not present.
    let manifest = read(tree, "headlamp.yaml").expect("headlamp.yaml");
    assert_eq!(
        cks_pinning::manifest::images(&manifest).expect("valid"),
        [HEADLAMP_IMAGE]
    );
    let original = cks_fixtures::demo::manifests::HEADLAMP_TEXT;
    let old: Vec<&str> = original.lines().collect();
    let new: Vec<&str> = manifest.lines().collect();
    let at = old
        .iter()
        .position(|l| l.contains("headlamp:latest"))
        .expect("the release manifest's image line");
    assert_eq!(new.len(), old.len() + 1, "one line added");
    assert_eq!(&new[..at], &old[..at]);
    assert_eq!(new[at], old[at].replace(":latest", ":v0.40.1"));
    assert_eq!(new[at + 1].trim(), "imagePullPolicy: IfNotPresent");
    assert_eq!(&new[at + 2..], &old[at + 1..]);
    // The image, by the digest the registry serves, in versions.txt and the SBOM.
    let digest = upstream
        .digests()
        .get(HEADLAMP_IMAGE)
        .expect("the upstream publishes the Headlamp image")
        .clone();
    assert_eq!(versions.headlamp.as_deref(), Some("0.40.1"));
    assert!(
        versions.urls.iter().any(|u| u == HEADLAMP_URL),
        "{:?}",
        versions.urls
    );
    let pinned = format!("{HEADLAMP_IMAGE}@{digest}");
    assert!(
        versions.images.iter().any(|i| *i == pinned),
        "{pinned} not in {:?}",
        versions.images
    );
    let file = package(&sbom, HEADLAMP_URL).expect("an SBOM package for headlamp.yaml");
    assert_eq!(file["versionInfo"], "0.40.1", "{file}");
    let image_url = format!("https://ghcr.io/v2/headlamp-k8s/headlamp/manifests/{digest}");
    let image = package(&sbom, &image_url).expect("an SBOM package for the Headlamp image");
    assert_eq!(image["versionInfo"], "v0.40.1", "{image}");
    // The fit: Headlamp alone is for 4.23 only.
    match dashboards {
        Dashboards::Headlamp => {
            assert_eq!(report.fits.summary(), "fits: 4.23");
            let reasons = report.fits.reasons().join("\n");
            assert!(reasons.contains("not 4.22: no dashboard.yaml"), "{reasons}");
        }
        _ => assert_eq!(report.fits.summary(), "fits: 4.20, 4.22, 4.23"),
    }
}

/// Builds both dashboards writing a lock, and checks that it records the Headlamp release, its
/// manifest's URL and digest, and the image's digest.
async fn check_lock(upstream: &DemoUpstream) {
    let out = tempfile::tempdir().expect("out dir");
    let lock_path = out.path().join("cks.lock");
    let request = Request {
        write_lock: Some(lock_path.clone()),
        ..Request::default()
    };
    run_build(&inputs(upstream, out.path(), Dashboards::Both), request)
        .await
        .expect("the build with a lock");
    let lock: Value = serde_json::from_str(&std::fs::read_to_string(&lock_path).expect("the lock"))
        .expect("JSON");
    assert_eq!(lock["plan"]["headlamp"]["version"], "0.40.1", "{lock}");
    assert_eq!(lock["plan"]["headlamp"]["url"], HEADLAMP_URL);
    assert_eq!(lock["plan"]["headlamp"]["image"], HEADLAMP_IMAGE);
    assert_eq!(lock["plan"]["cloudstack"], "any");
    assert!(
        lock["files"]["headlamp.yaml"]
            .as_str()
            .is_some_and(|d| d.len() == 64),
        "{}",
        lock["files"]
    );
    assert_eq!(
        lock["images"][HEADLAMP_IMAGE].as_str(),
        upstream.digests().get(HEADLAMP_IMAGE).map(String::as_str),
        "{}",
        lock["images"]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn each_dashboard_combination_builds_pinned_and_recorded() {
    let upstream = start_upstream(DemoConfig::default()).await;
    for dashboards in [Dashboards::Legacy, Dashboards::Headlamp, Dashboards::Both] {
        let out = tempfile::tempdir().expect("out dir");
        let summary = build(&upstream, out.path(), dashboards).await;
        check(&upstream, &summary, dashboards);
    }
    check_lock(&upstream).await;
}

/// Where the real 4.22 node-side files are, when `../shared` is there.
pub(crate) fn cloudstack_file(relative: &str) -> Option<PathBuf> {
    cks_fixtures::shared::upstream(&format!(
        "cloudstack/plugins/integrations/kubernetes-service/src/main/resources/{relative}"
    ))
}
