//! A build checks free space once its plan is known and before any image blob is asked for:
//! a temporary folder or an OUTPUT_PATH on a filesystem too small for what the build will
//! write there is refused with one line naming the folder, the filesystem, the bytes needed and
//! free, and what to do; a roomy one builds as before. The small filesystems are tmpfs mounts,
//! which need root (as the CI runs); elsewhere the tests are skipped, saying why.

use std::path::Path;
use std::process::{Command, Output};

use cks_fixtures::demo::run::build_args;
use cks_fixtures::demo::{DemoConfig, DemoUpstream};
use cks_pinning::arch::Arch;

/// A tmpfs of a given size mounted on a temporary folder, unmounted when dropped.
struct Tmpfs(tempfile::TempDir);

impl Tmpfs {
    /// Mounts a tmpfs of `size` (`1m`), or says why it cannot (and the test is skipped).
    fn mount(size: &str) -> Option<Tmpfs> {
        if !rustix::process::geteuid().is_root() {
            cks_fixtures::skip::skip("mounting a small tmpfs needs root");
            return None;
        }
        let dir = tempfile::tempdir().expect("mount point");
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .output()
            .expect("mount runs");
        if !mounted.status.success() {
            cks_fixtures::skip::skip(&format!(
                "mount -t tmpfs refused here: {}",
                String::from_utf8_lossy(&mounted.stderr).trim()
            ));
            return None;
        }
        Some(Tmpfs(dir))
    }

    fn path(&self) -> &Path {
        self.0.path()
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.0.path()).status();
    }
}

/// The demo build into `out` with its temporary folder under `tmp`.
fn build(upstream: &DemoUpstream, out: &Path, tmp: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cks-iso"))
        .args(build_args(upstream, out, Arch::Amd64))
        .env("TMPDIR", tmp)
        .env("CI", "true")
        .output()
        .expect("cks-iso runs")
}

/// The image blobs the registry was asked for.
fn blob_requests(upstream: &DemoUpstream) -> Vec<String> {
    upstream
        .registry()
        .log()
        .snapshot()
        .into_keys()
        .map(|(path, _)| path)
        .filter(|path| path.contains("/blobs/"))
        .collect()
}

/// The single error line of a refused build, checked for the numbers and the advice.
fn refusal(output: &Output, folder: &Path, advice: &str) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("cks-iso: error:"))
        .collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    let line = errors[0];
    assert!(line.contains("not enough free space"), "{line}");
    assert!(line.contains(&folder.display().to_string()), "{line}");
    assert!(line.contains(" (tmpfs"), "the filesystem is named: {line}");
    assert!(
        line.contains("bytes (") && line.contains("are free"),
        "{line}"
    );
    assert!(line.contains(advice), "{line}");
    line.to_string()
}

#[test]
fn a_temporary_folder_too_small_is_refused_before_any_blob() {
    let Some(small) = Tmpfs::mount("256k") else {
        return;
    };
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let output = build(&upstream, &out.path().join("new"), small.path());
    let line = refusal(&output, small.path(), "--tmp-dir");
    assert!(line.contains("the temporary folder"), "{line}");
    assert_eq!(blob_requests(&upstream), Vec::<String>::new());
    assert!(
        !out.path().join("new").exists(),
        "OUTPUT_PATH made and removed"
    );
    let left: Vec<_> = std::fs::read_dir(small.path()).expect("tmpfs").collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}

#[test]
fn an_output_path_too_small_is_refused_before_any_blob() {
    let Some(small) = Tmpfs::mount("256k") else {
        return;
    };
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let tmp = tempfile::tempdir().expect("temp dir");
    let line = refusal(
        &build(&upstream, small.path(), tmp.path()),
        small.path(),
        "another OUTPUT_PATH",
    );
    assert!(line.contains("OUTPUT_PATH"), "{line}");
    assert_eq!(blob_requests(&upstream), Vec::<String>::new());
}

#[test]
fn a_roomy_filesystem_builds_as_before() {
    let Some(roomy) = Tmpfs::mount("64m") else {
        return;
    };
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = roomy.path().join("out");
    // The temporary folder and OUTPUT_PATH share the filesystem: their needs add up, and fit.
    let output = build(&upstream, &out, roomy.path());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        out.join("cks-demo-1.33.13-x86_64.iso").is_file(),
        "{stderr}"
    );
    assert!(!blob_requests(&upstream).is_empty());
}
