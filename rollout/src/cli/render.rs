//! What the commands print: plans, cluster views and rollout reports as text or JSON, and the
//! step-by-step progress (a status line on a terminal, plain lines otherwise).

use std::io::{IsTerminal, Write};

use serde::Serialize;

use std::collections::BTreeMap;

use cks_pinning::terminal::{controls, one_line};
use cks_rollout::engine::{ClusterView, Event, Plan, Progress, RolloutReport, StepKind};
use cks_rollout::model::NodeType;

use super::words::{self, Offerings};

/// Writes to stdout, every control character but the line break escaped
/// ([`cks_pinning::terminal::controls`]): node names, CloudStack's and the Kubernetes API's
/// messages reach the terminal as text, never as sequences it obeys. Once stdout is closed
/// (`cks-rollout simulate | head`) the program ends quietly with status 0, as a filter's reader
/// wanted no more; another write error ends it with status 1, named.
pub fn write_out(text: std::fmt::Arguments<'_>) {
    let text = text.to_string();
    write_raw(&controls(&text));
}

/// Clears the terminal and moves to its top (the watch's redraw): the one control sequence
/// printed on purpose.
pub fn clear_screen() {
    write_raw("\x1b[H\x1b[2J");
}

fn write_raw(text: &str) {
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        cks_rollout::live::cleanup::remove_all();
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("cks-rollout: writing to stdout: {e}");
        std::process::exit(1);
    }
}

/// Prints `text` on stderr with its control characters escaped, as [`write_out`] does.
pub fn warn(text: &str) {
    eprintln!("{}", controls(text));
}

/// Prints `value` as pretty JSON on stdout.
pub fn json<T: Serialize>(value: &T) -> anyhow::Result<()> {
    outln!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}

/// A plan as text, offerings named as `offerings` names them.
pub fn plan_text(plan: &Plan, offerings: &Offerings) -> String {
    let mut out = format!(
        "plan for cluster {}: {} phase(s), workers {} at a time\n",
        plan.cluster_id,
        plan.phases.len(),
        plan.worker_batch_size
    );
    for node in &plan.finish {
        out.push_str(&format!(
            "  finish {node}: came back after an earlier run, uncordon\n"
        ));
    }
    for phase in &plan.phases {
        let resume = if phase.resume { " (resume)" } else { "" };
        out.push_str(&format!("  phase {}{resume}\n", phase.node_type));
        for batch in &phase.batches {
            let names: Vec<&str> = batch.nodes.iter().map(|n| n.node.as_str()).collect();
            out.push_str(&format!(
                "    batch {}: {} — preflight {}\n",
                batch.number,
                names.join(", "),
                batch.preflight
            ));
            for node in &batch.nodes {
                let changes: Vec<String> = node
                    .changes
                    .iter()
                    .map(|c| words::change(c, offerings))
                    .collect();
                let other = if node.cordoned_by_other {
                    " (cordoned by someone else)"
                } else {
                    ""
                };
                out.push_str(&format!(
                    "      {} ({}){other}: {}\n",
                    node.node,
                    words::reason(node.reason),
                    changes.join(", ")
                ));
            }
        }
    }
    for skip in &plan.skipped {
        out.push_str(&format!(
            "  skipped {} ({}): {}\n",
            skip.node, skip.node_type, skip.reason
        ));
    }
    if plan.phases.is_empty() && plan.finish.is_empty() {
        if plan.skipped.is_empty() {
            out.push_str("  nothing to do: every node is up to date\n");
        } else {
            out.push_str(&format!(
                "  nothing the rollout can do now: {} node(s) need a change but are skipped (see above)\n",
                plan.skipped.len()
            ));
        }
    }
    out
}

/// A cluster view as text, offerings named as `offerings` names them.
pub fn view_text(view: &ClusterView, offerings: &Offerings) -> String {
    let mut out = format!(
        "cluster {}: {}\n  capacity: {} cores, {} MiB\n",
        view.id, view.condition, view.cores, view.memory_mb
    );
    for t in &view.types {
        let disk = t
            .root_disk_size_gb
            .map_or("as created".to_string(), |gb| format!("{gb} GB"));
        let groups = t
            .affinity_group_ids
            .as_ref()
            .map_or("as they are".to_string(), |g| {
                if g.is_empty() {
                    "none".to_string()
                } else {
                    g.join(",")
                }
            });
        out.push_str(&format!(
            "  {}: {} node(s), offering {}, root disk {disk}, affinity groups {groups}, {} out of date\n",
            t.node_type,
            t.count,
            offerings.name(&t.offering_id),
            t.out_of_date
        ));
    }
    out.push_str(&format!(
        "  out of date: control {}, worker {}, etcd {}\n",
        view.controlnodesoutofdate, view.workernodesoutofdate, view.etcdnodesoutofdate
    ));
    if let Some(e) = &view.lasterror {
        out.push_str(&format!("  lasterror: {e}\n"));
    }
    out.push_str(&created_since_text(view));
    for w in &view.warnings {
        out.push_str(&format!("  warning: {w}\n"));
    }
    out
}

