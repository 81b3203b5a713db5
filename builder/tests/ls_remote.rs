//! `ls_remote_tags` over git daemon, smart HTTP (v2 and forced v0), dumb HTTP, HTTPS and a local
//! path prints exactly what `git ls-remote --tags` prints for the same repository; transient
//! failures are retried and permanent ones are not.

use std::process::Command;

use cks_builder::fetch::ClientOptions;
use cks_builder::git::{GitError, LsRemoteOptions, ls_remote_tags, ls_remote_tags_with};
use cks_builder::http::HttpError;
use cks_builder::retry::RetryPolicy;
use cks_fixtures::git::{GitServers, autoscaler_ls_remote};
use cks_fixtures::http::{Fault, FileServer};

fn options(servers: Option<&GitServers>) -> LsRemoteOptions {
    LsRemoteOptions {
        client: ClientOptions {
            ca_files: servers.map(|s| vec![s.ca.ca_file()]).unwrap_or_default(),
            ..ClientOptions::default()
        },
        retry: RetryPolicy::immediate(3),
    }
}

fn git_ls_remote(url: &str, servers: &GitServers) -> String {
    let output = Command::new("git")
        .args(["ls-remote", "--tags", url])
        .env("GIT_SSL_CAINFO", servers.ca.ca_file())
        .output()
        .expect("git ls-remote runs");
    assert!(
        output.status.success(),
        "git ls-remote {url}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("utf-8")
}

/// The tag refs of a listing, sorted (git lists refs sorted; a listing file may not be).
fn tag_names(text: &str) -> Vec<&str> {
    let mut names: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split('\t').nth(1))
        .filter(|n| n.starts_with("refs/tags/"))
        .collect();
    names.sort_unstable();
    names
}

async fn matches_git_on_every_transport(listing: &str) {
    let servers = GitServers::start(listing, "autoscaler").expect("git servers");
    let expected_names = tag_names(listing);
    for (transport, url) in servers.urls() {
        let ours = ls_remote_tags_with(&url, &options(Some(&servers)))
            .await
            .unwrap_or_else(|e| panic!("{transport}: {e}"));
        let theirs = git_ls_remote(&url, &servers);
        assert_eq!(ours, theirs, "{transport} ({url})");
        assert_eq!(
            tag_names(&ours),
            expected_names,
            "{transport}: the listing's tags"
        );
    }
}

#[tokio::test]
async fn matches_git_ls_remote_on_every_transport() {
    let listing = autoscaler_ls_remote().expect("an autoscaler listing");
    matches_git_on_every_transport(&listing).await;
}

#[tokio::test]
async fn matches_git_ls_remote_for_the_real_autoscaler_tags() {
    let Some(path) = cks_fixtures::shared::upstream("autoscaler/ls-remote.txt") else {
        return;
    };
    let listing = std::fs::read_to_string(path).expect("read listing");
    matches_git_on_every_transport(&listing).await;
}

#[tokio::test]
async fn the_plain_function_lists_a_local_repository() {
    let listing = "\
1111111111111111111111111111111111111111\trefs/heads/master
2222222222222222222222222222222222222222\trefs/tags/cluster-autoscaler-1.33.6
3333333333333333333333333333333333333333\trefs/tags/cluster-autoscaler-1.33.6^{}
";
    let dir = tempfile::tempdir().expect("temp dir");
    let repo = dir.path().join("a.git");
    cks_fixtures::git::build_repo(listing, &repo).expect("repo");
    let text = ls_remote_tags(&repo.display().to_string())
        .await
        .expect("listed");
    assert_eq!(
        tag_names(&text),
        [
            "refs/tags/cluster-autoscaler-1.33.6",
            "refs/tags/cluster-autoscaler-1.33.6^{}"
        ]
    );
}

