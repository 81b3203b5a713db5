//! A download that breaks mid-body resumes with `Range` from the bytes already hashed; a server
//! that ignores `Range` gets a full restart; either way the file in place is whole and checked.

use std::time::Duration;

use cks_builder::fetch::{ChecksumStatus, ClientOptions, FetchOptions, Fetcher, FileSpec};
use cks_builder::retry::RetryPolicy;
use cks_fixtures::http::{Fault, FileServer};
use sha2::{Digest, Sha256};

const SIZE: u64 = 1_000_000;

fn content() -> Vec<u8> {
    (0..SIZE).map(|i| (i * 13 % 251) as u8).collect()
}

fn fetcher() -> Fetcher {
    Fetcher::new(FetchOptions {
        retry: RetryPolicy::immediate(3),
        client: ClientOptions {
            stall_timeout: Duration::from_secs(5),
            ..ClientOptions::default()
        },
        ..FetchOptions::default()
    })
    .expect("fetcher")
}

/// Serves the content as `/blob` with its pinned digest, breaks the first answer at 90 %, and
/// returns the body bytes the server sent and the request count.
async fn fetch_broken_at_90(ignore_range: bool) -> (u64, u64) {
    let root = tempfile::tempdir().expect("temp dir");
    let bytes = content();
    std::fs::write(root.path().join("blob"), &bytes).expect("write blob");
    let server = FileServer::start(root.path()).expect("file server");
    server.ignore_range(ignore_range);
    server.schedule(
        "/blob",
        [Fault::CloseMidBody {
            after: SIZE * 9 / 10,
        }],
    );
    let out = tempfile::tempdir().expect("temp dir");
    let sha256 = hex::encode(Sha256::digest(&bytes));
    let spec = FileSpec::new("blob", server.url("/blob"), out.path().join("blob"))
        .checksum(cks_builder::fetch::Checksum::Pinned { sha256 });
    let fetched = fetcher().fetch(&spec).await.expect("fetched after a retry");
    assert_eq!(
        fetched.attempts, 2,
        "one broken attempt, one that completes"
    );
    assert!(matches!(fetched.checksum, ChecksumStatus::Verified { .. }));
    assert_eq!(std::fs::read(out.path().join("blob")).expect("read"), bytes);
    let left: Vec<_> = std::fs::read_dir(out.path())
        .expect("read dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(left.len(), 1, "only the file, no partial left: {left:?}");
    (server.body_bytes_sent(), server.requests("/blob"))
}

#[tokio::test]
async fn a_reset_at_90_percent_resumes_with_range_and_fetches_about_1_1_times_the_file() {
    let (sent, requests) = fetch_broken_at_90(false).await;
    assert_eq!(requests, 2);
    // What the reset dropped from the socket buffers is sent again; nothing before it is.
    let ratio = sent as f64 / SIZE as f64;
    assert!(
        (1.0..=1.1).contains(&ratio),
        "bytes fetched {ratio:.3}x the file ({sent} bytes)"
    );
}

#[tokio::test]
async fn a_server_that_ignores_range_gets_a_full_restart() {
    let (sent, requests) = fetch_broken_at_90(true).await;
    assert_eq!(requests, 2);
    assert_eq!(
        sent,
        SIZE * 9 / 10 + SIZE,
        "90 %, then the whole file again"
    );
    let ratio = sent as f64 / SIZE as f64;
    assert!(ratio >= 1.9, "bytes fetched {ratio:.3}x the file");
}
