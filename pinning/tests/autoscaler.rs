//! Autoscaler tag resolution (issue point 2) on the real upstream listing and on our look-alike.

use std::path::Path;

use cks_fixtures::shared;
use cks_pinning::autoscaler::{AutoscalerError, AutoscalerWarning, RemoteTags, resolve};
use cks_pinning::version::KubeVersion;

fn listing(path: &Path) -> (String, RemoteTags) {
    let text = std::fs::read_to_string(path).expect("read the tag listing");
    let tags = RemoteTags::parse(&text).expect("the listing parses");
    (text, tags)
}

fn k8s(text: &str) -> KubeVersion {
    KubeVersion::parse(text).expect("valid version")
}

/// The sha the listing gives for `reference`, read straight from the text.
fn sha_of(text: &str, reference: &str) -> String {
    text.lines()
        .find_map(|line| {
            let (sha, name) = line.split_once('\t')?;
            (name == reference).then(|| sha.to_string())
        })
        .unwrap_or_else(|| panic!("{reference} is listed"))
}

fn resolves_to(text: &str, tags: &RemoteTags, kubernetes: &str, tag: &str) {
    let release = resolve(tags, &k8s(kubernetes), None).expect("a release for the minor");
    assert_eq!(release.tag, tag, "Kubernetes {kubernetes}");
    assert_eq!(
        release.version,
        tag.trim_start_matches("cluster-autoscaler-")
    );
    assert!(release.warnings.is_empty(), "{:?}", release.warnings);
    // Annotated tags: the commit is the peeled sha, not the tag object's.
    let peeled = format!("refs/tags/{tag}^{{}}");
    let expected = if text.lines().any(|line| line.ends_with(&peeled)) {
        sha_of(text, &peeled)
    } else {
        sha_of(text, &format!("refs/tags/{tag}"))
    };
    assert_eq!(release.commit, expected, "commit of {tag}");
}

fn no_release_tells_to_set_the_override(tags: &RemoteTags, kubernetes: &str) {
    let error = resolve(tags, &k8s(kubernetes), None).expect_err("no release");
    assert!(
        matches!(error, AutoscalerError::NoRelease { .. }),
        "{error:?}"
    );
    let message = error.to_string();
    let version = k8s(kubernetes);
    assert!(message.contains(&version.minor_line()), "{message}");
    assert!(message.contains("set AUTOSCALER_VERSION"), "{message}");
}

fn other_minor_override_warns(tags: &RemoteTags, version: &str, kubernetes: &str) {
    let release = resolve(tags, &k8s(kubernetes), Some(version)).expect("the release exists");
    assert_eq!(release.tag, format!("cluster-autoscaler-{version}"));
    assert_eq!(
        release.warnings,
        [AutoscalerWarning::MinorMismatch {
            autoscaler: version.to_string(),
            kubernetes: kubernetes.to_string(),
        }]
    );
    assert!(release.warnings[0].to_string().contains(version));
}

fn missing_override_lists_the_minors_releases(tags: &RemoteTags, version: &str, existing: &[&str]) {
    let error = resolve(tags, &k8s("1.33.13"), Some(version)).expect_err("not a release");
    let message = error.to_string();
    assert!(message.contains(version), "{message}");
    assert_eq!(
        error,
        AutoscalerError::OverrideNotFound {
            requested: version.to_string(),
            minor: "1.33".to_string(),
            existing: existing.iter().map(|s| s.to_string()).collect(),
        }
    );
    assert!(message.contains(&existing.join(", ")), "{message}");
}

fn both_spellings_of_an_override_agree(tags: &RemoteTags, version: &str) {
    let plain = resolve(tags, &k8s("1.33.13"), Some(version)).expect("exists");
    let with_v = resolve(tags, &k8s("1.33.13"), Some(&format!("v{version}"))).expect("exists");
    assert_eq!(plain, with_v);
    assert_eq!(plain.tag, format!("cluster-autoscaler-{version}"));
    assert!(plain.warnings.is_empty());
}

