//! `status` (and `--watch`) and `cancel`, read from and written to the store.

use std::time::Duration;

use cks_rollout::adapters::store::StoreUrl;

use super::args::StoreArgs;
use super::{Ended, Failure, bad};
use crate::adapters::store::{self, FleetTable};
use crate::model::{ClusterStatus, FleetRecord, StageStatus};
use crate::worker::{Ending, Summary};

/// Opens the store, refusing a SQLite file that does not exist (nothing to show).
pub fn open(args: &StoreArgs, create: bool) -> Result<Box<dyn FleetTable>, Failure> {
    let url: StoreUrl = args
        .store
        .parse()
        .map_err(|e| bad(format!("--store: {e}")))?;
    if !create && url.is_missing() {
        return Err(bad(format!(
            "--store {}: no such file; `cks-fleet run` creates the fleet",
            args.store
        )));
    }
    store::open(&url).map_err(|e| Failure::Run(e.to_string()))
}

/// How a record ended, for the exit status.
pub fn ended(record: &FleetRecord) -> Ended {
    let summary = Summary::of(record);
    if record.cancelled {
        Ended::Cancelled
    } else if record.halted.is_some() || summary.count(&Ending::Failed) > 0 {
        Ended::Failed
    } else {
        Ended::Done
    }
}

/// The fleet as lines: its state, each stage, each cluster.
pub fn render(record: &FleetRecord) -> String {
    let mut out = format!(
        "fleet {}: {}{}\n",
        record.id,
        if record.ended_ms.is_some() {
            "ended"
        } else {
            "running"
        },
        match (&record.halted, record.cancelled) {
            (Some(why), _) => format!(", halted: {why}"),
            (None, true) => ", cancelled".into(),
            _ => String::new(),
        }
    );
    for (i, s) in record.plan.stages.iter().enumerate() {
        let status = match &record.stages[i].status {
            StageStatus::Waiting => "waiting".to_string(),
            StageStatus::Gating { lease } => format!("gates run by {}", lease.owner),
            StageStatus::Running => "running".into(),
            StageStatus::Soaking { until_ms } => format!(
                "soaking until {}",
                cks_rollout::engine::window::shown(Duration::from_millis(*until_ms))
            ),
            StageStatus::Passed => "passed".into(),
        };
        out.push_str(&format!(
            "stage {} ({} clusters, {} at once): {status}\n",
            s.name,
            s.clusters.len(),
            s.parallelism
        ));
        for (id, c) in record.stage_clusters(i) {
            let what = match &c.status {
                ClusterStatus::Pending => "pending".to_string(),
                ClusterStatus::Active { lease } => {
                    format!("held by {} (claim {})", lease.owner, lease.claim)
                }
                ClusterStatus::Done { detail } => format!("done: {detail}"),
                ClusterStatus::Failed { error } => format!("failed: {error}"),
            };
            out.push_str(&format!(
                "  {:<24} {id}  {}\n",
                c.name,
                cks_pinning::terminal::one_line(&what)
            ));
        }
    }
    for s in &record.plan.skipped {
        out.push_str(&format!("skipped {:<24} {}  {}\n", s.name, s.id, s.reason));
    }
    out
}

/// `status`.
pub fn status(args: &StoreArgs, watch: bool, poll: Duration, json: bool) -> Result<Ended, Failure> {
    let mut table = open(args, false)?;
    let mut last = String::new();
    loop {
        let record = table
            .get(&args.fleet)
            .map_err(|e| Failure::Run(e.to_string()))?;
        let shown = if json {
            serde_json::to_string(&record).map_err(|e| Failure::Run(e.to_string()))?
        } else {
            render(&record)
        };
        if shown != last {
            println!("{shown}");
            last = shown;
        }
        if !watch || record.ended_ms.is_some() {
            return Ok(if record.ended_ms.is_some() {
                ended(&record)
            } else {
                Ended::Done
            });
        }
        std::thread::sleep(poll);
    }
}

/// `cancel`.
pub fn cancel(args: &StoreArgs) -> Result<Ended, Failure> {
    let mut table = open(args, false)?;
    let mut done = false;
    table
        .change(&args.fleet, &mut |record, _| {
            done = crate::rules::cancel(record);
            done
        })
        .map_err(|e| Failure::Run(e.to_string()))?;
    if done {
        eprintln!(
            "fleet {}: cancelled; no new cluster starts, those running reach a safe point",
            args.fleet
        );
    } else {
        eprintln!("fleet {}: already ended; nothing to cancel", args.fleet);
    }
    Ok(Ended::Done)
}
