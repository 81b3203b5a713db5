//! A failed build says so in one line, each cause once: a manifest that is not there (404), a
//! refused connection and a signature that is not the file's, with no temporary file's name,
//! and "check the version and the architecture" only for the release binaries.

use std::path::Path;
use std::process::{Command, Output};

use cks_fixtures::demo::run::{build_args, with_flag};
use cks_fixtures::demo::{DemoConfig, DemoUpstream};
use cks_pinning::arch::Arch;

fn build(args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cks-iso"))
        .args(args)
        .env("CI", "true")
        .env_remove("AUTOSCALER_VERSION")
        .env_remove("CCM_VERSION")
        .output()
        .expect("cks-iso runs")
}

/// The one error line of a failed `output`, checked for what every error line must be.
fn one_line(output: &Output, out: &Path) -> String {
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("cks-iso: error:"))
        .collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    let line = errors[0].to_string();
    eprintln!("{line}");
    assert!(!line.contains(".tmp"), "a temporary name: {line}");
    // Two sha256 digests (71 characters each) are the longest a line has to carry.
    assert!(line.len() < 450, "{} characters: {line}", line.len());
    assert!(
        std::fs::read_dir(out).map(|d| d.count()).unwrap_or(0) == 0,
        "nothing left in the output folder"
    );
    line
}

fn count(text: &str, what: &str) -> usize {
    text.matches(what).count()
}

#[test]
fn a_manifest_that_is_not_there_is_one_line_naming_its_404_once() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let missing = upstream.network_yaml().replace(".yml", "-missing.yml");
    let args = with_flag(
        build_args(&upstream, out.path(), Arch::Amd64),
        "--network-yaml",
        Some(&missing),
    );
    let line = one_line(&build(&args), out.path());
    assert_eq!(count(&line, "404"), 1, "{line}");
    assert!(line.contains("-missing.yml"), "{line}");
    assert!(!line.contains("architecture"), "{line}");
}

#[test]
fn a_release_binary_that_is_not_there_names_the_version_and_architecture() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let args = with_flag(
        build_args(&upstream, out.path(), Arch::Amd64),
        "--kubernetes-version",
        Some("1.33.12"),
    );
    let line = one_line(&build(&args), out.path());
    assert_eq!(count(&line, "404"), 1, "{line}");
    assert_eq!(
        count(&line, "check the version and the architecture"),
        1,
        "{line}"
    );
}

#[test]
fn a_refused_connection_is_one_line_naming_the_refusal_once() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    // A port nothing listens on: bound, then closed.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let refused = format!("http://127.0.0.1:{port}/kube-flannel.yml");
    let args = with_flag(
        build_args(&upstream, out.path(), Arch::Amd64),
        "--network-yaml",
        Some(&refused),
    );
    let line = one_line(&build(&args), out.path());
    assert_eq!(count(&line.to_lowercase(), "refused"), 1, "{line}");
    assert_eq!(count(&line, &refused), 1, "{line}");
    assert!(!line.contains("architecture"), "{line}");
}

#[test]
fn a_signature_of_another_file_is_one_line_naming_the_mismatch_once() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let kubernetes = &upstream.config().kubernetes;
    let bin = upstream
        .root()
        .join(format!("dl.k8s.io/release/v{kubernetes}/bin/linux/amd64"));
    for ext in ["sig", "cert", "sigstore.json"] {
        let kubelet = bin.join(format!("kubelet.{ext}"));
        if kubelet.exists() {
            std::fs::copy(&kubelet, bin.join(format!("kubeadm.{ext}"))).expect("copies");
        }
    }
    let line = one_line(
        &build(&build_args(&upstream, out.path(), Arch::Amd64)),
        out.path(),
    );
    assert!(line.contains("kubeadm"), "{line}");
    assert!(!line.contains("architecture"), "{line}");
    let words: Vec<&str> = line.split(": ").collect();
    let mut seen = std::collections::HashSet::new();
    for part in &words {
        assert!(
            seen.insert(*part) || part.len() < 12,
            "`{part}` twice: {line}"
        );
    }
}
