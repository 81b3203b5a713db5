//! `status --watch`: the rollout as it goes, from the cluster record in the store and the
//! rollout's `--events` file. On a terminal, a view redrawn at each poll until the rollout ends;
//! otherwise one line per change.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use cks_pinning::terminal::one_line;
use cks_rollout::adapters::store::{AnyStore, RecordStore};
use cks_rollout::engine::StepKind;
use cks_rollout::events::EventLine;
use cks_rollout::model::ClusterState;

use super::args::LiveArgs;
use super::exit::Exit;

/// The most of the events file read at one poll.
const READ_LIMIT: u64 = 1 << 20;

/// What the watch knows.
#[derive(Default)]
struct Model {
    state: Option<ClusterState>,
    lasterror: Option<String>,
    /// Node → (batch, last step and its detail).
    nodes: BTreeMap<String, (Option<usize>, String)>,
    batch: Option<usize>,
    /// Wall time the current batch began (ms since the epoch).
    batch_since: Option<i64>,
    step: String,
    waiting: Option<String>,
}

impl Model {
    fn take(&mut self, e: &EventLine) {
        let wall = e
            .time
            .parse::<jiff::Timestamp>()
            .map(|t| t.as_millisecond())
            .ok();
        if e.batch.is_some() && e.batch != self.batch {
            self.batch = e.batch;
            self.batch_since = wall;
        }
        // Node names come from the Kubernetes API and details quote servers: each is shown on
        // one line, its control characters (line breaks too) escaped.
        let detail = one_line(&e.detail);
        let node = e
            .node
            .as_deref()
            .map(|n| format!("{} ", one_line(n)))
            .unwrap_or_default();
        self.step = format!("{node}{}: {detail}", step_name(e.step));
        // A soak or window wait lasts until the next step.
        self.waiting = match e.step {
            StepKind::Soak if e.detail.contains("must stay Ready") => Some(detail.to_string()),
            StepKind::Window if e.detail.starts_with("outside") => Some(detail.to_string()),
            _ => None,
        };
        if let Some(n) = &e.node {
            self.nodes.insert(
                one_line(n).into_owned(),
                (e.batch, format!("{}: {detail}", step_name(e.step))),
            );
        }
    }

    /// One line: the state, batch, step and wait.
    fn line(&self) -> String {
        let state = self
            .state
            .map_or("not found".to_string(), |s| format!("{s:?}"));
        let batch = self
            .batch
            .map(|b| format!("; batch {b}"))
            .unwrap_or_default();
        let step = if self.step.is_empty() {
            String::new()
        } else {
            format!("; {}", self.step)
        };
        let wait = self
            .waiting
            .as_ref()
            .map(|w| format!("; waiting: {w}"))
            .unwrap_or_default();
        format!("{state}{batch}{step}{wait}")
    }

    /// The full view, for a terminal.
    fn screen(&self, cluster: &str, now_ms: i64) -> String {
        let mut out = format!(
            "cluster {cluster}: {}\n",
            self.state
                .map_or("not found".to_string(), |s| format!("{s:?}"))
        );
        if let Some(b) = self.batch {
            let secs = self.batch_since.map_or(0, |t| (now_ms - t).max(0) / 1000);
            out.push_str(&format!(
                "batch {b}, {}m{:02}s in the batch\n",
                secs / 60,
                secs % 60
            ));
        }
        if !self.step.is_empty() {
            out.push_str(&format!("step: {}\n", self.step));
        }
        if let Some(w) = &self.waiting {
            out.push_str(&format!("waiting: {w}\n"));
        }
        if let Some(e) = &self.lasterror {
            out.push_str(&format!("lasterror: {}\n", one_line(e)));
        }
        out.push_str(&format!("\n{:<16} {:<6} last step\n", "node", "batch"));
        for (name, (batch, step)) in &self.nodes {
            let b = batch.map_or("-".to_string(), |b| b.to_string());
            out.push_str(&format!("{name:<16} {b:<6} {step}\n"));
        }
        out
    }
}

