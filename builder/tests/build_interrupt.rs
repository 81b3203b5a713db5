//! Ctrl-C during a build leaves nothing behind: no ISO, no `.partial`, no temporary directory.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use cks_fixtures::demo::run::build_args;
use cks_fixtures::demo::{DemoConfig, DemoUpstream};
use cks_pinning::arch::Arch;

#[test]
fn an_interrupted_build_leaves_nothing_in_the_output_or_temp_dir() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    // While planning (a small manifest in) the large files are already coming; the images come
    // with the downloads.
    for phase in [
        "fetched network.yaml",
        "== download",
        "== signatures",
        "== pack",
    ] {
        let out = tempfile::tempdir().expect("out dir");
        let temp = tempfile::tempdir().expect("temp dir");
        let mut child = Command::new(env!("CARGO_BIN_EXE_cks-iso"))
            .args(build_args(&upstream, out.path(), Arch::Amd64))
            .env("TMPDIR", temp.path())
            .env("CI", "true")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("cks-iso starts");
        let stderr = child.stderr.take().expect("stderr");
        let mut seen = false;
        let mut text = String::new();
        // Read stderr to its end, so cks-iso never writes to a closed pipe.
        for line in BufReader::new(stderr).lines() {
            let line = line.expect("a line");
            if !seen && line.contains(phase) {
                seen = true;
                let _ = Command::new("kill")
                    .args(["-INT", &child.id().to_string()])
                    .status();
            }
            text.push_str(&line);
            text.push('\n');
        }
        assert!(seen, "the build reached {phase}");
        let status = child.wait().expect("cks-iso ends");
        eprintln!("{phase}: {status}");
        assert!(
            status.success() || status.code() == Some(1),
            "{phase}: {status}\n{text}"
        );
        // The build may finish the phase before the signal lands; either it was interrupted and
        // left nothing, or it completed and left exactly the ISO, its sidecar and its SBOM.
        let left: Vec<_> = std::fs::read_dir(out.path())
            .expect("out dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        if status.success() {
            assert_eq!(left.len(), 3, "{left:?}");
        } else {
            assert!(text.contains("interrupted"), "{text}");
            assert!(left.is_empty(), "after Ctrl-C at {phase}: {left:?}");
        }
        let temp_left: Vec<_> = std::fs::read_dir(temp.path())
            .expect("temp dir")
            .map(|e| e.expect("entry").path())
            .collect();
        assert!(temp_left.is_empty(), "temporary files left: {temp_left:?}");
    }
}
