//! Ctrl-C at any moment of a build — its first milliseconds included — ends it with exit status
//! 1 and the word "interrupted", and leaves nothing behind: no ISO, no `.partial`, no temporary
//! directory. Each phase is interrupted several times at a random offset after the build shows
//! it has reached that phase.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use cks_fixtures::demo::run::build_args;
use cks_fixtures::demo::{DemoConfig, DemoUpstream};
use cks_pinning::arch::Arch;
use rand::Rng;

/// Runs of each phase.
const RUNS: usize = 5;
/// The latest a signal lands after its phase is seen.
const MAX_OFFSET: Duration = Duration::from_millis(3);
/// The longest one interrupted build may take to stop (it never comes near this).
const STOP_LIMIT: Duration = Duration::from_secs(120);

/// Bytes added to each Kubernetes binary of the upstream the last phases are interrupted on, so
/// that packing lasts longer than the offset (the demo's own ISO packs in a few milliseconds,
/// and a signal that lands after the build finished finds nothing left to interrupt).
const PACK_PADDING: usize = 24 << 20;

/// Where to interrupt: `None` as soon as the process handles SIGINT (its first milliseconds),
/// otherwise when stderr shows the line.
const PHASES: [Option<&str>; 7] = [
    None,
    Some("== plan"),
    // While planning (a small manifest in) the large files are already coming.
    Some("fetched network.yaml"),
    Some("== download"),
    Some("== signatures"),
    Some("== record"),
    Some("== pack"),
];

/// Whether `pid` catches (or holds back) SIGINT: from then on it is the program's to handle.
/// Before that (the dynamic loader, before `main`) no program can answer a signal.
fn handles_sigint(pid: u32) -> bool {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
        return false;
    };
    let mask = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
            .unwrap_or(0)
    };
    // SIGINT is signal 2: bit 1.
    (mask("SigCgt:") | mask("SigBlk:")) & 0b10 != 0
}

fn interrupt_after_random_offset(pid: u32) {
    let micros = rand::rng().random_range(0..=MAX_OFFSET.as_micros() as u64);
    std::thread::sleep(Duration::from_micros(micros));
    let _ = Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status();
}

fn entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("a directory")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect()
}

/// Waits for `child` at most [`STOP_LIMIT`], killing it past that.
fn wait_bounded(child: &mut Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + STOP_LIMIT;
    loop {
        if let Some(status) = child.try_wait().expect("waiting for cks-iso") {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("cks-iso did not stop within {STOP_LIMIT:?} of Ctrl-C");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn ctrl_c_at_a_random_moment_of_every_phase_exits_1_and_leaves_nothing() {
    let small = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let padded = DemoUpstream::start(&DemoConfig {
        binary_padding: PACK_PADDING,
        ..DemoConfig::default()
    })
    .expect("padded demo upstream");
    for phase in PHASES {
        let name = phase.unwrap_or("the first milliseconds");
        // The last phases of the small demo end within the offset: a signal would find the
        // build finished. With large binaries what follows them lasts longer.
        let late = matches!(phase, Some("== signatures" | "== record" | "== pack"));
        let upstream = if late { &padded } else { &small };
        for run in 0..RUNS {
            let out = tempfile::tempdir().expect("out dir");
            let temp = tempfile::tempdir().expect("temp dir");
            let mut child = Command::new(env!("CARGO_BIN_EXE_cks-iso"))
                .args(build_args(upstream, out.path(), Arch::Amd64))
                .env("TMPDIR", temp.path())
                .env("CI", "true")
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("cks-iso starts");
            let pid = child.id();
            let stderr = child.stderr.take().expect("stderr");
            // Read stderr to its end on a thread, so cks-iso never writes to a closed pipe.
            let (lines_tx, lines) = mpsc::channel::<String>();
            let reader = std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    if lines_tx.send(line).is_err() {
                        break;
                    }
                }
            });
            let mut text = String::new();
            match phase {
                None => {
                    while !handles_sigint(pid) {
                        assert!(
                            child.try_wait().expect("waiting").is_none(),
                            "cks-iso ended before it handled SIGINT"
                        );
                        std::thread::yield_now();
                    }
                    interrupt_after_random_offset(pid);
                }
                Some(marker) => {
                    let mut seen = false;
                    for line in lines.iter() {
                        text.push_str(&line);
                        text.push('\n');
                        if line.contains(marker) {
                            seen = true;
                            interrupt_after_random_offset(pid);
                            break;
                        }
                    }
                    assert!(seen, "{name} run {run}: the build never reached it\n{text}");
                }
            }
            let status = wait_bounded(&mut child);
            reader.join().expect("the reader ends");
            text.extend(lines.try_iter().map(|l| l + "\n"));
            assert_eq!(
                status.code(),
                Some(1),
                "{name} run {run}: {status} (not exit 1)\n{text}"
            );
            assert!(text.contains("interrupted"), "{name} run {run}:\n{text}");
            let left = entries(out.path());
            assert!(left.is_empty(), "{name} run {run}: left {left:?}\n{text}");
            let temp_left = entries(temp.path());
            assert!(
                temp_left.is_empty(),
                "{name} run {run}: temporary files left: {temp_left:?}\n{text}"
            );
        }
    }
}
