//! A git daemon (`git://`) sending endless packets without a flush: the listing stops at the
//! `git` limit with an error naming the URL, the limit and the flag.

use std::io::{Read, Write};
use std::net::TcpListener;

use cks_builder::fetch::ClientOptions;
use cks_builder::git::{LsRemoteOptions, list_tags};
use cks_builder::retry::RetryPolicy;
use cks_pinning::limits::{LimitKind, Limits};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_git_daemon_sending_endless_packets_is_cut_off_at_the_git_limit() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("address").port();
    let sent = std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().expect("a connection");
        let mut request = [0u8; 1024];
        let _ = conn.read(&mut request);
        let line = b"003e0123456789012345678901234567890123456789 refs/tags/v1.0.0\n";
        let chunk: Vec<u8> = line
            .iter()
            .copied()
            .cycle()
            .take(line.len() * 1000)
            .collect();
        let mut sent = 0u64;
        while conn.write_all(&chunk).is_ok() {
            sent += chunk.len() as u64;
        }
        sent
    });
    let mut limits = Limits::default();
    limits.set(LimitKind::Git, 1 << 20);
    let options = LsRemoteOptions {
        client: ClientOptions {
            limits,
            ..ClientOptions::default()
        },
        retry: RetryPolicy::immediate(0),
    };
    let url = format!("git://127.0.0.1:{port}/autoscaler.git");
    let err = list_tags(&url, &options)
        .await
        .expect_err("an endless advertisement is refused");
    let text = err.to_string();
    for part in [url.as_str(), "git limit of 1 MiB", "--limit git=SIZE"] {
        assert!(text.contains(part), "{part}: {text}");
    }
    let sent = sent.join().expect("the server thread did not panic");
    assert!(sent < 64 << 20, "{sent} bytes sent");
}
