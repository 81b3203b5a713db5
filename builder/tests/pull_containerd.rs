//! Tarballs pulled from the real distribution registry are imported by the real containerd under
//! their full references with the registry's digests.

use crate::pull_common::{ORIGIN, TAGS, pushed, tar_blobs};
use cks_builder::registry::{Arch, PullWarning};
use cks_fixtures::containerd::Containerd;
use cks_fixtures::registry::Auth;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn containerd_imports_every_tarball_under_its_full_name_with_the_registry_digest() {
    let set = pushed(Auth::None, &TAGS);
    let out = set.out("amd64");
    let tags = ["multi", "amd64-only", "shared-a", "shared-b"];
    let report = set
        .pull(&tags, &out, &set.options(Arch::Amd64))
        .await
        .expect("pull");
    assert_eq!(report.images.len(), 4);
    let expected = [
        set.images.multi.digest.clone(),
        set.images.amd64_only.manifest.digest.clone(),
        set.images.shared_a.manifest.digest.clone(),
        set.images.shared_b.manifest.digest.clone(),
    ];
    for (image, digest) in report.images.iter().zip(&expected) {
        assert_eq!(&image.digest, digest, "{}", image.reference);
        assert!(
            image.reference.to_string().starts_with(ORIGIN),
            "keeps the original name: {}",
            image.reference
        );
    }
    let containerd = Containerd::start().expect("containerd starts");
    for image in &report.images {
        containerd
            .import(&image.tarball, None)
            .unwrap_or_else(|e| panic!("{e:#}\n{}", containerd.log()));
    }
    let listed = containerd.images().expect("ctr image ls");
    for image in &report.images {
        let found = listed
            .iter()
            .find(|l| l.name == image.reference)
            .unwrap_or_else(|| panic!("{} not in ctr image ls: {listed:?}", image.reference));
        assert_eq!(found.digest, image.digest, "{}", image.reference);
    }
    assert_eq!(listed.len(), 4, "{listed:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_arm64_tarball_of_a_two_platform_image_holds_only_arm64_blobs_and_imports() {
    let set = pushed(Auth::None, &["multi"]);
    let out = set.out("arm64");
    let report = set
        .pull(&["multi"], &out, &set.options(Arch::Arm64))
        .await
        .expect("pull");
    let image = &report.images[0];
    assert_eq!(
        image.digest, set.images.multi.digest,
        "the index digest is kept"
    );
    assert_eq!(
        image.platform_digest,
        set.images.multi_arm64.manifest.digest
    );
    let mut expected = set.images.multi_arm64.blob_digests();
    expected.push(set.images.multi.digest.clone());
    expected.sort();
    assert_eq!(tar_blobs(&image.tarball), expected);
    for amd64_blob in set.images.multi_amd64.blob_digests() {
        assert!(
            !tar_blobs(&image.tarball).contains(&amd64_blob),
            "amd64 blob {amd64_blob} present"
        );
    }
    let containerd = Containerd::start().expect("containerd starts");
    containerd
        .import(&image.tarball, Some("linux/arm64"))
        .unwrap_or_else(|e| panic!("{e:#}\n{}", containerd.log()));
    let listed = containerd.images().expect("ctr image ls");
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0].name, image.reference);
    assert_eq!(listed[0].digest, set.images.multi.digest);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shared_layers_are_fetched_once_per_build() {
    let set = pushed(Auth::None, &["shared-a", "shared-b"]);
    let out = set.out("shared");
    let mut options = set.options(Arch::Amd64);
    options.concurrency = 2;
    let report = set
        .pull(&["shared-a", "shared-b"], &out, &options)
        .await
        .expect("pull");
    // Two configs, two top layers, one shared base: five blobs over the network.
    assert_eq!(report.blobs_fetched, 5, "{report:?}");
    assert_eq!(report.blobs_reused, 1, "{report:?}");
    let base = &set.images.shared_a.layers[0].blob;
    assert_eq!(base, &set.images.shared_b.layers[0].blob);
    let in_tarballs: u64 = report.images.iter().map(|i| i.tarball_size).sum();
    assert_eq!(report.bytes_written, in_tarballs);
    for image in &report.images {
        assert!(tar_blobs(&image.tarball).contains(&base.digest));
    }
    assert!(report.bytes_fetched >= report.unique_bytes, "{report:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_single_platform_image_for_another_platform_is_left_out_or_refused_when_strict() {
    let set = pushed(Auth::None, &["arm-only", "amd64-only", "no-arm64"]);
    let out = set.out("skip");
    let report = set
        .pull(&["arm-only", "amd64-only"], &out, &set.options(Arch::Amd64))
        .await
        .expect("pull");
    assert_eq!(report.images.len(), 1);
    assert_eq!(report.skipped.len(), 1);
    assert_eq!(
        report.skipped[0].versions_line(),
        format!("skipped-image: {} linux/arm/v7", set.reference("arm-only"))
    );
    assert!(
        matches!(&report.warnings[0], PullWarning::SkippedPlatform { platform, .. } if platform == "linux/arm/v7")
    );
    assert!(
        report.warnings[0]
            .to_string()
            .contains(&set.reference("arm-only"))
    );
    assert!(!out.join("arm-only.tar").exists());

    let mut strict = set.options(Arch::Amd64);
    strict.strict_platforms = true;
    let err = set
        .pull(&["arm-only"], &set.out("strict"), &strict)
        .await
        .expect_err("strict");
    let text = err.to_string();
    assert!(
        text.contains("linux/arm/v7") && text.contains("--strict-platforms"),
        "{text}"
    );

    let err = set
        .pull(&["no-arm64"], &set.out("index"), &set.options(Arch::Arm64))
        .await
        .expect_err("no arm64 in the index");
    let text = err.to_string();
    assert!(
        text.contains("no manifest for linux/arm64") && text.contains("linux/amd64, linux/arm/v7"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_docker_manifest_list_is_kept_as_served_and_imports_with_its_digest() {
    let set = pushed(Auth::None, &[]);
    set.registry
        .push_docker_format(
            set.images.layout.path(),
            "multi",
            "test/docker-multi",
            "1.0",
        )
        .expect("skopeo push --format v2s2");
    let served = set
        .registry
        .served_digest("test/docker-multi", "1.0")
        .expect("inspect");
    assert_ne!(served, set.images.multi.digest, "skopeo converted it");
    for (arch, platform) in [(Arch::Amd64, "linux/amd64"), (Arch::Arm64, "linux/arm64")] {
        let out = set.out(platform.replace('/', "-").as_str());
        let report = set
            .pull(&["docker-multi"], &out, &set.options(arch))
            .await
            .expect("pull");
        let image = &report.images[0];
        assert_eq!(image.digest, served);
        assert_eq!(image.media_type, cks_builder::registry::DOCKER_LIST);
        assert_eq!(
            tar_blobs(&image.tarball).len(),
            4,
            "list, manifest, config, layer"
        );
        let containerd = Containerd::start().expect("containerd starts");
        containerd
            .import(&image.tarball, Some(platform))
            .unwrap_or_else(|e| panic!("{e:#}\n{}", containerd.log()));
        let listed = containerd.images().expect("ctr image ls");
        assert_eq!(listed.len(), 1, "{listed:?}");
        assert_eq!(
            (listed[0].name.as_str(), listed[0].digest.as_str()),
            (image.reference.to_string().as_str(), served.as_str())
        );
    }
}
