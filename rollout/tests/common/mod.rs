//! Cluster descriptions shared by the tests.

#![allow(dead_code)]

use cks_rollout::engine::{EngineConfig, RolloutReport, UpdateOutcome, UpdateRequest};
use cks_rollout::sim::{ClusterSpec, SimRun, Simulation};

/// Offerings `small` (2 CPU, 4 GiB), `medium` (4, 8 GiB), `large` (8, 16 GiB); groups `ag-1`,
/// `ag-2` (anti-affinity) and `ag-dedicated` (explicit dedication); a fixed 20 GB disk
/// offering `fixed-20` and a custom one `custom`.
pub fn cluster(control: u32, etcd: u32, workers: u32) -> ClusterSpec {
    let etcd = if etcd > 0 {
        format!("etcd: {{ count: {etcd} }}\n")
    } else {
        String::new()
    };
    let yaml = format!(
        r#"
id: cluster-1
name: demo
service_offering: small
offerings:
  - {{ id: small, name: small, cpu_cores: 2, memory_mb: 4096 }}
  - {{ id: medium, name: medium, cpu_cores: 4, memory_mb: 8192 }}
  - {{ id: large, name: large, cpu_cores: 8, memory_mb: 16384 }}
disk_offerings:
  - {{ id: fixed-20, name: fixed-20, size_gb: 20, customized: false }}
  - {{ id: custom, name: custom, size_gb: 0, customized: true }}
affinity_groups:
  - {{ id: ag-1, name: spread, kind: host anti-affinity }}
  - {{ id: ag-2, name: spread-2, kind: host anti-affinity }}
  - {{ id: ag-dedicated, name: dedicated, kind: ExplicitDedication }}
control: {{ count: {control} }}
workers: {{ count: {workers} }}
{etcd}"#
    );
    serde_norway::from_str(&yaml).expect("test cluster description parses")
}

/// `rollout=true` with one offering per given type.
pub fn offerings(pairs: &[(&str, &str)]) -> UpdateRequest {
    let mut req = UpdateRequest {
        rollout: true,
        ..Default::default()
    };
    for (t, o) in pairs {
        req.node_offerings.insert(t.to_string(), o.to_string());
    }
    req
}

/// Config with default timeouts.
pub fn cfg() -> EngineConfig {
    EngineConfig::default()
}

/// The report of a run that rolled out, with the trace on failure.
pub fn report(run: &SimRun) -> &RolloutReport {
    match &run.outcome {
        Ok(UpdateOutcome::RolledOut(r)) => r,
        other => panic!(
            "expected a rollout, got {other:?}\n{}",
            run.failure_report()
        ),
    }
}

/// Run and assert no invariant broke.
pub fn run_ok(sim: &Simulation, req: &UpdateRequest) -> SimRun {
    let run = sim.run(req, &cfg());
    assert!(run.violation.is_none(), "{}", run.failure_report());
    run
}

/// `status` of the simulated cluster (the view the CLI prints).
pub fn status(sim: &cks_rollout::sim::Simulation) -> cks_rollout::engine::ClusterView {
    let id = sim.cluster_id();
    let mut ports = sim.ports();
    cks_rollout::engine::view(&mut ports.ports(), &id).expect("the cluster view")
}

/// Someone else acting on the simulated cluster while a rollout runs: `act` sees every event
/// and the world, and changes what it likes (a rival engine, an operator, a failing server).
pub struct Rival<'a, F> {
    /// The simulation acted on.
    pub sim: &'a cks_rollout::sim::Simulation,
    /// What it does at each event.
    pub act: F,
}

impl<F: FnMut(&cks_rollout::engine::Event, &mut cks_rollout::sim::World)>
    cks_rollout::engine::Progress for Rival<'_, F>
{
    fn on_event(&mut self, e: &cks_rollout::engine::Event) {
        (self.act)(e, &mut self.sim.world_mut());
    }
}

/// True for the event of `step` about `node`.
pub fn is_step(
    e: &cks_rollout::engine::Event,
    step: cks_rollout::engine::StepKind,
    node: &str,
) -> bool {
    e.step == step && e.node.as_deref() == Some(node)
}

/// Run `req` with `cfg` while `rival` acts on the cluster ([`Rival`]); assert no invariant broke.
pub fn run_with_ok(
    sim: &Simulation,
    req: &UpdateRequest,
    cfg: &EngineConfig,
    rival: &mut dyn cks_rollout::engine::Progress,
) -> SimRun {
    let run = sim.run_with(req, cfg, rival);
    assert!(run.violation.is_none(), "{}", run.failure_report());
    run
}

/// The rollout's error as text, or the empty text when it went to its end.
pub fn error_text(run: &SimRun) -> String {
    report(run)
        .run
        .error
        .as_ref()
        .map(ToString::to_string)
        .unwrap_or_default()
}

/// The step number of the first line of `sim`'s trace that contains `what`.
pub fn first_step(sim: &Simulation, what: &str) -> u64 {
    sim.world()
        .trace
        .iter()
        .find(|l| l.contains(what))
        .and_then(|l| l.strip_prefix('#')?.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no step with {what}"))
}

/// The workers rolled onto `medium` with the default config while `rival` acts ([`run_with_ok`]).
pub fn workers_with(sim: &Simulation, rival: &mut dyn cks_rollout::engine::Progress) -> SimRun {
    run_with_ok(sim, &offerings(&[("worker", "medium")]), &cfg(), rival)
}
