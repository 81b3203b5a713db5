//! Every fault kind of the offline upstream is retried or failed as specified, with the attempts
//! counted by the server, and a failed download leaves nothing behind.

use std::path::Path;
use std::time::{Duration, Instant};

use cks_builder::fetch::{
    ClientOptions, FetchError, FetchOptions, FetchedFile, Fetcher, FileError, FileSpec,
};
use cks_builder::http::HttpError;
use cks_builder::retry::RetryPolicy;
use cks_fixtures::http::{Fault, FileServer};

const SIZE: usize = 200_000;

fn content() -> Vec<u8> {
    (0..SIZE).map(|i| (i * 7 % 251) as u8).collect()
}

fn upstream() -> (tempfile::TempDir, FileServer) {
    let root = tempfile::tempdir().expect("temp dir");
    std::fs::write(root.path().join("blob"), content()).expect("write blob");
    let server = FileServer::start(root.path()).expect("file server");
    (root, server)
}

fn fetcher(retries: u32) -> Fetcher {
    Fetcher::new(FetchOptions {
        retry: RetryPolicy::immediate(retries),
        client: ClientOptions {
            stall_timeout: Duration::from_secs(1),
            ..ClientOptions::default()
        },
        ..FetchOptions::default()
    })
    .expect("fetcher")
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

type Outcome = Result<FetchedFile, FileError>;

/// Fetches `/blob` with `faults` scheduled; returns the result, the server's request count and
/// the destination directory.
async fn fetch_with(faults: Vec<Fault>, retries: u32) -> (Outcome, u64, tempfile::TempDir) {
    let (_root, server) = upstream();
    server.schedule("/blob", faults);
    let out = tempfile::tempdir().expect("temp dir");
    let spec = FileSpec::new("blob", server.url("/blob"), out.path().join("blob"));
    let result = fetcher(retries).fetch(&spec).await;
    (result, server.requests("/blob"), out)
}

fn assert_fetched(result: &Outcome, out: &Path) {
    let file = result.as_ref().expect("fetched");
    assert_eq!(std::fs::read(out.join("blob")).expect("dest"), content());
    assert_eq!(file.bytes, SIZE as u64);
    assert_eq!(entries(out), ["blob"], "only the file, no temporary left");
}

#[tokio::test]
async fn retries_a_503_twice_then_succeeds() {
    let (result, requests, out) = fetch_with(vec![Fault::Status(503), Fault::Status(503)], 3).await;
    assert_fetched(&result, out.path());
    assert_eq!(result.expect("fetched").attempts, 3);
    assert_eq!(requests, 3);
}

#[tokio::test]
async fn retries_every_5xx_408_and_429() {
    for status in [500, 502, 504, 408, 429] {
        let (result, requests, out) = fetch_with(vec![Fault::Status(status)], 3).await;
        assert_fetched(&result, out.path());
        assert_eq!(result.expect("fetched").attempts, 2, "status {status}");
        assert_eq!(requests, 2, "status {status}");
    }
}

#[tokio::test]
async fn gives_up_after_three_retries_and_leaves_nothing() {
    let (_root, server) = upstream();
    server.always("/blob", Fault::Status(503));
    let out = tempfile::tempdir().expect("temp dir");
    let spec = FileSpec::new("blob", server.url("/blob"), out.path().join("blob"));
    let err = fetcher(3).fetch(&spec).await.expect_err("always 503");
    assert_eq!(err.attempts, 4);
    assert_eq!(server.requests("/blob"), 4);
    assert!(
        matches!(
            err.error,
            FetchError::Http(HttpError::Unavailable { status: 503, .. })
        ),
        "{err}"
    );
    let text = err.to_string();
    assert!(
        text.contains(&server.url("/blob")) && text.contains("503"),
        "{text}"
    );
    assert!(entries(out.path()).is_empty(), "{:?}", entries(out.path()));
}

#[tokio::test]
async fn fails_fast_on_404_and_other_4xx_naming_url_and_status() {
    for status in [404, 403, 401, 410] {
        let (result, requests, out) = fetch_with(vec![Fault::Status(status)], 3).await;
        let err = result.expect_err("4xx is final");
        assert_eq!((err.attempts, requests), (1, 1), "status {status}");
        let text = err.to_string();
        assert!(
            text.contains("/blob") && text.contains(&status.to_string()),
            "{text}"
        );
        assert!(
            entries(out.path()).is_empty(),
            "error page not saved: {status}"
        );
    }
}

#[tokio::test]
async fn retries_a_connection_reset_mid_body() {
    let (result, requests, out) = fetch_with(vec![Fault::CloseMidBody { after: 50_000 }], 3).await;
    assert_fetched(&result, out.path());
    assert_eq!((result.expect("fetched").attempts, requests), (2, 2));
}

#[tokio::test]
async fn retries_a_body_shorter_than_its_content_length() {
    let (result, requests, out) = fetch_with(vec![Fault::ShortBody { missing: 10 }], 3).await;
    assert_fetched(&result, out.path());
    assert_eq!((result.expect("fetched").attempts, requests), (2, 2));

    let faults = vec![Fault::ShortBody { missing: 10 }; 2];
    let (result, requests, out) = fetch_with(faults, 1).await;
    let err = result.expect_err("short twice, one retry");
    assert!(
        matches!(err.error, FetchError::Truncated { expected, .. } if expected == SIZE as u64),
        "{err}"
    );
    assert_eq!((err.attempts, requests), (2, 2));
    assert!(entries(out.path()).is_empty());
}

#[tokio::test]
async fn retries_a_stalled_body_after_the_read_stall_timeout() {
    let stall = Fault::Stall {
        after: 1000,
        pause: Duration::from_secs(10),
    };
    let (result, requests, out) = fetch_with(vec![stall.clone()], 3).await;
    assert_fetched(&result, out.path());
    assert_eq!((result.expect("fetched").attempts, requests), (2, 2));

    let (result, requests, out) = fetch_with(vec![stall; 3], 2).await;
    let err = result.expect_err("stalls every time");
    // Each attempt resumes where the last stalled: 1000 bytes more each time.
    assert!(
        matches!(err.error, FetchError::Stalled { received: 3000, .. }),
        "{err}"
    );
    assert_eq!((err.attempts, requests), (3, 3));
    assert!(entries(out.path()).is_empty());
}

#[tokio::test]
async fn a_pause_shorter_than_the_stall_timeout_is_not_a_failure() {
    let pause = Fault::Stall {
        after: 1000,
        pause: Duration::from_millis(50),
    };
    let (result, requests, out) = fetch_with(vec![pause], 3).await;
    assert_fetched(&result, out.path());
    assert_eq!((result.expect("fetched").attempts, requests), (1, 1));
}

#[tokio::test]
async fn retries_a_server_that_sends_no_headers() {
    let silent = Fault::Silent {
        pause: Duration::from_secs(10),
    };
    let (result, requests, out) = fetch_with(vec![silent.clone()], 3).await;
    assert_fetched(&result, out.path());
    assert_eq!((result.expect("fetched").attempts, requests), (2, 2));

    let (result, requests, _out) = fetch_with(vec![silent; 2], 1).await;
    let err = result.expect_err("silent every time");
    assert!(
        matches!(err.error, FetchError::Http(HttpError::Stalled { .. })),
        "{err}"
    );
    assert_eq!((err.attempts, requests), (2, 2));
}

#[tokio::test]
async fn retries_a_hangup_without_answer() {
    let (result, requests, out) = fetch_with(vec![Fault::Hangup, Fault::Hangup], 3).await;
    assert_fetched(&result, out.path());
    assert_eq!((result.expect("fetched").attempts, requests), (3, 3));
}

#[tokio::test]
async fn retries_a_refused_connection() {
    let port = cks_fixtures::process::free_port().expect("port");
    let out = tempfile::tempdir().expect("temp dir");
    let url = format!("http://127.0.0.1:{port}/blob");
    let spec = FileSpec::new("blob", &url, out.path().join("blob"));
    let err = fetcher(2).fetch(&spec).await.expect_err("nothing listens");
    assert!(
        matches!(err.error, FetchError::Http(HttpError::Transport { .. })),
        "{err}"
    );
    assert_eq!(err.attempts, 3);
    assert!(err.to_string().contains(&url), "{err}");
    assert!(entries(out.path()).is_empty());
}

#[tokio::test]
async fn honours_retry_after_on_429_and_503() {
    for status in [429, 503] {
        let fault = Fault::RetryAfter { status, seconds: 1 };
        let start = Instant::now();
        let (result, requests, out) = fetch_with(vec![fault], 3).await;
        // RetryPolicy::immediate waits for nothing but the server's Retry-After.
        assert!(
            start.elapsed() >= Duration::from_millis(950),
            "waited {:?}",
            start.elapsed()
        );
        assert_fetched(&result, out.path());
        assert_eq!((result.expect("fetched").attempts, requests), (2, 2));
    }
}

#[tokio::test]
async fn caps_a_long_retry_after() {
    let (_root, server) = upstream();
    server.schedule(
        "/blob",
        [Fault::RetryAfter {
            status: 503,
            seconds: 3600,
        }],
    );
    let out = tempfile::tempdir().expect("temp dir");
    let fetcher = Fetcher::new(FetchOptions {
        retry: RetryPolicy {
            retry_after_cap: Duration::from_millis(100),
            ..RetryPolicy::immediate(3)
        },
        ..FetchOptions::default()
    })
    .expect("fetcher");
    let spec = FileSpec::new("blob", server.url("/blob"), out.path().join("blob"));
    let file = tokio::time::timeout(Duration::from_secs(60), fetcher.fetch(&spec))
        .await
        .expect("an hour-long Retry-After is capped")
        .expect("fetched");
    assert_eq!(file.attempts, 2);
}

#[tokio::test]
async fn gives_up_on_a_connection_that_never_completes_after_the_connect_timeout() {
    // A listener with a backlog of 0 that never accepts: once its queue is full, further
    // connection attempts get no answer and only the connect timeout ends them.
    let socket = tokio::net::TcpSocket::new_v4().expect("socket");
    socket
        .bind("127.0.0.1:0".parse().expect("addr"))
        .expect("bind");
    let listener = socket.listen(0).expect("listen");
    let addr = listener.local_addr().expect("addr");
    let mut fillers = Vec::new();
    for _ in 0..2 {
        if let Ok(Ok(stream)) = tokio::time::timeout(
            Duration::from_millis(200),
            tokio::net::TcpStream::connect(addr),
        )
        .await
        {
            fillers.push(stream);
        }
    }
    let fetcher = Fetcher::new(FetchOptions {
        retry: RetryPolicy::immediate(1),
        client: ClientOptions {
            connect_timeout: Duration::from_millis(300),
            ..ClientOptions::default()
        },
        ..FetchOptions::default()
    })
    .expect("fetcher");
    let out = tempfile::tempdir().expect("temp dir");
    let spec = FileSpec::new(
        "blob",
        format!("http://{addr}/blob"),
        out.path().join("blob"),
    );
    let err = tokio::time::timeout(Duration::from_secs(60), fetcher.fetch(&spec))
        .await
        .expect("the connect timeout ends each attempt")
        .expect_err("never connects");
    // reqwest and its connector both enforce the connect timeout; whichever fires first words
    // the error (under load, reqwest's own timer can word it without naming the connect).
    let text = err.to_string();
    assert!(
        text.contains("deadline has elapsed") || text.contains("operation timed out"),
        "{err}"
    );
    assert!(
        matches!(err.error, FetchError::Http(HttpError::Transport { .. })),
        "{err}"
    );
    assert_eq!(err.attempts, 2);
    assert!(entries(out.path()).is_empty());
    drop(listener);
}
