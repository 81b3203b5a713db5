//! The sixth argument and the dashboard flags of `cks-iso build`: a Headlamp version (the 4.23
//! script's form) or a dashboard manifest, `--headlamp` and `--dashboard` together, and each
//! combination no CloudStack line asked for can take refused with one line naming the line and
//! why, before any request reaches the upstream.

use std::process::{Command, Output};

use cks_fixtures::demo::{DemoConfig, DemoUpstream};

fn cks_iso() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cks-iso"));
    command
        .env_remove("AUTOSCALER_VERSION")
        .env_remove("CCM_VERSION")
        .env("CI", "true");
    command
}

/// `cks-iso build` with the script's arguments, `sixth` in position 6, then `extra`.
fn build(upstream: &DemoUpstream, out: &std::path::Path, sixth: &str, extra: &[&str]) -> Output {
    let mut command = cks_iso();
    command.arg("build").arg(out).args([
        "1.33.13",
        "1.6.2",
        "1.33.0",
        &upstream.network_yaml(),
        sixth,
        "cks-1.33.13",
        "x86_64",
    ]);
    command.args(extra).args(["--dry-run", "--json"]);
    // kubeadm runs only once its signature is not refused: the demo's binaries are signed by
    // its test root.
    command.arg("--trusted-root").arg(upstream.trusted_root());
    for m in upstream.mirrors() {
        command.args(["--mirror", &m]);
    }
    command.output().expect("cks-iso runs")
}

fn no_request_reached(upstream: &DemoUpstream) {
    assert_eq!(
        upstream.file_server().total_requests(),
        0,
        "no file fetched"
    );
    assert_eq!(upstream.registry().log().total(), 0, "no image pulled");
    assert_eq!(upstream.git().log().total(), 0, "no tag listed");
}

#[test]
fn a_headlamp_version_or_a_manifest_in_position_6_and_both_flags_together() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    for (sixth, extra, dashboard, headlamp) in [
        (upstream.dashboard_yaml(), vec![], true, false),
        (
            "0.40.1".to_string(),
            vec!["--cloudstack", "4.23"],
            false,
            true,
        ),
        (
            "v0.40.1".to_string(),
            vec!["--dashboard", "DASHBOARD"],
            true,
            true,
        ),
        (
            upstream.dashboard_yaml(),
            vec!["--headlamp", "0.40.1"],
            true,
            true,
        ),
    ] {
        let dashboard_url = upstream.dashboard_yaml();
        let extra: Vec<&str> = extra
            .iter()
            .map(|a| {
                if *a == "DASHBOARD" {
                    dashboard_url.as_str()
                } else {
                    a
                }
            })
            .collect();
        let output = build(&upstream, out.path(), &sixth, &extra);
        assert!(
            output.status.success(),
            "{sixth} {extra:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let plan: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON plan");
        let files: Vec<&str> = plan["files"]
            .as_array()
            .expect("files")
            .iter()
            .filter_map(|f| f["iso_path"].as_str())
            .collect();
        assert_eq!(
            files.contains(&"dashboard.yaml"),
            dashboard,
            "{sixth} {extra:?}"
        );
        assert_eq!(
            files.contains(&"headlamp.yaml"),
            headlamp,
            "{sixth} {extra:?}"
        );
        let images: Vec<&str> = plan["images"]
            .as_array()
            .expect("images")
            .iter()
            .filter_map(|i| i["reference"].as_str())
            .collect();
        assert_eq!(
            images.contains(&"ghcr.io/headlamp-k8s/headlamp:v0.40.1"),
            headlamp,
            "{images:?}"
        );
        assert!(!images.iter().any(|i| i.ends_with(":latest")), "{images:?}");
        if headlamp {
            assert_eq!(plan["headlamp"]["version"], "0.40.1");
            assert_eq!(
                plan["headlamp"]["url"],
                "https://raw.githubusercontent.com/kubernetes-sigs/headlamp/v0.40.1/kubernetes-headlamp.yaml"
            );
        }
    }
}

#[test]
fn combinations_no_line_can_take_are_refused_before_any_download() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    for (sixth, extra, expected) in [
        (
            "0.40.1",
            vec!["--cloudstack", "any"],
            "cks-iso: error: an ISO with only Headlamp 0.40.1 does not fit CloudStack 4.20, 4.22: no dashboard.yaml (run the same command with -v for the node scripts that need it)",
        ),
        (
            "0.40.1",
            vec!["--cloudstack", "4.22"],
            "cks-iso: error: an ISO with only Headlamp 0.40.1 does not fit CloudStack 4.22: no dashboard.yaml (run the same command with -v for the node scripts that need it)",
        ),
        (
            "",
            vec!["--cloudstack", "4.23"],
            "cks-iso: error: an ISO with no dashboard (neither DASHBOARD_YAML nor --headlamp) does not fit CloudStack 4.23: no headlamp.yaml or dashboard.yaml (run the same command with -v for the node scripts that need it)",
        ),
        (
            "0.40.1",
            vec!["--cloudstack", "4.21"],
            "bad --cloudstack `4.21`",
        ),
        (
            "0.40.1",
            vec!["--headlamp", "0.40"],
            "bad --headlamp `0.40`",
        ),
    ] {
        let output = build(&upstream, out.path(), sixth, &extra);
        // A combination no CloudStack line can take is a bad input value: status 2.
        assert_eq!(output.status.code(), Some(2), "{sixth} {extra:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(stderr.contains(expected), "{expected}\n{stderr}");
        no_request_reached(&upstream);
    }
    assert_eq!(
        std::fs::read_dir(out.path())
            .map(|d| d.count())
            .unwrap_or(0),
        0
    );
}

#[test]
fn a_headlamp_release_the_upstream_does_not_have_fails_on_its_manifest_404() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let dashboard = upstream.dashboard_yaml();
    let output = build(&upstream, out.path(), &dashboard, &["--headlamp", "0.41.0"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("headlamp/v0.41.0/kubernetes-headlamp.yaml") && stderr.contains("404"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_dir(out.path())
            .map(|d| d.count())
            .unwrap_or(0),
        0
    );
}

/// The 4.23 script's own arguments, a Headlamp release sixth and no flag, build for 4.23.
#[test]
fn the_4_23_scripts_arguments_alone_build_for_4_23() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let output = build(&upstream, out.path(), "0.40.1", &[]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let plan: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON plan");
    assert_eq!(plan["cloudstack"], "4.23", "{plan}");
    assert_eq!(plan["headlamp"]["version"], "0.40.1");
}

/// A refusal is one sentence; `-v` shows the node scripts behind it.
#[test]
fn a_refusal_is_one_sentence_and_v_shows_the_node_scripts() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let quiet = build(&upstream, out.path(), "0.40.1", &["--cloudstack", "4.22"]);
    let stderr = String::from_utf8_lossy(&quiet.stderr);
    // A dashboard no line can take is bad input: 2, as the exit-status table says.
    assert_eq!(quiet.status.code(), Some(2), "{stderr}");
    assert!(stderr.len() < 250, "{} characters: {stderr}", stderr.len());
    assert!(!stderr.contains("deploy-kube-system"), "{stderr}");
    let verbose = build(
        &upstream,
        out.path(),
        "0.40.1",
        &["--cloudstack", "4.22", "-v"],
    );
    let stderr = String::from_utf8_lossy(&verbose.stderr);
    assert!(stderr.contains("deploy-kube-system"), "{stderr}");
    no_request_reached(&upstream);
}
