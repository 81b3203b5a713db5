//! The size limits played as attacks on the real `cks-iso` binary, under `/usr/bin/time -v`: a
//! mirror sending a 256 MiB or an endless network manifest, an endless crictl, a 1 GiB kubelet,
//! a 503 with a 512 MiB body, a git server sending 200 MB of packets or endless ones. Each build
//! fails with one error naming the URL, the limit and the flag, under `--signatures warn` and
//! `require`; the peak memory stays under 100 MiB and no file larger than the limit appears in
//! the temporary folder.

use std::path::Path;
use std::process::{Command, Stdio};

use cks_fixtures::demo::run::build_args;
use cks_fixtures::demo::{DemoConfig, DemoUpstream};
use cks_fixtures::http::Fault;
use cks_pinning::arch::Arch;

/// The most a build may use, whatever a server sends.
const MEMORY_CEILING_KIB: u64 = 100 * 1024;

const CRICTL: &str = "/github.com/kubernetes-sigs/cri-tools/releases/download/v1.33.0/crictl-v1.33.0-linux-amd64.tar.gz";
const KUBELET: &str = "/dl.k8s.io/release/v1.33.13/bin/linux/amd64/kubelet";

/// What one run of `cks-iso` did.
struct Run {
    success: bool,
    stderr: String,
    /// Peak resident memory, from `/usr/bin/time -v`.
    max_rss_kib: u64,
    /// The largest file seen in the temporary folder while it ran.
    largest_file: u64,
}

/// The largest file below `dir`.
fn largest_file(dir: &Path) -> u64 {
    let mut largest = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_dir() {
                stack.push(entry.path());
            } else {
                largest = largest.max(meta.len());
            }
        }
    }
    largest
}

/// Runs `cks-iso` with `args` under `/usr/bin/time -v`, its temporary folder in `temp`, looking
/// at the sizes of the files there until it exits.
fn run(args: &[String], temp: &Path) -> Run {
    let mut child = Command::new("/usr/bin/time")
        .arg("-v")
        .arg(env!("CARGO_BIN_EXE_cks-iso"))
        .args(args)
        .env("TMPDIR", temp)
        .env("CI", "true")
        .env_remove("AUTOSCALER_VERSION")
        .env_remove("CCM_VERSION")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("/usr/bin/time runs cks-iso (the `time` package)");
    let stderr = child.stderr.take().expect("stderr is piped");
    let reader = std::thread::spawn(move || std::io::read_to_string(stderr).unwrap_or_default());
    let mut largest = 0;
    let status = loop {
        largest = largest.max(largest_file(temp));
        if let Some(status) = child.try_wait().expect("waiting for cks-iso") {
            break status;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let stderr = reader.join().expect("the stderr reader did not panic");
    let max_rss_kib = stderr
        .lines()
        .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes):"))
        .and_then(|v| v.trim().parse().ok())
        .expect("/usr/bin/time -v reports the peak memory");
    Run {
        success: status.success(),
        stderr,
        max_rss_kib,
        largest_file: largest,
    }
}

/// The demo build's arguments with `--signatures mode` and `extra`.
fn args(upstream: &DemoUpstream, out: &Path, mode: &str, extra: &[&str]) -> Vec<String> {
    let mut args = build_args(upstream, out, Arch::Amd64);
    if let Some(i) = args.iter().position(|a| a == "--signatures") {
        args[i + 1] = mode.to_string();
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

/// The file server path of the demo's network manifest.
fn network_path(upstream: &DemoUpstream) -> String {
    let url = upstream.network_yaml();
    url.strip_prefix("https:/").unwrap_or(&url).to_string()
}

/// Runs the attack in both signature modes and checks the common outcome: a failure whose
/// error names every one of `named`, memory under the ceiling, no file over `file_limit`.
fn attack(upstream: &DemoUpstream, extra: &[&str], named: &[&str], file_limit: u64) {
    for mode in ["warn", "require"] {
        let out = tempfile::tempdir().expect("out dir");
        let temp = tempfile::tempdir().expect("temp dir");
        let run = run(&args(upstream, out.path(), mode, extra), temp.path());
        eprintln!(
            "--signatures {mode}: peak memory {} KiB, largest file {} bytes",
            run.max_rss_kib, run.largest_file
        );
        assert!(!run.success, "--signatures {mode}: the build fails");
        // The error, up to the report of /usr/bin/time.
        let error: String = run
            .stderr
            .lines()
            .skip_while(|l| !l.starts_with("cks-iso: error"))
            .take_while(|l| !l.starts_with("Command ") && !l.starts_with('\t'))
            .collect();
        for name in named {
            assert!(
                error.contains(name),
                "--signatures {mode}: the error names {name}: {}",
                run.stderr
            );
        }
        assert!(
            !run.stderr.contains("overflow") && !run.stderr.contains("panicked"),
            "{}",
            run.stderr
        );
        assert!(
            run.max_rss_kib < MEMORY_CEILING_KIB,
            "--signatures {mode}: peak memory {} KiB",
            run.max_rss_kib
        );
        assert!(
            run.largest_file <= file_limit,
            "--signatures {mode}: a file of {} bytes was written (limit {file_limit})",
            run.largest_file
        );
        assert_eq!(
            std::fs::read_dir(out.path())
                .map(|d| d.count())
                .unwrap_or(0),
            0,
            "OUTPUT_PATH is empty"
        );
    }
}

#[test]
fn a_256_mib_network_manifest_is_refused_by_its_length_at_flat_memory() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let path = network_path(&upstream);
    upstream.file_server().always(
        &path,
        Fault::Flood {
            status: 200,
            length: Some(256 << 20),
            fill: b"# a comment line of a manifest\n",
        },
    );
    let url = upstream.file_server().url(&path);
    attack(
        &upstream,
        &[],
        &[&url, "manifest limit of 8 MiB", "--limit manifest=SIZE"],
        8 << 20,
    );
    assert!(
        upstream.file_server().body_bytes_sent() < 64 << 20,
        "the body was not read: {} bytes sent",
        upstream.file_server().body_bytes_sent()
    );
}

#[test]
fn an_endless_network_manifest_is_cut_off_at_the_limit() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let path = network_path(&upstream);
    upstream.file_server().always(
        &path,
        Fault::Flood {
            status: 200,
            length: None,
            fill: b"- [a, b, c]\n",
        },
    );
    let url = upstream.file_server().url(&path);
    attack(
        &upstream,
        &["--limit", "manifest=2MiB"],
        &[&url, "manifest limit of 2 MiB", "--limit manifest=SIZE"],
        2 << 20,
    );
}

#[test]
fn an_endless_crictl_stops_at_the_file_limit_on_disk() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    upstream.file_server().always(
        CRICTL,
        Fault::Flood {
            status: 200,
            length: None,
            fill: &[0u8; 512],
        },
    );
    let url = upstream.file_server().url(CRICTL);
    attack(
        &upstream,
        &["--limit", "file=24MiB"],
        &[&url, "file limit of 24 MiB", "--limit file=SIZE"],
        24 << 20,
    );
}

