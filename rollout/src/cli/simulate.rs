//! `cks-rollout simulate`: the plan or the rollout of a cluster described in YAML, on the
//! deterministic simulator, ending with the cluster view and the invariants' verdict.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use serde_json::json;

use cks_rollout::adapters::store::{AnyStore, RecordStore, StoreUrl};
use cks_rollout::engine::{EngineConfig, UpdateOutcome, plan_update, view};
use cks_rollout::model::ClusterState;
use cks_rollout::sim::{ClusterSpec, Simulation};

use super::args::{RunArgs, UpdateArgs};
use super::exit::Exit;
use super::render::{self, StepPrinter};

/// Options of `simulate`.
#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// The cluster description (YAML; see rollout/examples/simulate-cluster.yaml).
    #[arg(long, value_name = "FILE")]
    pub cluster: PathBuf,
    /// The seed of every random choice; the same seed replays the same run.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Keep the cluster record in a real store too (`postgres://USER@HOST[:PORT]/DB`,
    /// `sqlite:PATH`): every store call of the engine goes to it, and the simulated world
    /// follows its record. The description's cluster id is written there first.
    #[arg(long, value_name = "URL")]
    pub store: Option<String>,
    /// After the run, move the simulated clock on to this time (RFC 3339) and run the same
    /// command again, as an operator resuming a rollout that stopped (say, at a window's end).
    #[arg(long = "resume-at", value_name = "TIME")]
    pub resume_at: Option<String>,
    /// What to simulate.
    #[command(subcommand)]
    pub action: SimAction,
}

/// `plan` or `run`.
#[derive(Debug, Subcommand)]
pub enum SimAction {
    /// The plan: phases, batches, changes, skips and preflight verdicts.
    Plan(UpdateArgs),
    /// The rollout, step by step (with --no-rollout: only store the settings). Exit codes: 0
    /// done, 1 the update call was refused, 3 the rollout stopped on an error, 4 an invariant
    /// broke.
    Run(RunArgs),
}

fn load(path: &PathBuf) -> Result<ClusterSpec> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading the cluster description {}", path.display()))?;
    serde_norway::from_str(&text).with_context(|| {
        format!(
            "{} is not a cluster description; see rollout/examples/simulate-cluster.yaml",
            path.display()
        )
    })
}

/// `sim` with its store calls also made on the store `url` names, after writing the
/// simulated cluster's record there: in one transaction, and never over a record that is
/// `Updating` (a rollout in progress, perhaps another `simulate --store` process's).
fn backed(sim: Simulation, url: &str) -> Result<Simulation> {
    let url: StoreUrl = url.parse()?;
    let mut store =
        AnyStore::open(&url).with_context(|| format!("opening the cluster store {url}"))?;
    let record = sim.world().record.clone();
    let written = |e| anyhow::anyhow!("writing the simulated cluster {} to {url}: {e}", record.id);
    let replaced = store.insert_new(&record).map_err(written)?
        || store
            .change(&record.id, &mut |held, _| {
                if held.state == ClusterState::Updating {
                    return false;
                }
                *held = record.clone();
                true
            })
            .map_err(written)?;
    if !replaced {
        anyhow::bail!(
            "cluster {} is Updating in the store {url}; the simulator does not replace a rollout in progress: give the description another id",
            record.id
        );
    }
    Ok(sim.backed_by(Box::new(store)))
}

/// The lease owner of this `simulate` process: host, process id and a random part, so that
/// two processes on one store never pass for each other.
fn owner() -> String {
    let random: u32 = rand::random();
    format!("simulator@{}:{random:08x}", cks_rollout::live::owner())
}

