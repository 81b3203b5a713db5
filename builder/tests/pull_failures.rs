//! Faults: a registry serving a corrupted blob, an unknown image, 429 with `Retry-After` and a
//! 500 answered by retrying.

use std::time::{Duration, Instant};

use crate::pull_common::{ORIGIN, files_in, pushed};
use cks_builder::registry::{Arch, RegistryError};
use cks_fixtures::http::{Proxy, ProxyFault};
use cks_fixtures::registry::Auth;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_corrupted_blob_is_refused_naming_the_image_and_the_blob() {
    let set = pushed(Auth::None, &["shared-a"]);
    let layer = set.images.shared_a.layers[1].blob.digest.clone();
    set.registry.corrupt_blob(&layer).expect("corrupt");
    let out = set.out("corrupt");
    let err = set
        .pull(&["shared-a"], &out, &set.options(Arch::Amd64))
        .await
        .expect_err("corrupted blob");
    assert!(
        matches!(&err, RegistryError::BlobDigest { blob, .. } if *blob == layer),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(
        text.contains(&set.reference("shared-a")) && text.contains(&layer),
        "{text}"
    );
    assert!(
        files_in(&out).is_empty(),
        "left behind: {:?}",
        files_in(&out)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_image_is_a_clear_error() {
    let set = pushed(Auth::None, &["multi"]);
    let out = set.out("unknown");
    let err = set
        .pull(&["missing"], &out, &set.options(Arch::Amd64))
        .await
        .expect_err("unknown image");
    assert!(matches!(err, RegistryError::NotFound { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains(&format!("{ORIGIN}/test/missing:1.0")) && text.contains("not found"),
        "{text}"
    );
    assert!(
        files_in(&out).is_empty(),
        "left behind: {:?}",
        files_in(&out)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_is_retried_after_the_retry_after_delay() {
    let set = pushed(Auth::None, &["amd64-only"]);
    let proxy = Proxy::faulty(
        set.registry.addr(),
        ProxyFault {
            path_contains: "/manifests/".into(),
            times: 2,
            status: "429 Too Many Requests".into(),
            retry_after: Some("1".into()),
        },
    )
    .expect("proxy");
    let mut options = set.options(Arch::Amd64);
    options.mirrors = vec![format!("{ORIGIN}=http://{}", proxy.host())];
    options.insecure = vec![proxy.host()];
    options.retry.retries = 3;
    let start = Instant::now();
    let report = set
        .pull(&["amd64-only"], &set.out("429"), &options)
        .await
        .expect("pull after 429s");
    assert_eq!(
        report.images[0].digest,
        set.images.amd64_only.manifest.digest
    );
    let manifests: Vec<_> = proxy
        .log()
        .into_iter()
        .filter(|(_, p, _)| p.contains("/manifests/"))
        .collect();
    assert_eq!(
        manifests.iter().map(|(_, _, s)| *s).collect::<Vec<_>>(),
        [429, 429, 0]
    );
    for pair in manifests.windows(2) {
        assert!(
            pair[1].0 - pair[0].0 >= Duration::from_millis(950),
            "Retry-After: 1 not honoured"
        );
    }
    assert!(start.elapsed() >= Duration::from_secs(2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blob_answered_500_is_fetched_again_and_too_many_failures_give_up() {
    let set = pushed(Auth::None, &["amd64-only"]);
    let start_proxy = |times| {
        Proxy::faulty(
            set.registry.addr(),
            ProxyFault {
                path_contains: "/blobs/".into(),
                times,
                status: "500 Internal Server Error".into(),
                retry_after: None,
            },
        )
        .expect("proxy")
    };
    let proxy = start_proxy(1);
    let mut options = set.options(Arch::Amd64);
    options.mirrors = vec![format!("{ORIGIN}=http://{}", proxy.host())];
    options.insecure = vec![proxy.host()];
    set.pull(&["amd64-only"], &set.out("500"), &options)
        .await
        .expect("pull after one 500");

    let proxy = start_proxy(10);
    options.mirrors = vec![format!("{ORIGIN}=http://{}", proxy.host())];
    options.insecure = vec![proxy.host()];
    let out = set.out("500s");
    let err = set
        .pull(&["amd64-only"], &out, &options)
        .await
        .expect_err("gives up");
    assert!(err.to_string().contains("500"), "{err}");
    assert!(
        files_in(&out).is_empty(),
        "left behind: {:?}",
        files_in(&out)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_408_and_an_http_date_retry_after_are_retried_as_files_and_git_retry_them() {
    let set = pushed(Auth::None, &["amd64-only"]);
    for (status, retry_after) in [
        ("408 Request Timeout", None),
        (
            "503 Service Unavailable",
            Some("Sun, 06 Nov 1994 08:49:37 GMT".to_string()),
        ),
    ] {
        let proxy = Proxy::faulty(
            set.registry.addr(),
            ProxyFault {
                path_contains: "/manifests/".into(),
                times: 1,
                status: status.into(),
                retry_after,
            },
        )
        .expect("proxy");
        let mut options = set.options(Arch::Amd64);
        options.mirrors = vec![format!("{ORIGIN}=http://{}", proxy.host())];
        options.insecure = vec![proxy.host()];
        let report = set
            .pull(&["amd64-only"], &set.out(&status[..3]), &options)
            .await
            .unwrap_or_else(|e| panic!("pull after a {status}: {e}"));
        assert_eq!(
            report.images[0].digest,
            set.images.amd64_only.manifest.digest
        );
        let statuses: Vec<u16> = proxy
            .log()
            .into_iter()
            .filter(|(_, p, _)| p.contains("/manifests/"))
            .map(|(_, _, s)| s)
            .collect();
        assert_eq!(statuses[0], status[..3].parse::<u16>().expect("status"));
        assert_eq!(statuses.len(), 2, "one retry: {statuses:?}");
    }
}
