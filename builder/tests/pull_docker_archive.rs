//! One tarball, two readers: the real `skopeo inspect docker-archive:` reads it as the Docker
//! archive `docker load` takes (manifest.json, repositories), and the real containerd imports the
//! same file as an OCI layout under its full name and the registry's digest.

use std::process::Command;

use crate::pull_common::{ORIGIN, pushed};
use cks_builder::registry::Arch;
use cks_fixtures::containerd::Containerd;
use cks_fixtures::registry::Auth;

/// `skopeo inspect docker-archive:<tarball>[:<repo tag>]` (a repo tag picks the image by the
/// `RepoTags` of `manifest.json`, failing when no entry has it).
fn skopeo_inspect(tarball: &std::path::Path, repo_tag: Option<&str>) -> serde_json::Value {
    let mut source = format!("docker-archive:{}", tarball.display());
    if let Some(tag) = repo_tag {
        source = format!("{source}:{tag}");
    }
    let output = Command::new("skopeo")
        .arg("inspect")
        .arg(&source)
        .output()
        .expect("skopeo runs");
    assert!(
        output.status.success(),
        "skopeo inspect {}: {}",
        tarball.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("skopeo prints JSON")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skopeo_reads_the_docker_archive_and_ctr_imports_the_same_file() {
    let set = pushed(Auth::None, &["multi", "amd64-only"]);
    let out = set.out("arm64");
    let report = set
        .pull(&["multi", "amd64-only"], &out, &set.options(Arch::Arm64))
        .await
        .expect("pull");
    // amd64-only is left out for arm64; the two-platform image is pulled for arm64.
    assert_eq!(report.images.len(), 1);
    let image = &report.images[0];
    let expected = &set.images.multi_arm64;

    let inspected = skopeo_inspect(&image.tarball, None);
    assert_eq!(inspected["Architecture"], "arm64", "{inspected}");
    assert_eq!(inspected["Os"], "linux", "{inspected}");
    // `docker load` tags the image with the full reference.
    let by_tag = skopeo_inspect(&image.tarball, Some(&format!("{ORIGIN}/test/multi:1.0")));
    assert_eq!(by_tag["Digest"], inspected["Digest"], "{by_tag}");
    let other = Command::new("skopeo")
        .arg("inspect")
        .arg(format!(
            "docker-archive:{}:{ORIGIN}/test/other:1.0",
            image.tarball.display()
        ))
        .output()
        .expect("skopeo runs");
    assert!(!other.status.success(), "no entry is tagged test/other");
    let layers = inspected["Layers"].as_array().expect("layers");
    assert_eq!(layers.len(), expected.layers.len(), "{inspected}");
    // The config skopeo reads is the arm64 image's config, byte for byte.
    let output = Command::new("skopeo")
        .args(["inspect", "--raw", "--config"])
        .arg(format!("docker-archive:{}", image.tarball.display()))
        .output()
        .expect("skopeo runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let config_digest = format!(
        "sha256:{}",
        hex::encode(<sha2::Sha256 as sha2::Digest>::digest(&output.stdout))
    );
    assert_eq!(config_digest, expected.config.digest);

    let containerd = Containerd::start().expect("containerd starts");
    containerd
        .import(&image.tarball, Some("linux/arm64"))
        .unwrap_or_else(|e| panic!("{e:#}\n{}", containerd.log()));
    let listed = containerd.images().expect("ctr image ls");
    let found = listed
        .iter()
        .find(|l| l.name == image.reference)
        .unwrap_or_else(|| panic!("{} not in ctr image ls: {listed:?}", image.reference));
    assert_eq!(found.digest, set.images.multi.digest);
    assert_eq!(listed.len(), 1, "only the one name is imported: {listed:?}");
}