/// Runs `simulate`.
pub fn run(args: &SimulateArgs, as_json: bool) -> Result<Exit> {
    let spec = load(&args.cluster).map_err(cks_cli_docs::bad_input)?;
    let mut sim = Simulation::new(&spec, args.seed)
        .with_context(|| format!("simulating {}", args.cluster.display()))?;
    if let Some(url) = &args.store {
        sim = backed(sim, url)?;
    }
    let id = sim.cluster_id();
    match &args.action {
        SimAction::Plan(update) => {
            let req = update.request(true).map_err(cks_cli_docs::bad_input)?;
            let mut ports = sim.ports();
            let plan = plan_update(&mut ports.ports(), &id, &req).context("planning the update")?;
            if as_json {
                render::json(&plan)?;
            } else {
                let offerings = super::offering_names(&mut ports.ports());
                out!("{}", render::plan_text(&plan, &offerings));
            }
            Ok(Exit::Ok)
        }
        SimAction::Run(run_args) => {
            let req = run_args.request().map_err(cks_cli_docs::bad_input)?;
            let cfg = run_args
                .controls(EngineConfig {
                    owner: owner(),
                    ..EngineConfig::default()
                })
                .map_err(cks_cli_docs::bad_input)?;
            let types = sim
                .world()
                .vms
                .values()
                .map(|v| (v.name.clone(), v.node_type))
                .collect();
            let mut sinks =
                super::sinks::Sinks::open(run_args, &id).map_err(cks_cli_docs::bad_input)?;
            let mut printer = StepPrinter::new(as_json, types);
            let mut run = sim.run_with(&req, &cfg, &mut sinks.tee(&mut printer));
            printer.finish();
            if let Some(at) = &args.resume_at {
                let wall: jiff::Timestamp = at.parse().with_context(|| {
                    format!("--resume-at {at:?}: expected an RFC 3339 time, e.g. 2026-12-08T22:10:00+01:00")
                }).map_err(cks_cli_docs::bad_input)?;
                if !as_json && let Ok(UpdateOutcome::RolledOut(r)) = &run.outcome {
                    out!("{}", render::report_text(r));
                }
                let now = {
                    let w = sim.world();
                    u64::try_from(wall.as_millisecond())
                        .map(std::time::Duration::from_millis)
                        .unwrap_or_default()
                        .saturating_sub(w.epoch)
                        .saturating_sub(w.now)
                };
                sim.world_mut().advance(now);
                if !as_json {
                    outln!("run again at {wall}");
                }
                let types = sim
                    .world()
                    .vms
                    .values()
                    .map(|v| (v.name.clone(), v.node_type))
                    .collect();
                let mut printer = StepPrinter::new(as_json, types);
                run = sim.run_with(&req, &cfg, &mut sinks.tee(&mut printer));
                printer.finish();
            }
            sinks.finish();
            let steps = sim.world().step;
            let mut ports = sim.ports();
            let cluster = view(&mut ports.ports(), &id).context("reading the cluster view")?;
            let failed =
                matches!(&run.outcome, Ok(UpdateOutcome::RolledOut(r)) if r.run.error.is_some());
            let refused = run.outcome.is_err();
            if as_json {
                let outcome = match &run.outcome {
                    Ok(o) => serde_json::to_value(o)?,
                    Err(e) => json!({ "outcome": "refused", "error": e.to_string() }),
                };
                render::json(&json!({
                    "seed": run.seed,
                    "result": outcome,
                    "crashed": run.crashed,
                    "scan": run.scan,
                    "view": cluster,
                    "invariants": match &run.violation {
                        None => json!({ "held": true, "steps": steps }),
                        Some(v) => json!({ "held": false, "violation": v }),
                    },
                }))?;
            } else {
                let notes = match &run.outcome {
                    Ok(UpdateOutcome::RolledOut(r)) => r.notes.as_slice(),
                    Ok(UpdateOutcome::Stored { notes, .. }) => notes.as_slice(),
                    _ => &[],
                };
                for note in notes {
                    outln!("note: {note}");
                }
                match &run.outcome {
                    Ok(UpdateOutcome::RolledOut(r)) => out!("{}", render::report_text(r)),
                    Ok(UpdateOutcome::Stored { view, .. }) => out!("{}", render::stored_text(view)),
                    Ok(UpdateOutcome::CancelRequested) => {
                        outln!("cancel recorded: the rollout stops before its next batch")
                    }
                    Err(e) => outln!("refused: {e}"),
                }
                if run.crashed {
                    let scanned = run
                        .scan
                        .as_ref()
                        .map_or("nothing".to_string(), super::words::scan);
                    outln!("the engine crashed; the state scanner found: {scanned}");
                }
                let offerings = super::offering_names(&mut ports.ports());
                out!("{}", render::view_text(&cluster, &offerings));
                match &run.violation {
                    None => outln!(
                        "invariants: all held over {steps} steps (seed {})",
                        run.seed
                    ),
                    Some(v) => {
                        outln!("invariants: BROKEN: {v} (replay with --seed {})", run.seed)
                    }
                }
            }
            Ok(if run.violation.is_some() {
                Exit::InvariantBroken
            } else if refused {
                Exit::Refused
            } else if failed {
                Exit::RolloutFailed
            } else {
                Exit::Ok
            })
        }
    }
}
