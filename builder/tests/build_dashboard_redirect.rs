//! A server that answers the dashboard URL with a 302 to an internal endpoint serving a
//! `kind: Secret`. When the URL asked for is itself internal (loopback here) the redirect is
//! followed, and the build fails naming the dashboard (a dashboard manifest names its images;
//! the Secret names none). When the URL names a public address (reached here through an
//! `HTTP_PROXY` on loopback that answers the 302, as any server on the way could), the redirect
//! is refused before the internal endpoint is asked. Nothing is left in OUTPUT_PATH.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::process::Command;

use cks_fixtures::demo::run::{build_args, with_flag};
use cks_fixtures::demo::{DemoConfig, DemoUpstream};
use cks_pinning::arch::Arch;

const SECRET: &str = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: cloud-credentials\n  namespace: kube-system\ndata:\n  token: c2VjcmV0\n";

/// Answers every request with `302 Location: target`.
fn redirect_to(target: String) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback listener");
    let port = listener.local_addr().expect("its address").port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(&stream);
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" {
                line.clear();
            }
            let _ = (&stream).write_all(
                format!(
                    "HTTP/1.1 302 Found\r\nLocation: {target}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                )
                .as_bytes(),
            );
        }
    });
    port
}

/// `cks-iso build` of `upstream` with `dashboard` as its dashboard URL and `env` set.
fn build(
    upstream: &DemoUpstream,
    out: &std::path::Path,
    dashboard: &str,
    env: &[(&str, &str)],
) -> std::process::Output {
    let args = with_flag(
        build_args(upstream, out, Arch::Amd64),
        "--dashboard-yaml",
        Some(dashboard),
    );
    Command::new(env!("CARGO_BIN_EXE_cks-iso"))
        .args(&args)
        .env("CI", "true")
        .env_remove("HTTP_PROXY")
        .env_remove("http_proxy")
        .env_remove("HTTPS_PROXY")
        .env_remove("https_proxy")
        .env_remove("ALL_PROXY")
        .env_remove("all_proxy")
        .envs(env.iter().copied())
        .output()
        .expect("cks-iso runs")
}

#[test]
fn a_public_url_redirected_to_an_internal_address_is_refused_before_it_is_asked() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    std::fs::write(upstream.root().join("internal-secret.yaml"), SECRET).expect("the endpoint");
    let proxy = redirect_to(upstream.file_server().url("/internal-secret.yaml"));
    let dir = tempfile::tempdir().expect("dir");
    let out = dir.path().join("out");
    let proxy = format!("http://127.0.0.1:{proxy}");
    let output = build(
        &upstream,
        &out,
        "http://203.0.113.10/dashboard.yaml",
        &[("HTTP_PROXY", &proxy), ("NO_PROXY", "127.0.0.1,localhost")],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("http://203.0.113.10/dashboard.yaml"),
        "{stderr}"
    );
    assert!(stderr.contains("an internal address"), "{stderr}");
    assert_eq!(
        upstream.file_server().requests("/internal-secret.yaml"),
        0,
        "the internal endpoint was asked"
    );
    assert!(!out.exists(), "nothing is left in OUTPUT_PATH");
}

#[test]
fn a_dashboard_redirected_to_a_secret_fails_the_build() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    std::fs::write(upstream.root().join("internal-secret.yaml"), SECRET).expect("the endpoint");
    let port = redirect_to(upstream.file_server().url("/internal-secret.yaml"));
    let dir = tempfile::tempdir().expect("dir");
    let out = dir.path().join("out");
    let dashboard = format!("http://127.0.0.1:{port}/dashboard.yaml");
    let output = build(&upstream, &out, &dashboard, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("dashboard"), "{stderr}");
    assert!(stderr.contains("no container image"), "{stderr}");
    assert!(
        upstream.file_server().requests("/internal-secret.yaml") > 0,
        "the redirect was followed"
    );
    assert!(!out.exists(), "nothing is left in OUTPUT_PATH");
}
