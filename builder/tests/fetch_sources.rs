//! Where the bytes come from: fallbacks on 404 only, mirrors (recording both URLs), local
//! files, HTTPS with a private CA, download-then-edit, progress and parallel plans.

use std::path::Path;
use std::sync::{Arc, Mutex};

use cks_builder::fetch::{
    Checksum, ChecksumStatus, ClientOptions, Edit, FetchError, FetchOptions, Fetcher, FileSpec,
    Mirror, Mirrors,
};
use cks_builder::http::HttpError;
use cks_builder::progress::ProgressSink;
use cks_builder::retry::RetryPolicy;
use cks_fixtures::http::{Fault, FileServer};
use cks_fixtures::tls::TestCa;
use sha2::{Digest, Sha256};

fn sha(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn options() -> FetchOptions {
    FetchOptions {
        retry: RetryPolicy::immediate(3),
        ..FetchOptions::default()
    }
}

fn write(root: &Path, relative: &str, bytes: &[u8]) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, bytes).expect("write");
}

#[tokio::test]
async fn tries_the_fallback_after_a_404_with_its_own_checksum() {
    let root = tempfile::tempdir().expect("temp dir");
    let old = "cni-plugins-amd64-v0.8.7.tgz";
    write(root.path(), old, b"old name");
    write(
        root.path(),
        &format!("{old}.sha256"),
        format!("{}  {old}", sha(b"old name")).as_bytes(),
    );
    let server = FileServer::start(root.path()).expect("server");
    let out = tempfile::tempdir().expect("temp dir");
    let new_url = server.url("/cni-plugins-linux-amd64-v0.8.7.tgz");
    let old_url = server.url(&format!("/{old}"));
    let spec = FileSpec::new("cni", &new_url, out.path().join("cni.tgz"))
        .fallback(&old_url)
        .checksum(Checksum::sha256_sidecar());
    let file = Fetcher::new(options())
        .expect("fetcher")
        .fetch(&spec)
        .await
        .expect("fallback");
    assert_eq!(file.url, old_url);
    assert!(matches!(file.checksum, ChecksumStatus::Verified { .. }));
    assert_eq!(server.requests("/cni-plugins-linux-amd64-v0.8.7.tgz"), 1);
    assert_eq!(
        std::fs::read(out.path().join("cni.tgz")).expect("dest"),
        b"old name"
    );
}

#[tokio::test]
async fn does_not_fall_back_on_anything_but_404() {
    let root = tempfile::tempdir().expect("temp dir");
    write(root.path(), "a", b"a");
    write(root.path(), "b", b"b");
    let server = FileServer::start(root.path()).expect("server");
    server.always("/a", Fault::Status(500));
    let out = tempfile::tempdir().expect("temp dir");
    let spec =
        FileSpec::new("f", server.url("/a"), out.path().join("f")).fallback(server.url("/b"));
    let err = Fetcher::new(options())
        .expect("fetcher")
        .fetch(&spec)
        .await
        .expect_err("500");
    assert_eq!(err.attempts, 4);
    assert_eq!(server.requests("/b"), 0);

    let spec =
        FileSpec::new("f", server.url("/x"), out.path().join("f")).fallback(server.url("/y"));
    let err = Fetcher::new(options())
        .expect("fetcher")
        .fetch(&spec)
        .await
        .expect_err("404s");
    let FetchError::NotFound { tried, .. } = &err.error else {
        panic!("expected NotFound, got {err}");
    };
    assert_eq!(tried, &[server.url("/x"), server.url("/y")]);
    assert!(std::fs::read_dir(out.path()).expect("dir").next().is_none());
}

