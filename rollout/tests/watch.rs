//! `status --watch`: in a real terminal (tmux) a live view redrawn until the rollout ends;
//! without a terminal one line per change. The rollout is played by writing the cluster record
//! in a SQLite store and appending to its events file, as a running `run` does.

use cks_rollout::adapters::store::{RecordStore, SqliteStore};
use cks_rollout::engine::StepKind;
use cks_rollout::events::{EventLine, SCHEMA};
use cks_rollout::model::ClusterState;
use cks_rollout::sim::Simulation;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A store holding `cluster-1` Updating, and an empty events file.
struct Rollout {
    _dir: tempfile::TempDir,
    db: PathBuf,
    events: PathBuf,
}

impl Rollout {
    fn new() -> Rollout {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = dir.path().join("store.db");
        let events = dir.path().join("events.jsonl");
        std::fs::write(&events, "").expect("events file");
        let spec = crate::common::cluster(3, 0, 2);
        let mut record = Simulation::new(&spec, 1)
            .expect("simulable")
            .world()
            .record
            .clone();
        record.state = ClusterState::Updating;
        let mut store = SqliteStore::open(&db).expect("store");
        assert!(store.insert_new(&record).expect("insert"));
        Rollout {
            _dir: dir,
            db,
            events,
        }
    }

    fn event(&self, step: StepKind, batch: Option<usize>, node: Option<&str>, detail: &str) {
        let line = EventLine {
            schema: SCHEMA,
            cluster: "cluster-1".into(),
            time: jiff::Timestamp::now().to_string(),
            at_ms: 0,
            step,
            batch,
            node: node.map(str::to_string),
            detail: detail.into(),
        };
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&self.events)
            .expect("events file");
        writeln!(f, "{}", serde_json::to_string(&line).expect("json")).expect("append");
    }

    fn end(&self, state: ClusterState) {
        let mut store = SqliteStore::open(&self.db).expect("store");
        store
            .change("cluster-1", &mut |r, _| {
                r.state = state;
                r.lease = None;
                true
            })
            .expect("state changed");
    }

    fn args(&self) -> Vec<String> {
        [
            "status",
            "--watch",
            "--cluster-id",
            "cluster-1",
            "--store",
            &format!("sqlite:{}", self.db.display()),
            "--events",
            &self.events.display().to_string(),
            "--poll-interval",
            "100ms",
        ]
        .map(str::to_string)
        .to_vec()
    }
}

