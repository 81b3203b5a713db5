//! The Headlamp pin on the real v0.40.1 release manifest and on our look-alike: one `image:`
//! changed to the release's own tag, `imagePullPolicy: IfNotPresent` added below it, every other
//! line kept.

use std::path::Path;

use cks_fixtures::shared;
use cks_pinning::headlamp::HeadlampVersion;
use cks_pinning::manifest::{ManifestError, images, objects, pin_headlamp};

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).expect("read the manifest")
}

/// Pins `text` to v0.40.1 and checks the edit: exactly the image line changed and one pull
/// policy line added at its indentation; the objects are the same.
fn check_pin(text: &str) {
    let version = HeadlampVersion::parse("0.40.1").expect("a release");
    let image = version.image().expect("valid image");
    assert_eq!(
        images(text).expect("valid"),
        ["ghcr.io/headlamp-k8s/headlamp:latest"]
    );
    let pinned = pin_headlamp(text, &image).expect("pins");
    assert_eq!(
        images(&pinned).expect("valid"),
        ["ghcr.io/headlamp-k8s/headlamp:v0.40.1"]
    );
    assert_eq!(
        objects(&pinned).expect("valid"),
        objects(text).expect("valid")
    );
    let old: Vec<&str> = text.lines().collect();
    let new: Vec<&str> = pinned.lines().collect();
    assert_eq!(new.len(), old.len() + 1, "one line added");
    let at = old
        .iter()
        .position(|l| l.contains("headlamp:latest"))
        .expect("the image line");
    assert_eq!(&new[..at], &old[..at]);
    assert_eq!(new[at], old[at].replace(":latest", ":v0.40.1"));
    let indent = old[at].len() - old[at].trim_start().len();
    assert_eq!(
        new[at + 1],
        format!("{}imagePullPolicy: IfNotPresent", " ".repeat(indent))
    );
    assert_eq!(&new[at + 2..], &old[at + 1..]);
    // Pinning again changes nothing but the image.
    assert_eq!(pin_headlamp(&pinned, &image).expect("pins again"), pinned);
}

#[test]
fn pins_our_look_alike_keeping_quotes_and_comments() {
    let text = read(&shared::data("manifests/headlamp.yaml"));
    check_pin(&text);
    let image = HeadlampVersion::parse("v0.40.1")
        .expect("release")
        .image()
        .expect("image");
    let pinned = pin_headlamp(&text, &image).expect("pins");
    assert!(pinned.contains(
        "image: \"ghcr.io/headlamp-k8s/headlamp:v0.40.1\" # the release manifest's tag\n"
    ));
}

#[test]
fn pins_the_real_v0_40_1_manifest() {
    let Some(path) =
        shared::upstream("cloudstack-4.23/third_party/headlamp-v0.40.1/kubernetes-headlamp.yaml")
    else {
        return;
    };
    check_pin(&read(&path));
}

#[test]
fn refuses_a_saved_error_page_and_a_second_image() {
    let image = HeadlampVersion::parse("0.40.1")
        .expect("release")
        .image()
        .expect("image");
    let err = pin_headlamp("404: Not Found\n", &image).expect_err("not a manifest");
    assert!(
        matches!(
            err,
            ManifestError::NotAnObject { .. } | ManifestError::ImageCount { .. }
        ),
        "{err}"
    );
    let two = read(&shared::data("manifests/headlamp.yaml")).replace(
        "          args:\n",
        "        - name: sidecar\n          image: busybox:1.36\n          args:\n",
    );
    let err = pin_headlamp(&two, &image).expect_err("two images");
    assert!(
        matches!(err, ManifestError::ImageCount { found: 2, .. }),
        "{err}"
    );
}

#[test]
fn versions_txt_records_the_headlamp_release_between_etcd_and_arch() {
    use cks_pinning::versions_txt::VersionsTxt;
    let text = "kubernetes: 1.33.13\ncni-plugins: 1.7.1\ncrictl: 1.33.0\nccm: 1.2.0\n\
                csi-driver: 3.0.0\nautoscaler: 1.33.6\nautoscaler-tag: cluster-autoscaler-1.33.6\n\
                etcd: 3.5.21\nheadlamp: 0.40.1\narch: amd64\n";
    let parsed = VersionsTxt::parse(text).expect("valid");
    assert_eq!(parsed.headlamp.as_deref(), Some("0.40.1"));
    assert_eq!(parsed.render().expect("renders"), text);
    let without = text.replace("headlamp: 0.40.1\n", "");
    assert_eq!(
        VersionsTxt::parse(&without).expect("optional").headlamp,
        None
    );
    let late = without.replace("arch: amd64\n", "arch: amd64\nheadlamp: 0.40.1\n");
    let err = VersionsTxt::parse(&late).expect_err("out of order");
    assert!(
        err.to_string().contains("`headlamp` is out of order"),
        "{err}"
    );
    let mut tagged = parsed;
    tagged.headlamp = Some("v0.40.1".to_string());
    let err = tagged.render().expect_err("a release number without v");
    assert!(err.to_string().contains("headlamp"), "{err}");
}
