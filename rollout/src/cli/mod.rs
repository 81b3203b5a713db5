//! The `cks-rollout` command line: parse, build the ports, call the engine, print. It lives in
//! the library so the packaging renders its man page and shell completions from [`command`].

/// `print!` to stdout that ends the program quietly once stdout is closed (`| head`).
macro_rules! out {
    ($($arg:tt)*) => { $crate::cli::render::write_out(format_args!($($arg)*)) };
}

/// `println!` to stdout that ends the program quietly once stdout is closed (`| head`).
macro_rules! outln {
    ($($arg:tt)*) => { $crate::cli::render::write_out(format_args!("{}\n", format_args!($($arg)*))) };
}

mod args;
pub mod duration;
mod exit;
mod render;
mod simulate;
mod sinks;
mod watch;

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

use cks_rollout::engine::{UpdateOutcome, plan_update, scan, update, view};

use args::{LiveArgs, RunArgs, UpdateArgs};
use cks_rollout::live::LivePorts;
use exit::Exit;
use render::StepPrinter;

/// Roll new node settings (offering, root disk size, affinity groups) out to a CKS cluster,
/// restarting out-of-date nodes a few at a time, cordoned and drained first.
///
/// Short form, with the CloudStack credentials in the environment:
///
/// cks-rollout plan --cluster-id X --ssh-key K --known-hosts F --offering worker=...
///
/// cks-rollout run --cluster-id X --ssh-key K --known-hosts F --offering worker=...
///
/// CloudStack's endpoint and keys come from CLOUDSTACK_ENDPOINT, CLOUDSTACK_KEY and
/// CLOUDSTACK_SECRET, or from the INI file CLOUDSTACK_CONFIG names (section [cloudstack], or
/// the one CLOUDSTACK_REGION names), never from the command line. The rest is found from the
/// cluster id: the kubeconfig (getKubernetesClusterConfig), the nodes' VMs (matched by
/// address), each control node's API server (https://<InternalIP>:6443) and etcd's health
/// (etcdctl through sudo over SSH on a control node, at the cluster's public address and the
/// port its port-forwarding rule gives).
///
/// Overrides of what is found: --kubeconfig, --control-endpoint, --etcd-endpoint with
/// --etcd-cacert/--etcd-cert/--etcd-key, --ssh-endpoint, --ssh-user, --etcd-pki-dir, --etcdctl.
///
/// Exit codes: 0 done; 1 error (bad input, unreachable system, refused update); 3 the rollout
/// stopped on an error (see lasterror); 4 the simulator found a broken invariant.
#[derive(Debug, Parser)]
#[command(name = "cks-rollout", version = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("CKS_GIT_COMMIT"), ")"))]
pub struct Cli {
    /// Print JSON instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show what `run` would do, without acting.
    Plan {
        /// Connection.
        #[command(flatten)]
        live: LiveArgs,
        /// Settings.
        #[command(flatten)]
        update: UpdateArgs,
    },
    /// Store the settings and restart the nodes that differ (with --no-rollout: only keep them
    /// in this tool's store; nodes CloudStack creates later get CloudStack's own settings, and
    /// the next plan or run finds them out of date and rolls them).
    #[command(visible_alias = "apply")]
    Run {
        /// Connection.
        #[command(flatten)]
        live: LiveArgs,
        /// Settings, and whether to roll them out.
        #[command(flatten)]
        run: RunArgs,
    },
    /// Ask a running rollout to stop before its next batch.
    Cancel {
        /// Connection.
        #[command(flatten)]
        live: LiveArgs,
    },
    /// The cluster view: state, settings, out-of-date counts, last error.
    Status {
        /// Connection.
        #[command(flatten)]
        live: LiveArgs,
        /// Follow the rollout until it ends (from the store, every --poll-interval): on a
        /// terminal a live view, otherwise one line per change.
        #[arg(long)]
        watch: bool,
        /// With --watch: the rollout's --events file, for its batch, step and waits.
        #[arg(long, value_name = "FILE", requires = "watch")]
        events: Option<std::path::PathBuf>,
    },
    /// The state scanner: a cluster left Updating by a process that died goes to Alert.
    Scan {
        /// Connection.
        #[command(flatten)]
        live: LiveArgs,
    },
    /// The same commands against the simulator.
    Simulate(simulate::SimulateArgs),
}

/// Parses the command line, runs the command and maps the result to an exit code.
/// The clap command, for man pages and completions.
pub fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}

/// Parses the command line and runs it.
pub fn main() -> ExitCode {
    cks_rollout::live::cleanup::catch_file_size_signal();
    let cli = Cli::parse();
    if let Some(live) = cli.command.live() {
        for warning in live.duration_warnings() {
            render::warn(&format!("cks-rollout: warning: {warning}"));
        }
    }
    cks_rollout::live::cleanup::install();
    let result = run(&cli);
    cks_rollout::live::cleanup::remove_all();
    match result {
        Ok(Exit::Ok) => ExitCode::SUCCESS,
        Ok(Exit::RolloutFailed) => ExitCode::from(3),
        Ok(Exit::InvariantBroken) => ExitCode::from(4),
        Ok(Exit::Refused) => ExitCode::from(1),
        Err(e) => {
            render::warn(&format!("cks-rollout: error: {e:#}"));
            ExitCode::from(1)
        }
    }
}

