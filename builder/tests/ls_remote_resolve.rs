//! The autoscaler resolver fed by our ls-remote client picks the same releases over every
//! transport the real git servers offer (git daemon, smart HTTP v2 and v0, dumb HTTP, HTTPS and a
//! local path), and `cks-iso resolve --autoscaler-repo` does the same from the command line.

use std::process::Command;

use cks_builder::fetch::ClientOptions;
use cks_builder::git::{LsRemoteOptions, ls_remote_tags_with};
use cks_builder::retry::RetryPolicy;
use cks_fixtures::git::{GitServers, autoscaler_ls_remote};
use cks_pinning::autoscaler::resolve_listing;
use cks_pinning::version::KubeVersion;

async fn resolves_through_every_transport(listing: &str) {
    let servers = GitServers::start(listing, "autoscaler").expect("git servers");
    let options = LsRemoteOptions {
        client: ClientOptions {
            ca_files: vec![servers.ca.ca_file()],
            ..ClientOptions::default()
        },
        retry: RetryPolicy::immediate(3),
    };
    for (transport, url) in servers.urls() {
        let text = ls_remote_tags_with(&url, &options)
            .await
            .unwrap_or_else(|e| panic!("{transport}: {e}"));
        for (kubernetes, expected) in [("1.31.14", "1.31.5"), ("v1.33.13", "1.33.6")] {
            let k8s = KubeVersion::parse(kubernetes).expect("a version");
            let release = resolve_listing(&text, &k8s, None)
                .unwrap_or_else(|e| panic!("{transport}, {kubernetes}: {e}"));
            assert_eq!(release.version, expected, "{transport}");
            assert_eq!(release.tag, format!("cluster-autoscaler-{expected}"));
            // The commit is the peeled one for annotated tags, as the listing says.
            let peeled = format!("refs/tags/cluster-autoscaler-{expected}^{{}}");
            let plain = format!("refs/tags/cluster-autoscaler-{expected}");
            let commit = text
                .lines()
                .find(|l| l.ends_with(&format!("\t{peeled}")))
                .or_else(|| text.lines().find(|l| l.ends_with(&format!("\t{plain}"))))
                .and_then(|l| l.split('\t').next())
                .expect("the tag is listed");
            assert_eq!(release.commit, commit, "{transport}");
        }
    }
}

#[tokio::test]
async fn resolver_picks_the_same_releases_over_every_transport() {
    let listing = autoscaler_ls_remote().expect("our look-alike listing");
    resolves_through_every_transport(&listing).await;
}

#[tokio::test]
async fn resolver_picks_1_31_5_and_1_33_6_from_the_real_tags_over_every_transport() {
    let Some(path) = cks_fixtures::shared::upstream("autoscaler/ls-remote.txt") else {
        return;
    };
    let listing = std::fs::read_to_string(path).expect("the real listing");
    resolves_through_every_transport(&listing).await;
}

#[test]
fn resolve_cli_lists_a_remote_repository() {
    let listing = autoscaler_ls_remote().expect("our look-alike listing");
    let servers = GitServers::start(&listing, "autoscaler").expect("git servers");
    for (transport, url) in servers.urls() {
        if transport == "https" {
            continue; // the CLI trusts the system roots only; the library test covers HTTPS
        }
        let out = Command::new(env!("CARGO_BIN_EXE_cks-iso"))
            .args([
                "resolve",
                "--kubernetes-version",
                "1.33.13",
                "--autoscaler-repo",
                &url,
            ])
            .env_remove("AUTOSCALER_VERSION")
            .env_remove("CCM_VERSION")
            .output()
            .expect("cks-iso runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{transport}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            stdout.contains("autoscaler-tag: cluster-autoscaler-1.33.6"),
            "{transport}: {stdout}"
        );
    }
}

#[test]
fn resolve_cli_lists_the_canonical_repository_through_a_mirror_as_a_build_does() {
    let upstream =
        cks_fixtures::demo::DemoUpstream::start(&cks_fixtures::demo::DemoConfig::default())
            .expect("demo upstream");
    let canonical = "https://github.com/kubernetes/autoscaler.git";
    let run = |mirrors: &[String]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_cks-iso"));
        command
            .args([
                "resolve",
                "--kubernetes-version",
                "1.33.13",
                "--autoscaler-repo",
                canonical,
            ])
            .env_remove("AUTOSCALER_VERSION")
            .env_remove("CCM_VERSION");
        for mirror in mirrors {
            command.args(["--mirror", mirror]);
        }
        command.output().expect("cks-iso runs")
    };
    let out = run(&upstream.mirrors());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("autoscaler-tag: cluster-autoscaler-1.33.6\n"),
        "{stdout}"
    );
    assert!(upstream.git().log().total() > 0, "the mirror was asked");
    // A malformed mirror is refused, naming it.
    let bad = run(&["no-equals-sign".to_string()]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("--mirror no-equals-sign"),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
}
