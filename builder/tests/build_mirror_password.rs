//! A password in a `--mirror` URL (`http://user:password@mirror/...`) is never printed or
//! written: it is searched for in stdout, stderr, `--json`, the lock, every file beside the ISO
//! (its `versions.txt` and SBOM are inside its bytes) and the temporary directory, of a build, a
//! `--locked` rebuild that gets the password from the flags again, and a failed build.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use cks_fixtures::demo::run::build_args;
use cks_fixtures::demo::{DemoConfig, DemoUpstream};
use cks_pinning::arch::Arch;

const PASSWORD: &str = "s3cret-Mirror-Pa55";

/// `args` with a login in every `--mirror` URL (`UPSTREAM=http://user:PASSWORD@host/...`).
fn with_login(args: Vec<String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut mirror_next = false;
    for arg in args {
        if mirror_next {
            let (upstream, mirror) = arg.split_once('=').expect("UPSTREAM=MIRROR");
            let (scheme, rest) = mirror.split_once("://").expect("a URL");
            out.push(format!("{upstream}={scheme}://builder:{PASSWORD}@{rest}"));
        } else {
            out.push(arg.clone());
        }
        mirror_next = arg == "--mirror";
    }
    out
}

/// Every file below `dir`, recursively.
fn files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("a directory").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn assert_nowhere(what: &str, output: &Output, dirs: &[&Path]) {
    for (stream, bytes) in [("stdout", &output.stdout), ("stderr", &output.stderr)] {
        assert!(
            !contains(bytes, PASSWORD.as_bytes()),
            "{what}: the password is in {stream}:\n{}",
            String::from_utf8_lossy(bytes)
        );
    }
    for dir in dirs {
        for file in files(dir) {
            let bytes = std::fs::read(&file).expect("reads the file");
            assert!(
                !contains(&bytes, PASSWORD.as_bytes()),
                "{what}: the password is in {}",
                file.display()
            );
        }
    }
}

fn cks_iso(args: &[String], temp: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cks-iso"))
        .args(args)
        .env("TMPDIR", temp)
        .env("CI", "true")
        .stdin(Stdio::null())
        .output()
        .expect("cks-iso runs")
}

#[test]
fn a_mirror_password_is_in_no_output_and_no_written_file() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let work = tempfile::tempdir().expect("work dir");
    let (out, temp) = (work.path().join("out"), work.path().join("tmp"));
    std::fs::create_dir_all(&temp).expect("temp dir");
    let lock = work.path().join("cks.lock.json");
    let args = with_login(build_args(&upstream, &out, Arch::Amd64));
    assert!(args.iter().any(|a| a.contains(PASSWORD)), "{args:?}");

    let mut first = args.clone();
    first.extend(["--json".to_string(), "--write-lock".to_string()]);
    first.push(lock.display().to_string());
    let output = cks_iso(&first, &temp);
    assert!(output.status.success(), "{output:?}");
    let json = String::from_utf8_lossy(&output.stdout);
    assert!(json.contains("\"summary\""), "{json}");
    // The mirrors are named, with their user: the lock still says where the files came from.
    let lock_text = std::fs::read_to_string(&lock).expect("the lock");
    assert!(lock_text.contains("builder@127.0.0.1"), "{lock_text}");
    assert_nowhere("build", &output, &[work.path()]);

    // The lock names the mirror without its password; the flags give it again.
    std::fs::remove_dir_all(&out).expect("clears the output");
    let mut again = args.clone();
    again.extend(["--json".to_string(), "--locked".to_string()]);
    again.push(lock.display().to_string());
    let output = cks_iso(&again, &temp);
    assert!(output.status.success(), "{output:?}");
    assert_nowhere("locked rebuild", &output, &[work.path()]);

    // A mirror that cannot be reached: the error names it, without the password.
    let mut failing: Vec<String> = Vec::new();
    let mut mirror_next = false;
    for arg in &args {
        let arg = if mirror_next && arg.starts_with("https://dl.k8s.io=") {
            format!("https://dl.k8s.io=http://builder:{PASSWORD}@127.0.0.1:9/nothing")
        } else {
            arg.clone()
        };
        mirror_next = arg == "--mirror";
        failing.push(arg);
    }
    std::fs::remove_dir_all(&out).expect("clears the output");
    let output = cks_iso(&failing, &temp);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("127.0.0.1:9"), "{stderr}");
    assert_nowhere("failed build", &output, &[work.path()]);
}
