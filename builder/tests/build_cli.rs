//! `cks-iso build` on the command line: `--dry-run --json` prints the plan and downloads
//! nothing large, the script's positional arguments work, and bad input is a one-line error
//! naming it.

use std::process::Command;

use cks_fixtures::demo::{DemoConfig, DemoUpstream};

fn cks_iso() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cks-iso"));
    command
        .env_remove("AUTOSCALER_VERSION")
        .env_remove("CCM_VERSION")
        .env("CI", "true");
    command
}

#[test]
fn dry_run_json_prints_the_plan_and_fetches_no_binary_but_kubeadm() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let mut command = cks_iso();
    command.arg("build").arg(out.path()).args([
        "1.33.13",
        "1.6.2",
        "1.33.0",
        &upstream.network_yaml(),
        &upstream.dashboard_yaml(),
        "cks-1.33.13",
        "aarch64",
        "3.5.21",
        "--dry-run",
        "--json",
    ]);
    // kubeadm runs only once its signature is not refused: the demo's binaries are signed by
    // its test root.
    command.arg("--trusted-root").arg(upstream.trusted_root());
    for m in upstream.mirrors() {
        command.args(["--mirror", &m]);
    }
    let output = command.output().expect("cks-iso runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let plan: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON plan");
    assert_eq!(plan["autoscaler"]["tag"], "cluster-autoscaler-1.33.6");
    assert_eq!(plan["ccm"]["tag"], "v1.2.0");
    assert_eq!(plan["arch"], "arm64");
    let files = plan["files"].as_array().expect("files");
    assert!(
        files
            .iter()
            .any(|f| f["iso_path"] == "etcd/etcd-linux-amd64.tar.gz")
    );
    let images = plan["images"].as_array().expect("images");
    assert_eq!(
        images
            .iter()
            .filter(|i| i["reference"].as_str().unwrap_or("").contains("pause"))
            .count(),
        1
    );
    assert!(
        plan["iso"]
            .as_str()
            .expect("iso")
            .ends_with("cks-1.33.13-aarch64.iso")
    );
    // Planning fetched the manifests and the host's kubeadm, not the ISO's binaries.
    let server = upstream.file_server();
    assert_eq!(
        server.requests("/dl.k8s.io/release/v1.33.13/bin/linux/arm64/kubelet"),
        0
    );
    assert_eq!(
        server.requests("/dl.k8s.io/release/v1.33.13/bin/linux/amd64/kubeadm"),
        1
    );
    assert!(
        std::fs::read_dir(out.path())
            .map(|d| d.count())
            .unwrap_or(0)
            == 0
    );
}

#[test]
fn bad_input_is_a_one_line_error_naming_it() {
    for (args, name) in [
        (
            vec![
                "/tmp/x", "1.x", "1.6.2", "1.33.0", "n.yaml", "d.yaml", "cks",
            ],
            "KUBERNETES_VERSION",
        ),
        (
            vec![
                "/tmp/x", "1.33.13", "1.6.2", "1.33.0", "n.yaml", "d.yaml", "cks", "sparc",
            ],
            "ARCH",
        ),
        (vec!["/tmp/x", "1.33.13", "1.6.2"], "missing NETWORK_YAML"),
    ] {
        let output = cks_iso()
            .arg("build")
            .args(&args)
            .output()
            .expect("cks-iso runs");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(stderr.contains(name), "{stderr}");
    }
    let help = cks_iso()
        .args(["build", "--help"])
        .output()
        .expect("cks-iso runs");
    let help = String::from_utf8_lossy(&help.stdout);
    for input in [
        "OUTPUT_PATH",
        "--mirror",
        "--registry-mirror",
        "--cache-dir",
        "--config",
        "AUTOSCALER_VERSION",
        "Examples:",
    ] {
        assert!(help.contains(input), "--help explains {input}");
    }
}