/// The nodes created since the settings were stored, named (empty when there are none).
pub fn created_since_text(view: &ClusterView) -> String {
    let named: Vec<String> = view
        .types
        .iter()
        .flat_map(|t| {
            t.created_since_settings
                .iter()
                .map(move |n| format!("{n} ({})", t.node_type))
        })
        .collect();
    if named.is_empty() {
        return String::new();
    }
    format!(
        "  created since the settings were stored: {}; CloudStack gave them its own settings, so plan and run find them out of date and roll them\n",
        named.join(", ")
    )
}

/// The settings stored with no rollout: kept in this tool's store only, what CloudStack will do
/// with the nodes it creates later, and what is out of date.
pub fn stored_text(view: &ClusterView) -> String {
    format!(
        "stored the settings in the cks-rollout store; no node was touched (out of date: control {}, worker {}, etcd {}; run again without --no-rollout to restart them). CloudStack does not know these settings: nodes it creates later (a scale, the autoscaler) get CloudStack's own offering, disk size and groups, and the next plan or run finds them out of date and rolls them\n",
        view.controlnodesoutofdate, view.workernodesoutofdate, view.etcdnodesoutofdate
    )
}

/// A rollout report's ending as text.
pub fn report_text(report: &RolloutReport) -> String {
    let mut out = format!(
        "restarted {} node(s): {}\n",
        report.run.done.len(),
        report.run.done.join(", ")
    );
    if report.run.cancelled {
        out.push_str("stopped by a cancel\n");
    }
    if let Some(e) = &report.run.error {
        out.push_str(&format!("stopped: {e}\n"));
    }
    match (&report.release, &report.release_error) {
        (Some(r), _) => {
            out.push_str(&format!("released: {}", words::name(&r.state)));
            if !r.left_cordoned.is_empty() {
                out.push_str(&format!(", left cordoned: {}", r.left_cordoned.join(", ")));
            }
            out.push('\n');
        }
        (None, Some(e)) => out.push_str(&format!(
            "release failed: {e}; the state scanner will move the cluster to Alert\n"
        )),
        (None, None) => {}
    }
    out
}

/// Prints each step: plain lines on stdout, plus a status line on stderr when it is a terminal.
/// Silent with `--json` (the final document carries every event).
pub struct StepPrinter {
    quiet: bool,
    terminal: bool,
    types: BTreeMap<String, NodeType>,
    phase: Option<NodeType>,
    /// The first event's time: each line shows the time since it (a live run's clock counts
    /// from the Unix epoch).
    first_ms: Option<u64>,
}

impl StepPrinter {
    /// A printer; `json` silences it. `types` gives each node's type, for the phase shown.
    pub fn new(json: bool, types: BTreeMap<String, NodeType>) -> Self {
        StepPrinter {
            quiet: json,
            terminal: std::io::stderr().is_terminal(),
            types,
            phase: None,
            first_ms: None,
        }
    }

    /// Clears the status line.
    pub fn finish(&self) {
        if self.terminal && !self.quiet {
            eprint!("\r\x1b[K");
        }
    }
}

impl Progress for StepPrinter {
    fn on_event(&mut self, e: &Event) {
        if self.quiet {
            return;
        }
        if let Some(t) = e.node.as_ref().and_then(|n| self.types.get(n)) {
            self.phase = Some(*t);
        }
        let batch = e.batch.map(|b| format!("batch {b} ")).unwrap_or_default();
        let node = e
            .node
            .as_deref()
            .map(|n| format!("{} ", one_line(n)))
            .unwrap_or_default();
        let first = *self.first_ms.get_or_insert(e.at_ms);
        let line = format!(
            "{:>9} {batch}{node}{}: {}",
            words::elapsed(e.at_ms.saturating_sub(first)),
            words::name(&e.step),
            e.detail
        );
        if self.terminal {
            eprint!("\r\x1b[K");
        }
        outln!("{line}");
        if self.terminal && !matches!(e.step, StepKind::Release) {
            let phase = self
                .phase
                .map(|p| format!("phase {p} "))
                .unwrap_or_default();
            eprint!("[{phase}{batch}{node}{}]", words::name(&e.step));
            let _ = std::io::stderr().flush();
        }
    }
}