fn step_name(s: StepKind) -> String {
    serde_json::to_value(s)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// Where the watch is in the events file: the offset read up to, and whether it is inside a
/// line longer than the read window (skipped to its end, so it never stalls the watch).
#[derive(Debug, Default)]
struct Tail {
    offset: u64,
    skipping: bool,
    /// Lines skipped for their length.
    skipped: u64,
}

impl Tail {
    /// New complete lines of `path` (moved past them); nothing if it is missing. A window with
    /// no line break is a part of a line too long to read: it is passed over, and the line
    /// skipped up to its break.
    fn new_lines(&mut self, path: &Path) -> Vec<EventLine> {
        let Ok(mut file) = std::fs::File::open(path) else {
            return Vec::new();
        };
        if file.seek(SeekFrom::Start(self.offset)).is_err() {
            return Vec::new();
        }
        let mut buf = Vec::new();
        if file.take(READ_LIMIT).read_to_end(&mut buf).is_err() {
            return Vec::new();
        }
        let mut start = 0;
        if self.skipping {
            match buf.iter().position(|b| *b == b'\n') {
                Some(end) => {
                    self.skipping = false;
                    self.skipped += 1;
                    start = end + 1;
                }
                None => {
                    self.offset += buf.len() as u64;
                    return Vec::new();
                }
            }
        }
        let Some(end) = buf[start..]
            .iter()
            .rposition(|b| *b == b'\n')
            .map(|e| e + start)
        else {
            if buf.len() as u64 == READ_LIMIT && start == 0 {
                self.skipping = true;
                self.offset += buf.len() as u64;
            } else {
                self.offset += start as u64;
            }
            return Vec::new();
        };
        self.offset += end as u64 + 1;
        buf[start..end]
            .split(|b| *b == b'\n')
            .filter_map(|l| serde_json::from_slice(l).ok())
            .collect()
    }
}

/// Runs `status --watch`.
pub fn run(live: &LiveArgs, events: Option<&PathBuf>) -> Result<Exit> {
    let url = live.store_url()?;
    if let Some(warning) = url.warning() {
        super::render::warn(&format!("cks-rollout: warning: {warning}"));
    }
    let mut store =
        AnyStore::open(&url).with_context(|| format!("opening the cluster store {url}"))?;
    let terminal = std::io::stdout().is_terminal();
    let poll = Duration::from_millis(live.poll_interval_ms.millis().max(50));
    let mut model = Model::default();
    let mut tail = Tail::default();
    let mut shown = String::new();
    let mut seen_updating = false;
    loop {
        let record = store
            .record(&live.cluster_id)
            .with_context(|| format!("reading cluster {} from {url}", live.cluster_id))?;
        model.state = Some(record.state);
        model.lasterror = record.last_error.clone();
        if let Some(path) = events {
            let skipped = tail.skipped;
            for e in tail.new_lines(path) {
                if e.cluster == live.cluster_id {
                    model.take(&e);
                }
            }
            if tail.skipped > skipped {
                super::render::warn(&format!(
                    "cks-rollout: warning: {} skipped a line longer than {} MiB",
                    path.display(),
                    READ_LIMIT >> 20
                ));
            }
        }
        let updating = record.state == ClusterState::Updating;
        seen_updating |= updating;
        let now = jiff::Timestamp::now().as_millisecond();
        if terminal {
            let screen = model.screen(&live.cluster_id, now);
            super::render::clear_screen();
            outln!("{screen}");
        } else {
            let line = model.line();
            if line != shown {
                outln!("{line}");
                shown = line;
            }
        }
        if !updating {
            let how = if seen_updating {
                "rollout ended"
            } else {
                "no rollout running"
            };
            let error = model
                .lasterror
                .as_ref()
                .map(|e| format!("; lasterror: {}", one_line(e)))
                .unwrap_or_default();
            outln!("{how}: {:?}{error}", record.state);
            return Ok(Exit::Ok);
        }
        std::thread::sleep(poll);
    }
}
