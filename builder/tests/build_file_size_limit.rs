//! A build past the file size limit (`ulimit -f`) fails as any write error does: a one-line
//! error naming the file and "file too large", exit status 1, and nothing left behind (no
//! `.partial`, no temporary directory). SIGXFSZ, which would kill the process silently, is
//! ignored from the first statement of `main`.

use std::path::Path;
use std::process::Command;

use cks_fixtures::demo::run::build_args;
use cks_fixtures::demo::{DemoConfig, DemoUpstream};
use cks_pinning::arch::Arch;

fn entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("a directory")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect()
}

/// Builds the demo of `config` with the file size limit at `kib` KiB; asserts the failure.
fn build_fails_past_the_limit(config: &DemoConfig, kib: u64) -> String {
    let upstream = DemoUpstream::start(config).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let temp = tempfile::tempdir().expect("temp dir");
    // `ulimit -f` counts 512-byte blocks in POSIX sh, 1 KiB ones in bash: `-f` through `sh -c`
    // with the limit in 512-byte blocks, as POSIX and dash count.
    let output = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -f {}; exec \"$0\" \"$@\"", kib * 2))
        .arg(env!("CARGO_BIN_EXE_cks-iso"))
        .args(build_args(&upstream, &out.path().join("new"), Arch::Amd64))
        .env("TMPDIR", temp.path())
        .env("CI", "true")
        .output()
        .expect("cks-iso runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(1), "{output:?}\n{stderr}");
    let error: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("cks-iso: error:"))
        .collect();
    assert_eq!(error.len(), 1, "one error line:\n{stderr}");
    assert!(
        error[0].to_lowercase().contains("file too large"),
        "{stderr}"
    );
    assert!(error[0].contains("ulimit -f"), "{stderr}");
    // OUTPUT_PATH, made by the build, went with it.
    let left = entries(out.path());
    assert!(
        left.is_empty(),
        "left beside OUTPUT_PATH: {left:?}\n{stderr}"
    );
    let temp_left = entries(temp.path());
    assert!(
        temp_left.is_empty(),
        "temporary files left: {temp_left:?}\n{stderr}"
    );
    error[0].to_string()
}

#[test]
fn a_download_past_the_file_size_limit_fails_naming_the_file_and_leaves_nothing() {
    let config = DemoConfig {
        binary_padding: 4 << 20,
        ..DemoConfig::default()
    };
    let error = build_fails_past_the_limit(&config, 1024);
    assert!(
        ["kubeadm", "kubelet", "kubectl"]
            .iter()
            .any(|name| error.contains(name)),
        "{error}"
    );
    eprintln!("{error}");
}

#[test]
fn an_iso_past_the_file_size_limit_fails_naming_it_and_leaves_nothing() {
    // Every file fits under the limit; the ISO holding three of them does not.
    let config = DemoConfig {
        binary_padding: 2 << 20,
        ..DemoConfig::default()
    };
    let error = build_fails_past_the_limit(&config, 4096);
    assert!(error.contains(".iso"), "{error}");
    eprintln!("{error}");
}
