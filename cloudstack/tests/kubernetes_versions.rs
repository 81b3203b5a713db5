//! Our client's Kubernetes version calls against the fake the `cs` client checks: a version is
//! added, its ISO downloaded by "secondary storage" until Ready, a wrong checksum leaves it
//! Allocated with the error in `listIsos` (so do a missing and an unreachable URL, with the
//! downloader's own texts), and a delete is refused while a cluster uses it.

use std::time::Duration;

use cks_cloudstack::{
    CloudStackClient, CloudStackConfig, CloudStackError, NewKubernetesVersion, Secret,
};

use crate::support::{KEY, SECRET, Setup, eventually, setup};

fn client(s: &Setup) -> CloudStackClient {
    let mut config = CloudStackConfig::new(s.api.endpoint(), Secret::new(KEY), Secret::new(SECRET));
    config.poll_interval = Duration::from_millis(10);
    config.job_timeout = Duration::from_secs(5);
    CloudStackClient::new(config).expect("client builds")
}

fn new_version(s: &Setup, checksum: &str) -> NewKubernetesVersion {
    NewKubernetesVersion {
        semantic_version: "1.33.13".into(),
        url: s.files.url("/cks.iso"),
        checksum: format!("{{SHA-256}}{checksum}"),
        min_cpus: 2,
        min_memory_mib: 2048,
        zone_id: None,
        name: None,
        direct_download: false,
        arch: Some("x86_64".into()),
    }
}

#[test]
fn an_added_version_downloads_its_iso_until_ready() {
    let s = setup();
    let c = client(&s);
    let added = c
        .add_kubernetes_version(&new_version(&s, &s.sha256))
        .expect("added");
    assert_eq!(added.semantic_version, "1.33.13");
    assert_eq!(added.name, "v1.33.13");
    eventually("the ISO becoming Ready", || {
        c.list_kubernetes_versions(Some(&added.id)).expect("listed")[0].iso_state == "Ready"
    });
    let iso = c
        .iso(&added.iso_id)
        .expect("listIsos")
        .expect("the ISO is listed");
    assert!(iso.is_ready);
    // CloudStack's own words for an installed ISO, and its checksum without `{SHA-256}`.
    assert_eq!(iso.status.as_deref(), Some("Successfully Installed"));
    assert_eq!(iso.checksum.as_deref(), Some(s.sha256.as_str()));
    let states: Vec<_> = iso
        .download_details
        .iter()
        .map(|d| d.download_state.as_deref())
        .collect();
    assert_eq!(states, [Some("DOWNLOADED")], "{iso:?}");
    assert_eq!(
        s.files.requests("/cks.iso"),
        1,
        "secondary storage downloaded the URL once"
    );
    let params = c
        .api_parameters("addKubernetesSupportedVersion")
        .expect("listApis")
        .expect("the fake answers listApis");
    assert!(params.contains(&"arch".to_string()), "{params:?}");
}

#[test]
fn a_wrong_checksum_leaves_the_iso_allocated_with_the_error() {
    let s = setup();
    let c = client(&s);
    let wrong = "0".repeat(64);
    let added = c
        .add_kubernetes_version(&new_version(&s, &wrong))
        .expect("added");
    eventually("the download failing", || {
        c.iso(&added.iso_id).expect("listIsos").is_some_and(|iso| {
            iso.download_details
                .iter()
                .any(|d| d.download_state.as_deref() == Some("DOWNLOAD_ERROR"))
        })
    });
    let version = &c.list_kubernetes_versions(Some(&added.id)).expect("listed")[0];
    assert_eq!(version.iso_state, "Allocated");
    let status = c
        .iso(&added.iso_id)
        .expect("listIsos")
        .and_then(|i| i.status)
        .unwrap_or_default();
    assert!(
        status.contains(&s.sha256) && status.contains(&wrong),
        "{status}"
    );
}

/// Waits until the ISO's download failed (`downloadState` `DOWNLOAD_ERROR`) and returns it.
fn failed_iso(c: &CloudStackClient, iso_id: &str) -> cks_cloudstack::Iso {
    let mut seen = None;
    eventually("the download failing", || {
        seen = c.iso(iso_id).expect("listIsos").filter(|iso| {
            iso.download_details
                .iter()
                .any(|d| d.download_state.as_deref() == Some("DOWNLOAD_ERROR"))
        });
        seen.is_some()
    });
    seen.expect("a failed ISO")
}

#[test]
fn a_missing_or_unreachable_url_fails_with_the_downloaders_own_text() {
    let s = setup();
    let c = client(&s);
    let mut missing = new_version(&s, &s.sha256);
    missing.url = s.files.url("/nothing.iso");
    let added = c.add_kubernetes_version(&missing).expect("added");
    let iso = failed_iso(&c, &added.iso_id);
    assert_eq!(
        iso.status.as_deref(),
        Some(" HTTP Server returned 404 (expected 200 OK) ")
    );
    let version = &c.list_kubernetes_versions(Some(&added.id)).expect("listed")[0];
    assert_eq!(version.iso_state, "Allocated", "isostate stays Allocated");

    let mut unreachable = new_version(&s, &s.sha256);
    unreachable.semantic_version = "1.33.14".into();
    unreachable.url = "http://127.0.0.1:9/cks.iso".into();
    let added = c.add_kubernetes_version(&unreachable).expect("added");
    let iso = failed_iso(&c, &added.iso_id);
    assert_eq!(
        iso.status.as_deref(),
        Some("Unable to start download -- check url? ")
    );
}

#[test]
fn a_bad_minimum_is_refused_and_a_used_version_not_deleted() {
    let s = setup();
    let c = client(&s);
    let mut small = new_version(&s, &s.sha256);
    small.min_memory_mib = 1024;
    let err = c
        .add_kubernetes_version(&small)
        .expect_err("too little memory");
    assert!(
        matches!(err, CloudStackError::Api { code: 431, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("2048MB"), "{err}");

    let id = s
        .cloud
        .add_ready_kubernetes_version("1.32.1", &format!("{{SHA-256}}{}", s.sha256));
    let cluster = s.cloud.add_cluster("k1", &[]);
    s.cloud.set_cluster_version(&cluster, &id);
    let clusters = c.list_kubernetes_clusters().expect("clusters");
    assert_eq!(clusters[0].kubernetes_version_id, id);
    let err = c.delete_kubernetes_version(&id).expect_err("in use");
    assert!(
        err.to_string()
            .contains("Existing clusters currently using the version"),
        "{err}"
    );

    s.cloud.set_cluster_version(&cluster, "another");
    c.delete_kubernetes_version(&id)
        .expect("deleted once unused");
    assert!(c.list_kubernetes_versions(None).expect("listed").is_empty());
}
