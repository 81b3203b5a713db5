//! `--events` and `--webhook`: one JSON line per step in the versioned schema, to a file and
//! POSTed to a real HTTP server on 127.0.0.1, one that answers, one that answers 500 and one
//! that never answers (the rollout finishes all the same, with one warning).

use cks_rollout::engine::StepKind;
use cks_rollout::events::{EventLine, SCHEMA};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// How the test server answers.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Ok,
    Error500,
    Hang,
}

/// An HTTP server on 127.0.0.1 recording each POST body; stopped on drop.
struct Server {
    port: u16,
    bodies: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
}

fn serve(
    mut stream: TcpStream,
    mode: Mode,
    bodies: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
) {
    let Ok(clone) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(clone);
    loop {
        let mut length = 0usize;
        let mut line = String::new();
        loop {
            line.clear();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            if let Some((k, v)) = l.split_once(':')
                && k.eq_ignore_ascii_case("content-length")
            {
                length = v.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0u8; length.min(1 << 20)];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        bodies
            .lock()
            .expect("bodies")
            .push(String::from_utf8_lossy(&body).into_owned());
        match mode {
            Mode::Ok => {
                let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n");
            }
            Mode::Error500 => {
                let _ = stream
                    .write_all(b"HTTP/1.1 500 Internal Server Error\r\ncontent-length: 0\r\n\r\n");
            }
            Mode::Hang => {
                while !stop.load(Ordering::SeqCst) {
                    std::thread::park_timeout(std::time::Duration::from_millis(50));
                }
                return;
            }
        }
    }
}

impl Server {
    fn start(mode: Mode) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().expect("address").port();
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (b, s) = (bodies.clone(), stop.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if s.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (b, s) = (b.clone(), s.clone());
                std::thread::spawn(move || serve(stream, mode, b, s));
            }
        });
        Server { port, bodies, stop }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/hooks/rollout?token=s3cr3t", self.port)
    }

    fn bodies(&self) -> Vec<String> {
        self.bodies.lock().expect("bodies").clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
}

/// `simulate` of the gate example (batch 1 rolled, batch 2 stopped by its gate).
fn simulate(extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cks-rollout"))
        .arg("simulate")
        .arg("--cluster")
        .arg(example("gate-fails-on-batch-2.yaml"))
        .args([
            "run",
            "--offering",
            "worker=medium",
            "--gate",
            "./slo-check.sh",
        ])
        .args(extra)
        .output()
        .expect("cks-rollout runs")
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .expect("events file")
        .lines()
        .map(str::to_string)
        .collect()
}

fn warnings(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_events_file_has_one_line_per_step_in_the_versioned_schema() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("events.jsonl");
    let out = simulate(&["--events", path.to_str().expect("utf-8 path")]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let lines = lines(&path);
    let parsed: Vec<EventLine> = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    for (text, line) in lines.iter().zip(&parsed) {
        assert_eq!(line.schema, SCHEMA);
        assert_eq!(line.cluster, "cluster-1");
        assert!(
            line.time.ends_with('Z') && line.time.parse::<jiff::Timestamp>().is_ok(),
            "{}",
            line.time
        );
        // The typed line writes back to the same text: nothing is lost or added.
        assert_eq!(&serde_json::to_string(line).expect("serialises"), text);
    }
    let steps: Vec<StepKind> = parsed.iter().map(|l| l.step).collect();
    for want in [
        StepKind::Start,
        StepKind::Gate,
        StepKind::Preflight,
        StepKind::Cordon,
        StepKind::Drain,
        StepKind::Stop,
        StepKind::ChangeOffering,
        StepKind::StartVm,
        StepKind::Verify,
        StepKind::Uncordon,
        StepKind::Failed,
        StepKind::Release,
    ] {
        assert!(steps.contains(&want), "no {want:?} in {steps:?}");
    }
    let failed = parsed
        .iter()
        .find(|l| l.step == StepKind::Failed)
        .expect("the stop reason");
    assert_eq!(failed.batch, Some(2));
    assert!(failed.detail.contains("error budget of checkout is spent"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let printed = stdout
        .lines()
        .filter(|l| l.contains("s batch ") || l.contains("s start:") || l.contains("s release:"))
        .count();
    assert_eq!(printed, lines.len(), "one line per printed step\n{stdout}");
}

#[test]
fn the_webhook_receives_every_event_line() {
    let server = Server::start(Mode::Ok);
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("events.jsonl");
    let out = simulate(&[
        "--events",
        path.to_str().expect("utf-8 path"),
        "--webhook",
        &server.url(),
    ]);
    assert_eq!(out.status.code(), Some(3));
    assert!(warnings(&out).is_empty(), "{:?}", warnings(&out));
    assert_eq!(server.bodies(), lines(&path));
}

#[test]
fn a_webhook_answering_500_is_tried_again_then_one_warning_and_the_rollout_finishes() {
    let server = Server::start(Mode::Error500);
    let out = simulate(&["--webhook", &server.url()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert!(stdout.contains("released: Running"), "{stdout}");
    let warned = warnings(&out);
    assert_eq!(warned.len(), 1, "{warned:?}");
    assert!(
        warned[0].contains("answered 500 Internal Server Error (3 tries)"),
        "{}",
        warned[0]
    );
    assert!(
        !warned[0].contains("s3cr3t"),
        "the URL's token is never printed"
    );
    assert_eq!(
        server.bodies().len(),
        3,
        "the first event three times, then no more"
    );
}

#[test]
fn a_webhook_that_never_answers_is_one_warning_and_the_rollout_finishes() {
    let server = Server::start(Mode::Hang);
    let out = simulate(&["--webhook", &server.url()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert!(stdout.contains("invariants: all held"), "{stdout}");
    let warned = warnings(&out);
    assert_eq!(warned.len(), 1, "{warned:?}");
    assert!(warned[0].contains("no answer within 2 s"), "{}", warned[0]);
}

#[test]
fn a_webhook_that_is_not_a_url_is_refused_before_anything_runs() {
    let out = simulate(&["--webhook", "ftp://example.com/x"]);
    assert_ne!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--webhook: expected an http:// or https:// URL"),
        "{stderr}"
    );
}