impl Command {
    /// The connection flags of a live command (not `simulate`).
    fn live(&self) -> Option<&LiveArgs> {
        match self {
            Command::Plan { live, .. }
            | Command::Run { live, .. }
            | Command::Cancel { live }
            | Command::Status { live, .. }
            | Command::Scan { live } => Some(live),
            Command::Simulate(_) => None,
        }
    }
}

fn run(cli: &Cli) -> Result<Exit> {
    match &cli.command {
        Command::Simulate(args) => simulate::run(args, cli.json),
        Command::Plan { live, update } => {
            // The options are checked before anything is reached.
            let req = update.request(true)?;
            let mut ports = LivePorts::connect(&live.options())?;
            if let Some(note) =
                ports.autoscaler_risk(&live.cluster_id, &req, update.accept_autoscaler_risk)?
            {
                render::warn(&format!("note: {note}"));
            }
            let notes = ports.discovery.check_for(&live.options(), &req)?;
            notes
                .iter()
                .for_each(|note| render::warn(&format!("note: {note}")));
            let plan = plan_update(&mut ports.ports(), &live.cluster_id, &req)
                .context("planning the update")?;
            if cli.json {
                render::json(&plan)?;
            } else {
                out!("{}", render::plan_text(&plan));
                if let Ok(cluster) = view(&mut ports.ports(), &live.cluster_id) {
                    out!("{}", render::created_since_text(&cluster));
                }
            }
            Ok(Exit::Ok)
        }
        Command::Run { live, run: args } => {
            // The settings, every control value and the event sinks are checked before
            // anything is reached.
            let req = args.request()?;
            let cfg = args.controls(live.engine_config())?;
            let mut sinks = sinks::Sinks::open(args, &live.cluster_id)?;
            let mut ports = LivePorts::connect(&live.options())?;
            if let Some(note) =
                ports.autoscaler_risk(&live.cluster_id, &req, args.update.accept_autoscaler_risk)?
            {
                render::warn(&format!("note: {note}"));
            }
            let notes = ports.discovery.check_for(&live.options(), &req)?;
            notes
                .iter()
                .for_each(|note| render::warn(&format!("note: {note}")));
            let types = ports
                .ports()
                .cloud
                .list_vms(&live.cluster_id)
                .map(|vms| {
                    vms.into_iter()
                        .map(|v| (v.node_name, v.node_type))
                        .collect()
                })
                .unwrap_or_default();
            let mut printer = StepPrinter::new(cli.json, types);
            let outcome = update(
                &mut ports.ports(),
                &live.cluster_id,
                &req,
                &cfg,
                &mut sinks.tee(&mut printer),
            );
            printer.finish();
            sinks.finish();
            let outcome = outcome.context("the update call")?;
            let cluster =
                view(&mut ports.ports(), &live.cluster_id).context("reading the cluster view")?;
            let failed = matches!(&outcome, UpdateOutcome::RolledOut(r) if r.run.error.is_some() || r.release.is_none());
            if cli.json {
                render::json(&serde_json::json!({ "result": outcome, "view": cluster }))?;
            } else {
                match &outcome {
                    UpdateOutcome::RolledOut(r) => out!("{}", render::report_text(r)),
                    UpdateOutcome::Stored { view } => out!("{}", render::stored_text(view)),
                    UpdateOutcome::CancelRequested => {}
                }
                out!("{}", render::view_text(&cluster));
            }
            Ok(if failed {
                Exit::RolloutFailed
            } else {
                Exit::Ok
            })
        }
        Command::Cancel { live } => {
            let mut ports = LivePorts::connect(&live.options())?;
            let req = cks_rollout::engine::UpdateRequest {
                cancel_rollout: true,
                ..Default::default()
            };
            let cfg = live.engine_config();
            let outcome = update(
                &mut ports.ports(),
                &live.cluster_id,
                &req,
                &cfg,
                &mut cks_rollout::engine::NoProgress,
            )
            .context("asking for a cancel")?;
            if cli.json {
                render::json(&outcome)?;
            } else {
                outln!(
                    "cancel recorded: the rollout of {} stops before its next batch",
                    live.cluster_id
                );
            }
            Ok(Exit::Ok)
        }
        Command::Status {
            live,
            watch: true,
            events,
        } => watch::run(live, events.as_ref()),
        Command::Status { live, .. } => {
            let mut ports = LivePorts::connect(&live.options())?;
            let cluster =
                view(&mut ports.ports(), &live.cluster_id).context("reading the cluster view")?;
            if cli.json {
                render::json(&cluster)?;
            } else {
                out!("{}", render::view_text(&cluster));
            }
            Ok(Exit::Ok)
        }
        Command::Scan { live } => {
            let mut ports = LivePorts::connect(&live.options())?;
            let cfg = live.engine_config();
            let outcome = scan(&mut ports.ports(), &live.cluster_id, cfg.lease_timeout)
                .context("scanning the cluster")?;
            if cli.json {
                render::json(&outcome)?;
            } else {
                outln!("{outcome:?}");
            }
            Ok(Exit::Ok)
        }
    }
}