#[test]
fn real_listing_picks_the_newest_release_of_the_minor() {
    let Some(path) = shared::upstream("autoscaler/ls-remote.txt") else {
        return;
    };
    let (text, tags) = listing(&path);
    resolves_to(&text, &tags, "1.31.14", "cluster-autoscaler-1.31.5");
    resolves_to(&text, &tags, "v1.33.13", "cluster-autoscaler-1.33.6");
    resolves_to(&text, &tags, "1.33.0", "cluster-autoscaler-1.33.6");
}

#[test]
fn real_listing_has_no_release_for_1_99() {
    let Some(path) = shared::upstream("autoscaler/ls-remote.txt") else {
        return;
    };
    let (_, tags) = listing(&path);
    no_release_tells_to_set_the_override(&tags, "1.99.0");
}

#[test]
fn real_listing_override_of_another_minor_warns() {
    let Some(path) = shared::upstream("autoscaler/ls-remote.txt") else {
        return;
    };
    let (_, tags) = listing(&path);
    other_minor_override_warns(&tags, "1.32.7", "1.33.13");
    both_spellings_of_an_override_agree(&tags, "1.33.4");
}

#[test]
fn real_listing_override_of_a_missing_release_fails() {
    let Some(path) = shared::upstream("autoscaler/ls-remote.txt") else {
        return;
    };
    let (_, tags) = listing(&path);
    missing_override_lists_the_minors_releases(
        &tags,
        "1.33.99",
        &[
            "1.33.0", "1.33.1", "1.33.2", "1.33.3", "1.33.4", "1.33.5", "1.33.6",
        ],
    );
}

fn look_alike() -> (String, RemoteTags) {
    listing(&shared::data("autoscaler/ls-remote.txt"))
}

#[test]
fn look_alike_sorts_by_semver_and_skips_prereleases_charts_and_other_projects() {
    let (text, tags) = look_alike();
    // 1.32.10 sorts after 1.32.9 although it is listed, and sorts as text, before it.
    resolves_to(&text, &tags, "1.32.3", "cluster-autoscaler-1.32.10");
    // 1.33.7-rc.0 and 1.33.8-hotfix+build.1 are not releases; vertical-pod-autoscaler-1.33.9 is
    // another project.
    resolves_to(&text, &tags, "1.33.13", "cluster-autoscaler-1.33.6");
    resolves_to(&text, &tags, "1.31.14", "cluster-autoscaler-1.31.5");
    // A lightweight tag: the commit is the ref's own sha.
    resolves_to(&text, &tags, "1.30.1", "cluster-autoscaler-1.30.5");
}

#[test]
fn look_alike_peeled_line_may_come_before_its_tag() {
    let (text, tags) = look_alike();
    let release = resolve(&tags, &k8s("1.32.0"), Some("1.32.4")).expect("exists");
    assert_eq!(
        release.commit,
        sha_of(&text, "refs/tags/cluster-autoscaler-1.32.4^{}")
    );
}

#[test]
fn look_alike_minor_with_only_prereleases_has_no_release() {
    let (_, tags) = look_alike();
    no_release_tells_to_set_the_override(&tags, "1.34.0");
    no_release_tells_to_set_the_override(&tags, "1.99.0");
    let release = resolve(&tags, &k8s("1.34.0"), Some("1.34.0-beta.2")).expect("tag exists");
    assert_eq!(
        release.warnings,
        [AutoscalerWarning::Prerelease {
            autoscaler: "1.34.0-beta.2".to_string()
        }]
    );
}

#[test]
fn look_alike_overrides() {
    let (_, tags) = look_alike();
    other_minor_override_warns(&tags, "1.32.7", "1.33.13");
    both_spellings_of_an_override_agree(&tags, "1.33.4");
    missing_override_lists_the_minors_releases(
        &tags,
        "1.33.99",
        &[
            "1.33.0", "1.33.1", "1.33.2", "1.33.3", "1.33.4", "1.33.5", "1.33.6",
        ],
    );
    let error = resolve(&tags, &k8s("1.33.0"), Some("latest")).expect_err("not a version");
    assert!(error.to_string().contains("\"latest\""), "{error}");
}