#[tokio::test]
async fn retries_a_flaky_server_and_fails_fast_on_404() {
    let dir = tempfile::tempdir().expect("temp dir");
    let listing = "\
2222222222222222222222222222222222222222\trefs/tags/v1
3333333333333333333333333333333333333333\trefs/tags/v1^{}
";
    let repo = dir.path().join("www").join("r.git");
    cks_fixtures::git::build_repo(listing, &repo).expect("repo");
    let server = FileServer::start(dir.path().join("www")).expect("server");
    server.schedule(
        "/r.git/info/refs",
        [Fault::Status(503), Fault::ShortBody { missing: 5 }],
    );
    let text = ls_remote_tags_with(&server.url("/r.git"), &options(None))
        .await
        .expect("listed after two failures");
    assert_eq!(tag_names(&text).len(), 2);
    assert_eq!(server.requests("/r.git/info/refs"), 3);

    let err = ls_remote_tags_with(&server.url("/missing.git"), &options(None))
        .await
        .expect_err("no such repository");
    assert!(
        matches!(err, GitError::Http(HttpError::NotFound { .. })),
        "{err}"
    );
    assert_eq!(server.requests("/missing.git/info/refs"), 1);
}

#[tokio::test]
async fn names_what_is_wrong_with_a_bad_remote() {
    let err = ls_remote_tags("git@github.com:kubernetes/autoscaler.git")
        .await
        .expect_err("ssh is not spoken");
    assert!(
        format!("{err:#}").contains("ssh is not supported"),
        "{err:#}"
    );

    let listing = autoscaler_ls_remote().expect("an autoscaler listing");
    let servers = GitServers::start(&listing, "autoscaler").expect("git servers");
    let missing = servers.daemon_url.replace("autoscaler.git", "nothing.git");
    let err = ls_remote_tags_with(&missing, &options(Some(&servers)))
        .await
        .expect_err("missing repository");
    assert!(matches!(err, GitError::Remote { .. }), "{err}");
    assert!(err.to_string().contains("nothing.git"), "{err}");
}

#[tokio::test]
async fn the_smart_http_fixture_speaks_v2_and_the_v0_url_forces_v0() {
    let listing = autoscaler_ls_remote().expect("an autoscaler listing");
    let servers = GitServers::start(&listing, "autoscaler").expect("git servers");
    let client = reqwest::Client::new();
    let mut first_lines = Vec::new();
    for url in [&servers.http_url, &servers.http_v0_url] {
        let body = client
            .get(format!("{url}/info/refs?service=git-upload-pack"))
            .header("Git-Protocol", "version=2")
            .send()
            .await
            .expect("answer")
            .bytes()
            .await
            .expect("body");
        first_lines.push(String::from_utf8_lossy(&body[..40.min(body.len())]).into_owned());
    }
    assert!(
        first_lines[0].starts_with("000eversion 2\n"),
        "{first_lines:?}"
    );
    assert!(
        first_lines[1].starts_with("001e# service=git-upload-pack\n0000"),
        "{first_lines:?}"
    );
    assert!(!first_lines[1].contains("version 2"), "{first_lines:?}");
}

#[tokio::test]
async fn lists_over_https_with_a_fetchers_client() {
    let listing = autoscaler_ls_remote().expect("an autoscaler listing");
    let servers = GitServers::start(&listing, "autoscaler").expect("git servers");
    let fetcher = cks_builder::fetch::Fetcher::new(cks_builder::fetch::FetchOptions {
        client: options(Some(&servers)).client,
        ..Default::default()
    })
    .expect("fetcher");
    let refs = cks_builder::git::list_tags_using(
        Some(fetcher.client()),
        &servers.https_url,
        &options(None),
    )
    .await
    .expect("listed over https");
    let ours = cks_builder::git::format_ls_remote(&refs);
    assert_eq!(ours, git_ls_remote(&servers.https_url, &servers));

    let err = ls_remote_tags_with(&servers.https_url, &options(None))
        .await
        .expect_err("the test CA is not trusted by default");
    assert!(
        matches!(err, GitError::Http(HttpError::Tls { .. })),
        "{err}"
    );
}