/// A tmux server of its own (its own socket), killed on drop.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn start(command: &[String]) -> Tmux {
        let socket = format!("cks-watch-{}-{}", std::process::id(), rand_part());
        let quoted: Vec<String> = command
            .iter()
            .map(|w| format!("'{}'", w.replace('\'', "'\\''")))
            .collect();
        let status = Command::new("tmux")
            .args(["-L", &socket, "new-session", "-d", "-x", "160", "-y", "40"])
            .arg(format!("{} ; sleep 600", quoted.join(" ")))
            .status()
            .expect("tmux runs");
        assert!(status.success(), "tmux new-session");
        Tmux { socket }
    }

    fn pane(&self) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket, "capture-pane", "-p"])
            .output()
            .expect("tmux capture-pane");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Waits (bounded) until the pane shows every one of `texts`.
    fn wait_for(&self, texts: &[&str]) -> String {
        let until = Instant::now() + Duration::from_secs(60);
        loop {
            let pane = self.pane();
            if texts.iter().all(|t| pane.contains(t)) {
                return pane;
            }
            assert!(
                Instant::now() < until,
                "the pane never showed {texts:?}:\n{pane}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

fn rand_part() -> u32 {
    rand::random()
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
    }
}

fn binary() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_cks-rollout"))
}

#[test]
fn on_a_terminal_the_view_follows_the_rollout_until_it_ends() {
    let r = Rollout::new();
    let mut command = vec![binary().display().to_string()];
    command.extend(r.args());
    let tmux = Tmux::start(&command);
    tmux.wait_for(&["cluster cluster-1: Updating", "node", "last step"]);
    r.event(StepKind::Preflight, Some(1), None, "w-1 Pass");
    r.event(StepKind::Cordon, Some(1), Some("w-1"), "cordoned");
    r.event(StepKind::Drain, Some(1), Some("w-1"), "drained");
    tmux.wait_for(&[
        "batch 1,",
        "in the batch",
        "step: w-1 drain: drained",
        "w-1",
    ]);
    r.event(StepKind::Uncordon, Some(1), Some("w-1"), "uncordoned");
    r.event(
        StepKind::Soak,
        Some(1),
        None,
        "600 s soak: w-1 must stay Ready",
    );
    let pane = tmux.wait_for(&["waiting: 600 s soak: w-1 must stay Ready"]);
    assert!(pane.contains("uncordon: uncordoned"), "{pane}");
    r.event(StepKind::Soak, Some(1), None, "soak over: w-1 stayed Ready");
    r.event(StepKind::Preflight, Some(2), None, "w-2 Pass");
    let pane = tmux.wait_for(&["batch 2,"]);
    assert!(!pane.contains("waiting:"), "the wait is over\n{pane}");
    r.end(ClusterState::Running);
    tmux.wait_for(&["rollout ended: Running"]);
}

#[test]
fn without_a_terminal_it_prints_one_line_per_change_and_ends_with_the_rollout() {
    let r = Rollout::new();
    let mut child = Command::new(binary())
        .args(r.args())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cks-rollout runs");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut next = || lines.next().expect("a line").expect("readable line");
    assert_eq!(next(), "Updating");
    r.event(StepKind::Cordon, Some(1), Some("w-1"), "cordoned");
    assert_eq!(next(), "Updating; batch 1; w-1 cordon: cordoned");
    r.event(
        StepKind::Soak,
        Some(1),
        None,
        "60 s soak: w-1 must stay Ready",
    );
    assert_eq!(
        next(),
        "Updating; batch 1; soak: 60 s soak: w-1 must stay Ready; waiting: 60 s soak: w-1 must stay Ready"
    );
    r.end(ClusterState::Alert);
    assert!(next().starts_with("Alert; batch 1;"));
    assert_eq!(next(), "rollout ended: Alert");
    assert!(child.wait().expect("it ends").success());
}

#[test]
fn a_node_name_with_escape_sequences_is_shown_escaped_and_the_terminal_keeps_its_title() {
    let r = Rollout::new();
    let mut command = vec![binary().display().to_string()];
    command.extend(r.args());
    let tmux = Tmux::start(&command);
    tmux.wait_for(&["cluster cluster-1: Updating", "last step"]);
    let title = || {
        let out = Command::new("tmux")
            .args(["-L", &tmux.socket, "display-message", "-p", "#{pane_title}"])
            .output()
            .expect("tmux display-message");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    let before = title();
    // A name as the Kubernetes API of a tenant's cluster may report it: it would retitle the
    // terminal, clear it and forge a line.
    let hostile = "w-9\u{1b}]0;owned\u{7}\u{1b}[2J\nforged";
    r.event(
        StepKind::Cordon,
        Some(1),
        Some(hostile),
        "cordoned\u{1b}[31m",
    );
    let pane = tmux.wait_for(&["w-9\\u{1b}]0;owned\\u{7}\\u{1b}[2J\\u{a}forged"]);
    assert!(pane.contains("cordoned\\u{1b}[31m"), "{pane}");
    assert!(
        !pane.lines().any(|l| l.starts_with("forged")),
        "no forged line\n{pane}"
    );
    assert_eq!(title(), before, "the pane's title is unchanged");
    assert_ne!(title(), "owned");
    r.end(ClusterState::Running);
    tmux.wait_for(&["rollout ended: Running"]);
}

#[test]
fn an_event_line_longer_than_the_read_window_does_not_stall_the_watch() {
    let r = Rollout::new();
    let mut command = vec![binary().display().to_string()];
    command.extend(r.args());
    let tmux = Tmux::start(&command);
    tmux.wait_for(&["cluster cluster-1: Updating", "last step"]);
    r.event(StepKind::Drain, Some(1), Some("w-1"), &"x".repeat(3 << 20));
    r.event(
        StepKind::Cordon,
        Some(1),
        Some("w-2"),
        "cordoned after the long line",
    );
    tmux.wait_for(&["step: w-2 cordon: cordoned after the long line"]);
    r.end(ClusterState::Running);
    tmux.wait_for(&["rollout ended: Running"]);
}

#[test]
fn a_last_error_a_server_wrote_is_printed_with_its_escape_sequences_escaped() {
    let r = Rollout::new();
    let mut store = SqliteStore::open(&r.db).expect("store");
    store
        .change("cluster-1", &mut |rec, _| {
            // As CloudStack's errortext or a node's SSH stderr reaches lasterror.
            rec.last_error = Some("stop failed\u{1b}]0;owned\u{7}\u{1b}[2J\nforged".into());
            rec.state = ClusterState::Alert;
            rec.lease = None;
            true
        })
        .expect("lasterror set");
    let out = Command::new(binary())
        .args(r.args())
        .output()
        .expect("cks-rollout runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("lasterror: stop failed\\u{1b}]0;owned\\u{7}\\u{1b}[2J\\u{a}forged"),
        "{stdout}"
    );
    assert!(!out.stdout.contains(&0x1b), "no raw escape: {stdout}");
    assert!(!stdout.lines().any(|l| l.starts_with("forged")), "{stdout}");
}
