//! A password in a `--mirror` URL, as the library sees it: the build's report (what `--json`
//! prints), its lock, every file it wrote (the ISO's bytes hold `versions.txt` and the SBOM) and
//! its temporary directory never hold it, and neither does the error of a build whose mirror
//! cannot be reached. (`builder/tests/build_mirror_password.rs` searches the real `cks-iso`'s
//! stdout and stderr too.)

use std::path::{Path, PathBuf};

use cks_builder::pipeline::Request;
use cks_e2e::{demo_inputs, run_build, start_upstream};
use cks_fixtures::demo::DemoConfig;

const PASSWORD: &str = "mirror-Pa55word-9f3";

fn with_login(mirror: &str) -> String {
    let (upstream, url) = mirror.split_once('=').expect("UPSTREAM=MIRROR");
    let (scheme, rest) = url.split_once("://").expect("a URL");
    format!("{upstream}={scheme}://builder:{PASSWORD}@{rest}")
}

fn files(dir: &Path) -> Vec<PathBuf> {
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

fn holds_password(bytes: &[u8]) -> bool {
    bytes
        .windows(PASSWORD.len())
        .any(|w| w == PASSWORD.as_bytes())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_mirror_password_is_in_no_report_lock_file_or_error() {
    let upstream = start_upstream(DemoConfig::default()).await;
    let work = tempfile::tempdir().expect("work dir");
    let (out, temp) = (work.path().join("out"), work.path().join("tmp"));
    std::fs::create_dir_all(&temp).expect("temp dir");
    let lock = work.path().join("cks.lock.json");
    let mut inputs = demo_inputs(&upstream, &out, "x86_64");
    inputs.mirrors = inputs.mirrors.iter().map(|m| with_login(m)).collect();
    inputs.cache_dir = None;
    let request = Request {
        write_lock: Some(lock.clone()),
        temp_dir: Some(temp.clone()),
        ..Request::default()
    };
    let summary = run_build(&inputs, request).await.expect("the build");
    let report = serde_json::to_string(&summary).expect("the report serialises");
    assert!(!holds_password(report.as_bytes()), "{report}");
    let written = files(work.path());
    assert!(written.iter().any(|f| f == &lock), "{written:?}");
    assert!(written.iter().any(|f| f == &summary.iso), "{written:?}");
    for file in written {
        let bytes = std::fs::read(&file).expect("reads");
        assert!(
            !holds_password(&bytes),
            "the password is in {}",
            file.display()
        );
    }

    // A mirror that refuses connections: the error names it, without the password.
    let mut failing = inputs.clone();
    for mirror in &mut failing.mirrors {
        if mirror.starts_with("https://dl.k8s.io=") {
            *mirror = format!("https://dl.k8s.io=http://builder:{PASSWORD}@127.0.0.1:9/k8s");
        }
    }
    failing.output_path = Some(work.path().join("out-failing"));
    let err = run_build(&failing, Request::default())
        .await
        .expect_err("nothing answers on port 9");
    let text = format!("{err:#} {err:?}");
    assert!(text.contains("127.0.0.1:9"), "{text}");
    assert!(!text.contains(PASSWORD), "{text}");
}