#[test]
fn a_1_gib_kubelet_is_refused_before_a_byte_is_written() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    upstream.file_server().always(
        KUBELET,
        Fault::Flood {
            status: 200,
            length: Some(1 << 30),
            fill: &[0u8; 512],
        },
    );
    let url = upstream.file_server().url(KUBELET);
    attack(
        &upstream,
        &[],
        &[&url, "file limit of 512 MiB", "--limit file=SIZE"],
        // The demo's own binaries, a few MB at most, are all a build writes.
        16 << 20,
    );
}

#[test]
fn a_503_with_a_512_mib_body_is_not_read() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    upstream.file_server().always(
        KUBELET,
        Fault::Flood {
            status: 503,
            length: Some(512 << 20),
            fill: b"<p>busy</p>\n",
        },
    );
    let url = upstream.file_server().url(KUBELET);
    attack(&upstream, &[], &[&url, "503"], 16 << 20);
    assert!(
        upstream.file_server().body_bytes_sent() < 128 << 20,
        "the error bodies were not read: {} bytes sent",
        upstream.file_server().body_bytes_sent()
    );
}

#[test]
fn a_git_server_sending_200_mb_of_packets_is_cut_off() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let path = "/hostile/autoscaler.git/info/refs";
    upstream.file_server().always(
        path,
        Fault::Flood {
            status: 200,
            length: Some(200_000_000),
            fill: b"003e0123456789012345678901234567890123456789 refs/tags/v1.0.0\n",
        },
    );
    let repo = upstream.file_server().url("/hostile/autoscaler.git");
    attack(
        &upstream,
        &["--autoscaler-repo", &repo],
        &[&repo, "git limit of 32 MiB", "--limit git=SIZE"],
        16 << 20,
    );
}

#[test]
fn a_git_server_sending_endless_packets_is_cut_off_at_the_git_limit() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let path = "/endless/autoscaler.git/info/refs";
    // Well-formed dumb `info/refs` lines: the listing reads each line as it arrives and refuses
    // a malformed one at once, so only an endless answer of good lines runs into the limit.
    upstream.file_server().always(
        path,
        Fault::Flood {
            status: 200,
            length: None,
            fill: b"0123456789012345678901234567890123456789\trefs/tags/v1.0.0\n",
        },
    );
    let repo = upstream.file_server().url("/endless/autoscaler.git");
    attack(
        &upstream,
        &["--autoscaler-repo", &repo],
        &[&repo, "git limit of 32 MiB", "--limit git=SIZE"],
        16 << 20,
    );
}

#[test]
fn an_unknown_limit_kind_is_a_one_line_error_naming_the_kinds() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let output = Command::new(env!("CARGO_BIN_EXE_cks-iso"))
        .args(args(
            &upstream,
            out.path(),
            "warn",
            &["--limit", "blobs=1GiB"],
        ))
        .output()
        .expect("cks-iso runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("cks-iso: error"))
        .collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(
        errors[0].contains("--limit")
            && errors[0].contains("blobs")
            && errors[0].contains("manifest, checksum, answer, oci, git, layers, file"),
        "{stderr}"
    );
    assert_eq!(
        upstream.file_server().total_requests(),
        0,
        "nothing fetched"
    );
}