#[tokio::test]
async fn fetches_through_a_mirror_and_records_both_urls() {
    let root = tempfile::tempdir().expect("temp dir");
    let body = b"kubectl".repeat(100);
    write(
        root.path(),
        "k8s/release/v1.33.1/bin/linux/amd64/kubectl",
        &body,
    );
    write(
        root.path(),
        "k8s/release/v1.33.1/bin/linux/amd64/kubectl.sha256",
        sha(&body).as_bytes(),
    );
    let server = FileServer::start(root.path()).expect("server");
    let mirror: Mirror = format!("https://dl.k8s.io={}", server.url("/k8s"))
        .parse()
        .expect("mirror");
    let fetcher = Fetcher::new(FetchOptions {
        mirrors: Mirrors(vec![mirror]),
        ..options()
    })
    .expect("fetcher");
    let out = tempfile::tempdir().expect("temp dir");
    let upstream = "https://dl.k8s.io/release/v1.33.1/bin/linux/amd64/kubectl";
    let spec = FileSpec::new("k8s/kubectl", upstream, out.path().join("kubectl"))
        .checksum(Checksum::sha256_sidecar());
    let file = fetcher.fetch(&spec).await.expect("mirrored");
    assert_eq!(file.url, upstream);
    assert_eq!(
        file.url_used,
        server.url("/k8s/release/v1.33.1/bin/linux/amd64/kubectl")
    );
    assert_eq!(
        file.checksum,
        ChecksumStatus::Verified {
            source: format!("{upstream}.sha256")
        }
    );
    assert_eq!(
        server.requests("/k8s/release/v1.33.1/bin/linux/amd64/kubectl.sha256"),
        1
    );
}

#[tokio::test]
async fn copies_a_local_file_given_as_the_url() {
    let src = tempfile::tempdir().expect("temp dir");
    write(src.path(), "my-cni.yaml", b"kind: DaemonSet\n");
    let out = tempfile::tempdir().expect("temp dir");
    let fetcher = Fetcher::new(options()).expect("fetcher");
    let path = src.path().join("my-cni.yaml");
    for source in [
        path.display().to_string(),
        format!("file://{}", path.display()),
    ] {
        let spec = FileSpec::new("network", &source, out.path().join("network.yaml"));
        let file = fetcher.fetch(&spec).await.expect("copied");
        assert_eq!(file.url, source);
        assert_eq!(file.sha256, sha(b"kind: DaemonSet\n"));
        assert_eq!(
            std::fs::read(out.path().join("network.yaml")).expect("dest"),
            b"kind: DaemonSet\n"
        );
    }
    let spec = FileSpec::new("network", "no-such-file.yaml", out.path().join("x"));
    let err = fetcher
        .fetch(&spec)
        .await
        .expect_err("neither URL nor file");
    assert!(matches!(err.error, FetchError::BadSource { .. }), "{err}");
    assert!(err.to_string().contains("no-such-file.yaml"), "{err}");
}

async fn edit_case(dir: &Path) {
    let root = tempfile::tempdir().expect("temp dir");
    for name in ["kubelet.service", "10-kubeadm.conf"] {
        let original = std::fs::read(dir.join(name)).expect("nonoss file");
        write(root.path(), name, &original);
        let server = FileServer::start(root.path()).expect("server");
        let out = tempfile::tempdir().expect("temp dir");
        let spec = FileSpec::new(name, server.url(&format!("/{name}")), out.path().join(name))
            .edit(Edit::usr_bin_to_opt_bin());
        let file = Fetcher::new(options())
            .expect("fetcher")
            .fetch(&spec)
            .await
            .expect("edited");
        let text = String::from_utf8(original.clone()).expect("utf-8");
        let expected = text.replace("/usr/bin", "/opt/bin");
        let written = std::fs::read_to_string(out.path().join(name)).expect("dest");
        assert_eq!(written, expected, "{name}");
        assert!(!written.contains("/usr/bin") && written.contains("/opt/bin/kubelet"));
        assert_eq!(
            written.ends_with('\n'),
            text.ends_with('\n'),
            "{name}: trailing newline kept as is"
        );
        assert_eq!(file.sha256, sha(expected.as_bytes()));
        assert_eq!(file.upstream_sha256, sha(&original));
        assert_eq!(file.bytes, expected.len() as u64);
    }
}

#[tokio::test]
async fn rewrites_usr_bin_in_our_look_alike_unit_files() {
    edit_case(&cks_fixtures::shared::data("nonoss")).await;
}

#[tokio::test]
async fn rewrites_usr_bin_in_the_real_nonoss_unit_files() {
    let Some(unit) = cks_fixtures::shared::upstream("nonoss/kubelet.service") else {
        return;
    };
    edit_case(unit.parent().expect("nonoss dir")).await;
}

