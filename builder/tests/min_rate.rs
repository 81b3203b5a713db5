//! `--min-rate`: a server dripping one byte at a time is cut off within one window, naming the
//! URL, the rule and the flag, on each transport (a download, a git daemon, smart HTTP, a
//! registry's manifest and blob); a slow server that keeps moving above the rule is read to the
//! end. The rule is set small (16 bytes a second) so each test takes a second or two; the
//! servers' pauses are their behaviour, the tests wait only for their answers.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use cks_builder::fetch::{ClientOptions, FetchOptions, Fetcher, FileError, FileSpec};
use cks_builder::git::{LsRemoteOptions, list_tags};
use cks_builder::pace::MinRate;
use cks_builder::progress::NoProgress;
use cks_builder::registry::{CredentialStore, Endpoints, RegistryClient, RemoteName};
use cks_builder::retry::RetryPolicy;
use cks_pinning::digest::Digest;

const RULE: MinRate = MinRate {
    bytes: 16,
    window: Duration::from_secs(1),
};

/// A stall timeout far above the drip's pauses: only the rate rule can end a drip.
const STALL: Duration = Duration::from_secs(20);

fn client() -> ClientOptions {
    ClientOptions {
        stall_timeout: STALL,
        min_rate: RULE,
        ..ClientOptions::default()
    }
}

/// A one-connection server on 127.0.0.1: it reads the request, writes `head`, then `body` in
/// pieces of `piece` bytes `every` apart. It ends when the body is sent or the client has gone,
/// and says how many body bytes it wrote.
fn paced_server(
    head: String,
    body: Vec<u8>,
    piece: usize,
    every: Duration,
) -> (u16, JoinHandle<usize>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("address").port();
    let server = std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().expect("a connection");
        let mut request = [0u8; 4096];
        let _ = conn.read(&mut request);
        if conn.write_all(head.as_bytes()).is_err() {
            return 0;
        }
        let mut sent = 0;
        for part in body.chunks(piece) {
            std::thread::sleep(every);
            if conn.write_all(part).and_then(|()| conn.flush()).is_err() {
                break;
            }
            sent += part.len();
        }
        sent
    });
    (port, server)
}

fn http_head(len: usize) -> String {
    format!(
        "HTTP/1.1 200 OK\r\nContent-Length: {len}\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n"
    )
}

async fn download(port: u16) -> (Result<Vec<u8>, FileError>, Duration, tempfile::TempDir) {
    let out = tempfile::tempdir().expect("temp dir");
    let url = format!("http://127.0.0.1:{port}/blob");
    let fetcher = Fetcher::new(FetchOptions {
        retry: RetryPolicy::immediate(0),
        client: client(),
        ..FetchOptions::default()
    })
    .expect("fetcher");
    let spec = FileSpec::new("blob", url, out.path().join("blob"));
    let started = Instant::now();
    let result = fetcher.fetch(&spec).await;
    let took = started.elapsed();
    let result = result.map(|_| std::fs::read(out.path().join("blob")).expect("the file"));
    (result, took, out)
}

