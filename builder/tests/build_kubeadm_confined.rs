//! kubeadm runs confined: a mirror serving its own kubeadm with a matching `.sha256` and no
//! signature gets it run under `--signatures warn`, but without the caller's environment
//! (`CLOUDSTACK_SECRET`, registry tokens), in an empty scratch directory that is removed
//! afterwards, without stdin and without network (a loopback listener sees no connection);
//! the build still gets its image list and warns that kubeadm ran unverified, and how.

use std::io::ErrorKind;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use cks_fixtures::demo::run::{build_args, with_flag};
use cks_fixtures::demo::{DemoConfig, DemoUpstream};
use cks_pinning::arch::Arch;

/// The upstream's kubeadm replaced by one that first writes what it sees to `report`, its
/// checksum forged to match, its signature withheld.
fn swap_kubeadm(upstream: &DemoUpstream, report: &Path, port: u16) {
    let binary = upstream.root().join(format!(
        "dl.k8s.io/release/v{}/bin/linux/amd64/kubeadm",
        upstream.config().kubernetes
    ));
    let original = std::fs::read(&binary).expect("the upstream's kubeadm");
    let first_line = original.iter().position(|b| *b == b'\n').expect("a script") + 1;
    let report = report.display();
    let spy = format!(
        "{{ env; echo \"cwd=$(pwd)\"; echo \"entries=$(ls -A)\"; \
         if bash -c 'echo hi > /dev/tcp/127.0.0.1/{port}' 2>/dev/null; \
         then echo network=reached; else echo network=none; fi; \
         if read -r line; then echo stdin=open; else echo stdin=closed; fi; }} >> '{report}' 2>&1\n"
    );
    let mut swapped = original[..first_line].to_vec();
    swapped.extend(spy.as_bytes());
    swapped.extend(&original[first_line..]);
    std::fs::write(&binary, &swapped).expect("swap kubeadm");
    let side = |suffix: &str| PathBuf::from(format!("{}{suffix}", binary.display()));
    let sum = cks_builder::digest::sha256_hex(&swapped);
    std::fs::write(side(".sha256"), format!("{sum}\n")).expect("forge its checksum");
    for suffix in [".sig", ".cert", ".sigstore.json"] {
        let _ = std::fs::remove_file(side(suffix));
    }
}

#[test]
fn an_unverified_kubeadm_runs_without_the_callers_secrets_directory_stdin_or_network() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let scratch = tempfile::tempdir().expect("scratch");
    let report = scratch.path().join("kubeadm-saw");
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback listener");
    let port = listener.local_addr().expect("its address").port();
    swap_kubeadm(&upstream, &report, port);
    let out = scratch.path().join("out");
    let args = with_flag(
        build_args(&upstream, &out, Arch::Amd64),
        "--signatures",
        Some("warn"),
    );
    let caller_dir = scratch.path().join("caller");
    std::fs::create_dir(&caller_dir).expect("the caller's folder");
    std::fs::write(caller_dir.join("cks.toml"), "# the caller's files\n").expect("a file");
    let output = Command::new(env!("CARGO_BIN_EXE_cks-iso"))
        .args(&args)
        .current_dir(&caller_dir)
        .env("CI", "true")
        .env("CLOUDSTACK_SECRET", "secret-of-the-caller")
        .env("REGISTRY_TOKEN", "token-of-the-caller")
        .env("GITHUB_TOKEN", "github-token-of-the-caller")
        .stdin(Stdio::piped())
        .output()
        .expect("cks-iso runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let saw = std::fs::read_to_string(&report).expect("kubeadm ran and wrote what it saw");
    for secret in [
        "secret-of-the-caller",
        "token-of-the-caller",
        "github-token",
    ] {
        assert!(!saw.contains(secret), "{secret} reached kubeadm:\n{saw}");
    }
    for name in ["CLOUDSTACK_SECRET", "REGISTRY_TOKEN", "CI="] {
        assert!(!saw.contains(name), "{name} reached kubeadm:\n{saw}");
    }
    let cwd = saw
        .lines()
        .find_map(|l| l.strip_prefix("cwd="))
        .expect("its directory");
    assert_ne!(Path::new(cwd), caller_dir, "{saw}");
    assert!(
        !Path::new(cwd).exists(),
        "its scratch directory is removed: {cwd}"
    );
    assert!(
        saw.contains("entries=\n"),
        "it ran in an empty directory:\n{saw}"
    );
    assert!(saw.contains("stdin=closed"), "{saw}");
    assert!(saw.contains("network=none"), "{saw}");
    listener.set_nonblocking(true).expect("non-blocking");
    let accepted = listener.accept();
    assert!(
        matches!(&accepted, Err(e) if e.kind() == ErrorKind::WouldBlock),
        "a connection from kubeadm arrived: {accepted:?}"
    );
    let printed = format!("{stdout}{stderr}");
    assert!(printed.contains("ran unverified"), "{printed}");
    assert!(
        printed.contains("network namespace of its own"),
        "{printed}"
    );
    assert!(printed.contains("cleared environment"), "{printed}");
    // The image list still came: the ISO holds the images kubeadm named.
    let iso = stdout
        .lines()
        .find_map(|l| l.strip_prefix("iso: "))
        .expect("an iso: line");
    assert!(Path::new(iso).is_file(), "{stdout}");
}
