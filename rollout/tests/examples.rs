//! Every described cluster in rollout/examples/ run through the real `cks-rollout simulate`
//! binary, its verdict (exit code and a key output line) asserted as the file's header says.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One example: its file and the run and verdict its header names.
struct Example {
    path: PathBuf,
    args: Vec<String>,
    exit: i32,
    line: String,
}

fn header(text: &str, key: &str, path: &Path) -> String {
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("# {key}: ")))
        .unwrap_or_else(|| panic!("{} has no `# {key}:` line", path.display()))
        .trim()
        .to_string()
}

/// The words of an `expect-args` line: split at spaces, except inside double quotes.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ' ' if !quoted => {
                if !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

fn examples() -> Vec<Example> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("rollout/examples is readable") {
        let path = entry.expect("directory entry").path();
        if path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("example is readable");
        let exit = header(&text, "expect-exit", &path);
        out.push(Example {
            args: words(&header(&text, "expect-args", &path)),
            exit: exit
                .parse()
                .unwrap_or_else(|_| panic!("{}: expect-exit {exit:?}", path.display())),
            line: header(&text, "expect-line", &path),
            path,
        });
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

#[test]
fn every_example_is_simulated_with_its_expected_verdict() {
    let all = examples();
    let names: Vec<String> = all
        .iter()
        .filter_map(|e| e.path.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    for wanted in [
        "case1-stale-ready-on-resume",
        "case2-healthy-end-is-running",
        "case3-empty-affinity-groups",
        "case4-cancel",
        "case5-quorum-by-address",
        "case6-release-after-failed-uncordon",
        "case7-failed-stop-is-down",
        "case8-skipped-type-ends-running",
        "case9-capacity-is-a-warning",
        "case10-cancel-says-so",
        "case11-failure-says-what-release-did",
        "store-only",
        "cloudstack-state-guard",
        "refused-offering",
        "simulate-cluster",
        "soak-interrupted-by-not-ready",
        "gate-fails-on-batch-2",
        "window-closes-then-resumes",
        "reboot-required-two-of-five",
    ] {
        assert!(
            names.iter().any(|n| n == wanted),
            "rollout/examples/{wanted}.yaml is missing; found {names:?}"
        );
    }
    for e in &all {
        let out = Command::new(env!("CARGO_BIN_EXE_cks-rollout"))
            .arg("simulate")
            .arg("--cluster")
            .arg(&e.path)
            .args(&e.args)
            .output()
            .expect("cks-rollout runs");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let name = e.path.display();
        assert_eq!(out.status.code(), Some(e.exit), "{name}: exit code\n{text}");
        assert!(
            text.lines().any(|l| l.contains(&e.line)),
            "{name}: no line containing {:?}\n{text}",
            e.line
        );
        // Only a run refused at the argument (1, or 2 for a bad value) ends before the
        // invariants' verdict.
        if e.exit > 2 || e.exit == 0 || text.contains("invariants:") {
            assert!(
                text.contains("invariants: all held"),
                "{name}: an invariant broke\n{text}"
            );
        }
    }
}

#[test]
fn a_reader_that_stops_early_ends_the_simulation_quietly() {
    use std::io::{BufRead, BufReader};
    // `cks-rollout simulate ... | head -1`: the reader closes the pipe after one line.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/simulate-cluster.yaml");
    let mut child = Command::new(env!("CARGO_BIN_EXE_cks-rollout"))
        .arg("simulate")
        .arg("--cluster")
        .arg(&path)
        .args(["run", "--offering", "worker=large", "--maxunavailable", "1"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("cks-rollout runs");
    let stdout = child.stdout.take().expect("stdout");
    let mut first = String::new();
    BufReader::new(stdout)
        .read_line(&mut first)
        .expect("the first line");
    // The reader is gone: what the simulator prints next meets a closed pipe.
    let out = child.wait_with_output().expect("cks-rollout ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!first.is_empty());
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}