fn assert_cut_off(text: &str, url: &str, took: Duration) {
    for part in [url, "16 B every 1 s", "--min-rate"] {
        assert!(text.contains(part), "`{part}` missing from: {text}");
    }
    assert!(
        !text.contains("sent nothing"),
        "a drip is not a stall: {text}"
    );
    // One window of 1 s ends it: far sooner than the 20 s stall timeout would.
    assert!(
        took >= RULE.window && took < STALL,
        "cut off after {took:?}: {text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_download_dripping_a_byte_at_a_time_ends_within_one_window() {
    let body = vec![b'x'; 1000];
    let (port, server) = paced_server(http_head(body.len()), body, 1, Duration::from_millis(300));
    let (result, took, out) = download(port).await;
    let text = result.expect_err("a drip is cut off").to_string();
    assert_cut_off(&text, &format!("http://127.0.0.1:{port}/blob"), took);
    let sent = server.join().expect("the server did not panic");
    assert!(sent < 100, "{sent} bytes dripped");
    assert!(
        std::fs::read_dir(out.path()).expect("out").next().is_none(),
        "a cut-off download leaves nothing behind"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_download_that_keeps_moving_completes() {
    // 32 bytes every 100 ms, 320 B/s for 3 s: twenty times the rule, over three windows.
    let body: Vec<u8> = (0..960u32).map(|i| (i % 251) as u8).collect();
    let (port, server) = paced_server(
        http_head(body.len()),
        body.clone(),
        32,
        Duration::from_millis(100),
    );
    let (result, _took, _out) = download(port).await;
    assert_eq!(result.expect("a slow, moving body is read"), body);
    assert_eq!(server.join().expect("the server did not panic"), body.len());
}

/// A v0 advertisement of `tags` tags, as `git daemon` sends it.
fn advertisement(tags: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..tags {
        let line = format!("{:040x} refs/tags/v1.{i}.0\n", i + 1);
        out.extend(format!("{:04x}", line.len() + 4).into_bytes());
        out.extend(line.into_bytes());
    }
    out.extend_from_slice(b"0000");
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_git_daemon_dripping_its_advertisement_ends_within_one_window() {
    let (port, server) = paced_server(
        String::new(),
        advertisement(10),
        1,
        Duration::from_millis(300),
    );
    let url = format!("git://127.0.0.1:{port}/autoscaler.git");
    let options = LsRemoteOptions {
        client: client(),
        retry: RetryPolicy::immediate(0),
    };
    let started = Instant::now();
    let err = list_tags(&url, &options)
        .await
        .expect_err("a drip is cut off");
    assert_cut_off(&err.to_string(), &url, started.elapsed());
    server.join().expect("the server did not panic");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_git_daemon_that_keeps_moving_is_read_to_the_end() {
    let answer = advertisement(12);
    let pieces = answer.chunks(32).count();
    let (port, server) = paced_server(String::new(), answer, 32, Duration::from_millis(100));
    let url = format!("git://127.0.0.1:{port}/autoscaler.git");
    let options = LsRemoteOptions {
        client: client(),
        retry: RetryPolicy::immediate(0),
    };
    let tags = list_tags(&url, &options)
        .await
        .expect("a slow, moving answer is read");
    assert_eq!(tags.len(), 12);
    assert!(pieces * 100 > 2000, "the answer spans more than one window");
    server.join().expect("the server did not panic");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_smart_http_server_dripping_its_advertisement_ends_within_one_window() {
    let mut body = Vec::new();
    let service = b"# service=git-upload-pack\n";
    body.extend(format!("{:04x}", service.len() + 4).into_bytes());
    body.extend_from_slice(service);
    body.extend_from_slice(b"0000");
    body.extend(advertisement(10));
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nContent-Type: application/x-git-upload-pack-advertisement\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let (port, server) = paced_server(head, body, 1, Duration::from_millis(300));
    let url = format!("http://127.0.0.1:{port}/autoscaler.git");
    let options = LsRemoteOptions {
        client: client(),
        retry: RetryPolicy::immediate(0),
    };
    let started = Instant::now();
    let err = list_tags(&url, &options)
        .await
        .expect_err("a drip is cut off");
    let info = format!("{url}/info/refs?service=git-upload-pack");
    assert_cut_off(&err.to_string(), &info, started.elapsed());
    server.join().expect("the server did not panic");
}

fn registry_client(port: u16) -> RegistryClient {
    let host = format!("127.0.0.1:{port}");
    let endpoints = Endpoints::new(
        &[format!("registry.example.com=http://{host}")],
        std::slice::from_ref(&host),
    )
    .expect("endpoints");
    RegistryClient::new(
        endpoints,
        CredentialStore::default(),
        RetryPolicy::immediate(0),
    )
    .expect("a registry client")
    .with_min_rate(RULE)
}

fn image() -> RemoteName {
    RemoteName {
        full: "registry.example.com/test/drip:1.0".to_string(),
        registry: "registry.example.com".to_string(),
        repository: "test/drip".to_string(),
        tag: Some("1.0".to_string()),
        digest: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_registry_dripping_a_manifest_ends_within_one_window() {
    let body = vec![b' '; 1000];
    let head = http_head(body.len()).replace(
        "application/octet-stream",
        "application/vnd.oci.image.manifest.v1+json",
    );
    let (port, server) = paced_server(head, body, 1, Duration::from_millis(300));
    let started = Instant::now();
    let err = registry_client(port)
        .manifest(&image(), "1.0")
        .await
        .expect_err("a drip is cut off");
    let url = format!("http://127.0.0.1:{port}/v2/test/drip/manifests/1.0");
    assert_cut_off(&err.to_string(), &url, started.elapsed());
    server.join().expect("the server did not panic");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_registry_dripping_a_blob_ends_within_one_window_and_a_slow_one_completes() {
    let body: Vec<u8> = (0..960u32).map(|i| (i % 251) as u8).collect();
    let digest = Digest::sha256_of(&body).to_string();
    let out = tempfile::tempdir().expect("temp dir");
    let file = out.path().join("blob");

    let (port, server) = paced_server(
        http_head(body.len()),
        body.clone(),
        1,
        Duration::from_millis(300),
    );
    let started = Instant::now();
    let err = registry_client(port)
        .blob_to_file(&image(), &digest, body.len() as u64, &file, &NoProgress)
        .await
        .expect_err("a drip is cut off");
    let url = format!("http://127.0.0.1:{port}/v2/test/drip/blobs/{digest}");
    assert_cut_off(&err.to_string(), &url, started.elapsed());
    server.join().expect("the server did not panic");

    // 32 bytes every 100 ms: twenty times the rule, over three windows.
    let (port, server) = paced_server(
        http_head(body.len()),
        body.clone(),
        32,
        Duration::from_millis(100),
    );
    registry_client(port)
        .blob_to_file(&image(), &digest, body.len() as u64, &file, &NoProgress)
        .await
        .expect("a slow, moving blob is read");
    assert_eq!(std::fs::read(&file).expect("the blob"), body);
    assert_eq!(server.join().expect("the server did not panic"), body.len());
}