#[tokio::test]
async fn trusts_a_private_ca_given_as_a_file_and_only_then() {
    let ca = TestCa::new().expect("test CA");
    let root = tempfile::tempdir().expect("temp dir");
    write(root.path(), "secure", b"over TLS");
    let server = FileServer::start_https(root.path(), &ca).expect("https server");
    let out = tempfile::tempdir().expect("temp dir");
    let spec = FileSpec::new("secure", server.url("/secure"), out.path().join("secure"));

    let without = Fetcher::new(options()).expect("fetcher");
    let err = without.fetch(&spec).await.expect_err("unknown issuer");
    assert!(
        matches!(err.error, FetchError::Http(HttpError::Tls { .. })),
        "{err}"
    );
    assert_eq!(err.attempts, 1, "a refused certificate is not retried");

    let with = Fetcher::new(FetchOptions {
        client: ClientOptions {
            ca_files: vec![ca.ca_file()],
            ..ClientOptions::default()
        },
        ..options()
    })
    .expect("fetcher");
    let file = with.fetch(&spec).await.expect("trusted");
    assert_eq!(file.sha256, sha(b"over TLS"));

    let bad = ca.dir().join("not-a-cert.pem");
    std::fs::write(&bad, "hello").expect("write");
    let err = Fetcher::new(FetchOptions {
        client: ClientOptions {
            ca_files: vec![bad.clone()],
            ..ClientOptions::default()
        },
        ..options()
    })
    .expect_err("no certificate");
    assert!(err.to_string().contains("not-a-cert.pem"), "{err}");
}

#[derive(Default)]
struct Recorder(Mutex<Vec<(String, String, u64)>>);

impl ProgressSink for Recorder {
    fn on_start(&self, name: &str, total: Option<u64>) {
        let mut log = self.0.lock().expect("lock");
        log.push(("start".into(), name.into(), total.unwrap_or(0)));
    }
    fn on_bytes(&self, name: &str, bytes: u64) {
        let mut log = self.0.lock().expect("lock");
        log.push(("bytes".into(), name.into(), bytes));
    }
    fn on_done(&self, name: &str) {
        let mut log = self.0.lock().expect("lock");
        log.push(("done".into(), name.into(), 0));
    }
}

#[tokio::test]
async fn fetches_a_plan_in_parallel_in_order_reporting_progress() {
    let root = tempfile::tempdir().expect("temp dir");
    let names: Vec<String> = (0..8).map(|i| format!("file-{i}")).collect();
    for (i, name) in names.iter().enumerate() {
        write(root.path(), name, &vec![i as u8; 10_000 * (i + 1)]);
    }
    let server = FileServer::start(root.path()).expect("server");
    let out = tempfile::tempdir().expect("temp dir");
    let mut plan: Vec<FileSpec> = names
        .iter()
        .map(|n| FileSpec::new(n, server.url(&format!("/{n}")), out.path().join(n)))
        .collect();
    plan.push(FileSpec::new(
        "missing",
        server.url("/missing"),
        out.path().join("missing"),
    ));
    let recorder = Arc::new(Recorder::default());
    let fetcher = Fetcher::new(FetchOptions {
        concurrency: 3,
        ..options()
    })
    .expect("fetcher")
    .with_progress(recorder.clone());
    let results = fetcher.fetch_all(&plan).await;
    assert_eq!(results.len(), 9);
    for (i, result) in results.iter().take(8).enumerate() {
        let file = result.as_ref().expect("fetched");
        assert_eq!(file.name, names[i]);
        assert_eq!(file.bytes, 10_000 * (i as u64 + 1));
    }
    assert!(results[8].is_err());
    let log = recorder.0.lock().expect("lock");
    for (i, name) in names.iter().enumerate() {
        let bytes: u64 = log
            .iter()
            .filter(|(kind, n, _)| kind == "bytes" && n == name)
            .map(|(_, _, b)| b)
            .sum();
        assert_eq!(bytes, 10_000 * (i as u64 + 1), "{name}");
        assert!(
            log.iter()
                .any(|(k, n, t)| k == "start" && n == name && *t == bytes)
        );
    }
    assert_eq!(log.iter().filter(|(k, _, _)| k == "done").count(), 9);
}
