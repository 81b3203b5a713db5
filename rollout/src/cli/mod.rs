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
mod docs;
pub mod duration;
mod exit;
mod render;
mod simulate;
mod sinks;
mod watch;
mod words;

use std::process::ExitCode;

use anyhow::{Context, Result};
use cks_cli_docs::bad_input;
use clap::{Parser, Subcommand};

use cks_rollout::engine::{
    UpdateOutcome, UpdateRequest, check_update, plan_update, scan, update, view,
};

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
/// Overrides of what is found: --kubeconfig (or KUBECONFIG in the environment), --control-endpoint,
/// --etcd-endpoint with --etcd-cacert/--etcd-cert/--etcd-key, --ssh-endpoint, --ssh-user,
/// --etcd-pki-dir, --etcdctl.
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
    /// Print the shell completion script (bash, zsh, fish, elvish, powershell) to stdout.
    Completions(cks_cli_docs::CompletionsArgs),
    /// Print the man page (roff) of cks-rollout, or of one subcommand, to stdout.
    Man(cks_cli_docs::ManArgs),
}

pub use docs::PAGES;

/// The clap command, for man pages and completions: the flags, and each command's examples,
/// exit statuses, environment and files, shown as written after the flags in `--help`.
pub fn command() -> clap::Command {
    cks_cli_docs::decorate(<Cli as clap::CommandFactory>::command(), PAGES)
}

/// Parses the command line and runs it.
pub fn main() -> ExitCode {
    cks_rollout::live::cleanup::catch_file_size_signal();
    let matches = command().get_matches();
    let cli = <Cli as clap::FromArgMatches>::from_arg_matches(&matches)
        .unwrap_or_else(|error| error.exit());
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
            // Bad input (a flag's value, the cluster file) is 2, as for cks-iso.
            ExitCode::from(if cks_cli_docs::is_bad_input(&e) { 2 } else { 1 })
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
            Command::Simulate(_) | Command::Completions(_) | Command::Man(_) => None,
        }
    }
}

/// The live ports, their warnings shown.
fn connect(live: &LiveArgs) -> Result<LivePorts> {
    let ports = LivePorts::connect(&live.options()?)?;
    for warning in &ports.warnings {
        render::warn(&format!("cks-rollout: warning: {warning}"));
    }
    Ok(ports)
}

/// The engine's refusals of `req` that CloudStack and the store alone decide (the autoscaler
/// risk, node types that cannot be rolled out, the settings), then what discovery could not
/// find; the engine's notes shown.
fn checked(ports: &mut LivePorts, live: &LiveArgs, req: &UpdateRequest) -> Result<()> {
    let notes = check_update(&mut ports.ports(), &live.cluster_id, req)?;
    for note in &notes {
        render::warn(&format!("note: {note}"));
    }
    ports.discovery.check_found(&live.options()?)
}

fn run(cli: &Cli) -> Result<Exit> {
    match &cli.command {
        Command::Simulate(args) => simulate::run(args, cli.json),
        Command::Completions(args) => {
            cks_cli_docs::print_completions(&command(), "cks-rollout", args)?;
            Ok(Exit::Ok)
        }
        Command::Man(args) => {
            cks_cli_docs::print_man(&command(), "cks-rollout", PAGES, args)?;
            Ok(Exit::Ok)
        }
        Command::Plan { live, update } => {
            // The options are checked before anything is reached.
            let req = update.request(true).map_err(bad_input)?;
            live.check().map_err(bad_input)?;
            let mut ports = connect(live)?;
            checked(&mut ports, live, &req)?;
            let plan = plan_update(&mut ports.ports(), &live.cluster_id, &req)
                .context("planning the update")?;
            if cli.json {
                render::json(&plan)?;
            } else {
                let offerings = offering_names(&mut ports.ports());
                out!("{}", render::plan_text(&plan, &offerings));
                if let Ok(cluster) = view(&mut ports.ports(), &live.cluster_id) {
                    out!("{}", render::created_since_text(&cluster));
                }
            }
            Ok(Exit::Ok)
        }
        Command::Run { live, run: args } => {
            // The settings, every control value and the event sinks are checked before
            // anything is reached.
            let req = args.request().map_err(bad_input)?;
            let cfg = args
                .controls(live.engine_config().map_err(bad_input)?)
                .map_err(bad_input)?;
            live.check().map_err(bad_input)?;
            // The events file and the webhook URL are the user's values too.
            let mut sinks = sinks::Sinks::open(args, &live.cluster_id).map_err(bad_input)?;
            let mut ports = connect(live)?;
            checked(&mut ports, live, &req)?;
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
                    UpdateOutcome::Stored { view, .. } => out!("{}", render::stored_text(view)),
                    UpdateOutcome::CancelRequested => {}
                }
                let offerings = offering_names(&mut ports.ports());
                out!("{}", render::view_text(&cluster, &offerings));
            }
            Ok(if failed {
                Exit::RolloutFailed
            } else {
                Exit::Ok
            })
        }
        Command::Cancel { live } => {
            let mut ports = connect(live)?;
            let req = cks_rollout::engine::UpdateRequest {
                cancel_rollout: true,
                ..Default::default()
            };
            let cfg = live.engine_config()?;
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
            let mut ports = connect(live)?;
            let cluster =
                view(&mut ports.ports(), &live.cluster_id).context("reading the cluster view")?;
            if cli.json {
                render::json(&cluster)?;
            } else {
                let offerings = offering_names(&mut ports.ports());
                out!("{}", render::view_text(&cluster, &offerings));
            }
            Ok(Exit::Ok)
        }
        Command::Scan { live } => {
            let mut ports = connect(live)?;
            let cfg = live.engine_config()?;
            let outcome = scan(&mut ports.ports(), &live.cluster_id, cfg.lease_timeout)
                .context("scanning the cluster")?;
            if cli.json {
                render::json(&outcome)?;
            } else {
                outln!("{}", words::scan(&outcome));
            }
            Ok(Exit::Ok)
        }
    }
}

/// The service offerings' names, for the text output (ids only when they cannot be listed).
fn offering_names(ports: &mut cks_rollout::ports::Ports<'_>) -> words::Offerings {
    words::Offerings::new(&ports.cloud.list_service_offerings().unwrap_or_default())
}
