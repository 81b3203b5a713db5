//! The same inputs give the same ISO through any mirror, any cache and any port: `versions.txt`
//! records the canonical upstream URLs only, and which mirror served each file goes to the lock
//! file and the build report.

use cks_builder::pipeline::Lock;
use cks_builder::pipeline::Request;
use cks_e2e::{demo_inputs, run_build, start_upstream, versions_txt_of};
use cks_fixtures::demo::DemoConfig;

#[tokio::test(flavor = "multi_thread")]
async fn two_mirrors_on_other_ports_and_a_warm_cache_give_byte_identical_isos() {
    let mirror_a = start_upstream(DemoConfig::default()).await;
    let mirror_b = start_upstream(DemoConfig::default()).await;
    assert_ne!(
        mirror_a.file_server().base_url(),
        mirror_b.file_server().base_url()
    );
    assert_ne!(
        mirror_a.registry().base_url(),
        mirror_b.registry().base_url()
    );
    let cache = tempfile::tempdir().expect("cache dir");

    // Through mirror B, filling the cache.
    let out_b = tempfile::tempdir().expect("out dir");
    let mut inputs_b = demo_inputs(&mirror_b, out_b.path(), "x86_64");
    inputs_b.cache_dir = Some(cache.path().to_path_buf());
    let via_b = run_build(&inputs_b, Request::default())
        .await
        .expect("the build through mirror B");

    // Through mirror A, no cache, with a lock.
    let out_a = tempfile::tempdir().expect("out dir");
    let lock_path = out_a.path().join("cks.lock");
    let via_a = run_build(
        &demo_inputs(&mirror_a, out_a.path(), "x86_64"),
        Request {
            write_lock: Some(lock_path.clone()),
            ..Request::default()
        },
    )
    .await
    .expect("the build through mirror A");

    // Through mirror A again, with the cache mirror B filled.
    let out_warm = tempfile::tempdir().expect("out dir");
    let mut inputs_warm = demo_inputs(&mirror_a, out_warm.path(), "x86_64");
    inputs_warm.cache_dir = Some(cache.path().to_path_buf());
    let warm = run_build(&inputs_warm, Request::default())
        .await
        .expect("the warm build through mirror A");
    assert!(warm.files_from_cache > 0, "the cache was used");

    let bytes_b = std::fs::read(&via_b.iso).expect("ISO B");
    let bytes_a = std::fs::read(&via_a.iso).expect("ISO A");
    let bytes_warm = std::fs::read(&warm.iso).expect("warm ISO");
    assert!(
        bytes_a == bytes_b,
        "mirror A and mirror B give the same bytes"
    );
    assert!(bytes_warm == bytes_a, "a warm cache gives the same bytes");
    assert_eq!(via_a.sha256, via_b.sha256);
    assert_eq!(warm.sha256, via_a.sha256);

    // The ISO names no mirror; the report and the lock do.
    let versions = versions_txt_of(&via_a.iso);
    assert!(!versions.contains("127.0.0.1"), "{versions}");
    assert!(!versions.contains("mirror:"), "{versions}");
    assert!(
        versions.contains(
            "url: https://dl.k8s.io/release/v1.33.13/bin/linux/amd64/kubeadm\n\
             url: https://dl.k8s.io/release/v1.33.13/bin/linux/amd64/kubeadm.sha256\n"
        ),
        "{versions}"
    );
    let port_a = mirror_a.file_server().base_url();
    let kubeadm_a = via_a
        .mirrored
        .iter()
        .find(|m| m.file == "k8s/kubeadm")
        .expect("kubeadm came through mirror A");
    assert!(kubeadm_a.used.starts_with(&port_a), "{kubeadm_a:?}");
    assert_eq!(
        kubeadm_a.upstream,
        "https://dl.k8s.io/release/v1.33.13/bin/linux/amd64/kubeadm"
    );
    let lock = Lock::read(&lock_path).expect("the lock");
    let used = lock
        .mirrored
        .get("k8s/kubeadm")
        .expect("the lock names the mirror");
    assert!(used.starts_with(&port_a), "{used}");
}
