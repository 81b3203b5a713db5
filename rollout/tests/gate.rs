//! `--gate`: commands run before each batch, told the cluster, batch and nodes; one that does
//! not exit 0 (or runs past `--gate-timeout`) stops the rollout between batches. On the
//! simulator, and the real adapter running `sh -c` here: a cleared environment, no secret in
//! what it shows, DNS-1123 node names only, and an end within a deadline whatever its children
//! do.

use crate::common::{cfg, cluster, offerings, report};
use cks_rollout::adapters::gate_command::{CommandHooks, last_line};
use cks_rollout::adapters::store::SqliteStore;
use cks_rollout::engine::{
    EngineConfig, EngineError, StepKind, UpdateError, UpdateOutcome, UpdateRequest,
};
use cks_rollout::model::ClusterState;
use cks_rollout::ports::Store;
use cks_rollout::ports::{GateCall, GateRun, GateStatus, Hooks};
use cks_rollout::sim::{Fault, GateSpec, Simulation};
use std::time::{Duration, Instant};

pub(crate) const SEED: u64 = 5;

pub(crate) fn gated(gates: &[&str]) -> EngineConfig {
    EngineConfig {
        gates: gates.iter().map(|g| g.to_string()).collect(),
        ..cfg()
    }
}

/// The update call `req` of `sim` with `cfg`, its gates run by `hooks`.
pub(crate) fn update_with_hooks(
    sim: &Simulation,
    hooks: &mut dyn Hooks,
    req: &UpdateRequest,
    cfg: &EngineConfig,
) -> Result<UpdateOutcome, UpdateError> {
    sim.prepare(req, cfg);
    let mut ports = sim.ports();
    let outcome = cks_rollout::engine::update(
        &mut ports.ports_with_hooks(hooks),
        &sim.cluster_id(),
        req,
        cfg,
        &mut cks_rollout::engine::NoProgress,
    );
    sim.finish(&outcome);
    outcome
}

fn failing(batch: usize, seconds: u64) -> GateSpec {
    GateSpec {
        batch,
        command: Some("slo".into()),
        exit: 1,
        output: "error budget spent".into(),
        seconds,
    }
}

#[test]
fn every_gate_runs_before_every_batch_with_its_cluster_batch_and_nodes() {
    let sim = Simulation::new(&cluster(3, 0, 3), SEED).expect("simulable");
    let run = sim.run(
        &offerings(&[("worker", "medium")]),
        &gated(&["./slo", "./alerts"]),
    );
    assert!(run.violation.is_none(), "{}", run.failure_report());
    assert!(report(&run).run.error.is_none(), "{}", run.failure_report());
    let started = sim.world().gates.started.clone();
    let want: Vec<(usize, String, Vec<String>)> = (1..=3)
        .flat_map(|b| ["./slo", "./alerts"].map(|g| (b, g.to_string(), vec![format!("w-{b}")])))
        .collect();
    assert_eq!(started, want);
    let passed = report(&run)
        .events
        .iter()
        .filter(|e| e.step == StepKind::Gate)
        .count();
    assert_eq!(passed, 6);
}

#[test]
fn a_gate_failing_on_batch_2_stops_the_rollout_with_its_last_line() {
    let mut spec = cluster(3, 0, 4);
    spec.gates.push(failing(2, 40));
    let sim = Simulation::new(&spec, SEED).expect("simulable");
    let run = sim.run(&offerings(&[("worker", "medium")]), &gated(&["./slo"]));
    assert!(run.violation.is_none(), "{}", run.failure_report());
    match &report(&run).run.error {
        Some(EngineError::GateFailed { batch: 2, why, .. }) => {
            assert!(
                why.contains("exited 1; its last line: error budget spent"),
                "{why}"
            );
        }
        other => panic!("expected the gate to stop batch 2: {other:?}"),
    }
    assert_eq!(sim.restarts(), 1, "only batch 1 was restarted");
    let w = sim.world();
    assert_eq!(w.record.state, ClusterState::Running, "nothing is down");
    assert!(
        w.record
            .last_error
            .as_deref()
            .is_some_and(|e| e.contains("error budget spent")),
        "{:?}",
        w.record.last_error
    );
}

#[test]
fn a_gate_past_its_timeout_is_stopped_and_fails() {
    let mut spec = cluster(3, 0, 2);
    spec.gates.push(failing(1, 3600));
    let sim = Simulation::new(&spec, SEED).expect("simulable");
    let cfg = EngineConfig {
        gate_timeout: Duration::from_secs(120),
        ..gated(&["./slo"])
    };
    let run = sim.run(&offerings(&[("worker", "medium")]), &cfg);
    assert!(run.violation.is_none(), "{}", run.failure_report());
    match &report(&run).run.error {
        Some(EngineError::GateFailed { batch: 1, why, .. }) => {
            assert!(why.contains("gate timeout of 120 s"), "{why}");
        }
        other => panic!("expected a gate timeout: {other:?}"),
    }
    assert_eq!(sim.restarts(), 0);
    let w = sim.world();
    assert!(w.gates.running.is_empty(), "the gate was stopped");
    assert!(
        run.trace
            .iter()
            .any(|l| l.contains("hooks.stop_gate(./slo)"))
    );
}

#[test]
fn a_gate_longer_than_the_lease_keeps_it_renewed_against_a_second_engine() {
    let mut spec = cluster(3, 0, 2);
    // A passing gate that runs 30 minutes before batch 1 (the lease times out after 5).
    spec.gates.push(GateSpec {
        exit: 0,
        output: "ok".into(),
        ..failing(1, 1800)
    });
    let req = offerings(&[("worker", "medium")]);
    let cfg = EngineConfig {
        gate_timeout: Duration::from_secs(3600),
        ..gated(&["./slo"])
    };
    let clean = Simulation::new(&spec, SEED).expect("simulable");
    clean.run(&req, &cfg);
    let started = clean
        .world()
        .trace
        .iter()
        .find(|l| l.contains("hooks.start_gate"))
        .and_then(|l| l.strip_prefix('#')?.split(' ').next()?.parse::<u64>().ok())
        .expect("the gate started");
    let mut spec = spec.clone();
    // Each poll of the gate is two calls a second: 1000 calls are well past the lease timeout.
    spec.faults.push(Fault::SecondEngine {
        at_step: started + 1000,
    });
    let sim = Simulation::new(&spec, SEED).expect("simulable");
    let run = sim.run(&req, &cfg);
    assert!(run.violation.is_none(), "{}", run.failure_report());
    let r = report(&run);
    assert!(
        r.run.error.is_none() && !r.run.lost_lease,
        "{}",
        run.failure_report()
    );
    assert_eq!(sim.restarts(), 2);
    // The gate is looked at every second, the lease renewed about once a poll interval (10 s;
    // the second engine's tries are counted too): near 180 in the 30 minutes, not one a look.
    let renewals = run
        .trace
        .iter()
        .skip_while(|l| !l.contains("hooks.start_gate"))
        .take_while(|l| !l.contains("hooks.gate_status(./slo) -> exited"))
        .filter(|l| l.contains("store.hold_lease"))
        .count();
    assert!(
        (162..=225).contains(&renewals),
        "{renewals} renewals during the gate"
    );
    let looks = run
        .trace
        .iter()
        .filter(|l| l.contains("hooks.gate_status(./slo)"))
        .count();
    assert!((1800..=1802).contains(&looks), "{looks} looks at the gate");
}

/// A real gate running `command` for batch 1 of cluster `c`, with no nodes and no passed
/// environment.
pub(crate) fn started(hooks: &mut CommandHooks, command: &str) -> GateRun {
    hooks
        .start_gate(&GateCall {
            command,
            cluster: "c",
            batch: 1,
            nodes: &[],
            pass_env: &[],
        })
        .expect("gate starts")
}

/// Wait (bounded) for a real gate to exit.
pub(crate) fn exited(hooks: &mut CommandHooks, run: &GateRun) -> GateStatus {
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        let status = hooks.gate_status(run).expect("gate status");
        if status != GateStatus::Running || Instant::now() > until {
            return status;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn the_real_gate_is_told_cluster_batch_and_nodes_and_reports_its_last_line() {
    let mut hooks = CommandHooks::new();
    let nodes = vec!["w-1".to_string(), "w-2".to_string()];
    let call = GateCall {
        command: "echo first; echo \"$CKS_CLUSTER_ID batch $CKS_BATCH: $CKS_NODES\" >&2; exit 3",
        cluster: "cluster-9",
        batch: 2,
        nodes: &nodes,
        pass_env: &[],
    };
    let run = hooks.start_gate(&call).expect("gate starts");
    assert_eq!(
        exited(&mut hooks, &run),
        GateStatus::Exited {
            code: Some(3),
            last_line: "cluster-9 batch 2: w-1,w-2".into()
        }
    );
    let ok = GateCall {
        command: "true",
        ..call
    };
    let run = hooks.start_gate(&ok).expect("gate starts");
    assert!(matches!(
        exited(&mut hooks, &run),
        GateStatus::Exited { code: Some(0), .. }
    ));
}

#[test]
fn a_real_gate_that_is_stopped_takes_its_children_with_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let pidfile = dir.path().join("child.pid");
    let mut hooks = CommandHooks::new();
    let command = format!(
        "sh -c 'echo $$ > {}.tmp; mv {0}.tmp {0}; exec sleep 600' & sleep 600",
        pidfile.display()
    );
    let run = started(&mut hooks, &command);
    let until = Instant::now() + Duration::from_secs(30);
    let pid = loop {
        if let Ok(text) = std::fs::read_to_string(&pidfile) {
            break text.trim().to_string();
        }
        assert!(Instant::now() < until, "the gate's child never started");
        std::thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(hooks.gate_status(&run), Ok(GateStatus::Running));
    hooks.stop_gate(&run);
    assert!(hooks.gate_status(&run).is_err(), "the gate is forgotten");
    // The background child was killed with its group: gone, or a zombie until it is reaped.
    let stat = format!("/proc/{pid}/stat");
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        match std::fs::read_to_string(&stat) {
            Err(_) => break,
            Ok(s) if s.contains(") Z ") => break,
            Ok(_) => assert!(Instant::now() < until, "the gate's child {pid} still runs"),
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_flood_of_output_keeps_only_a_bounded_last_line() {
    let mut hooks = CommandHooks::new();
    let run = started(
        &mut hooks,
        "head -c 5000000 /dev/zero | tr '\\0' 'x'; printf '\\n\\033[31mred\\033[0m\\n\\n'; exit 1",
    );
    match exited(&mut hooks, &run) {
        GateStatus::Exited { code, last_line } => {
            assert_eq!(code, Some(1));
            assert_eq!(last_line, "[31mred[0m");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(last_line(&vec![b'y'; 10_000]).len(), 300);
}

#[test]
fn a_real_gate_gets_a_cleared_environment_and_nothing_shown_of_it_holds_a_secret() {
    use crate::cli_live::{live, text};
    let c = crate::adapter_support::cluster();
    let dir = tempfile::tempdir().expect("temp dir");
    let seen = dir.path().join("env.txt");
    let events = dir.path().join("events.jsonl");
    // The command line names the CloudStack secret; the last line prints FOO, passed with
    // --gate-env, which holds the PostgreSQL password.
    let gate = format!(
        "env > {}; echo \"budget spent for $FOO\"; exit 1 # e2e-secret",
        seen.display()
    );
    let out = live(&c, "run")
        .env("PGPASSWORD", "pg-password")
        .env(
            "CKS_ROLLOUT_STORE",
            "postgres://u:store-password@db.example/cks",
        )
        .env("FOO", "pg-password")
        .env("BAR", "not passed")
        .args(["--offering", &format!("worker={}", c.big)])
        .args(["--gate", &gate, "--gate-env", "FOO"])
        .arg("--events")
        .arg(&events)
        .output()
        .expect("runs");
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(3), "{shown}");
    let env = std::fs::read_to_string(&seen).expect("the gate ran");
    let names: Vec<&str> = env
        .lines()
        .filter_map(|l| l.split_once('=').map(|(n, _)| n))
        .collect();
    for absent in [
        "CLOUDSTACK_SECRET",
        "CLOUDSTACK_KEY",
        "CLOUDSTACK_ENDPOINT",
        "PGPASSWORD",
        "CKS_ROLLOUT_STORE",
        "BAR",
    ] {
        assert!(!names.contains(&absent), "{absent} reached the gate: {env}");
    }
    for present in ["FOO", "PATH", "CKS_CLUSTER_ID", "CKS_BATCH", "CKS_NODES"] {
        assert!(names.contains(&present), "{present} missing: {env}");
    }
    let last_error = SqliteStore::open(&c.store_path)
        .expect("store")
        .load(&c.cluster_id)
        .expect("record")
        .last_error
        .unwrap_or_default();
    let sent = std::fs::read_to_string(&events).expect("events");
    for (what, text) in [
        ("output", &shown),
        ("lasterror", &last_error),
        ("events", &sent),
    ] {
        assert!(
            !text.contains("e2e-secret") && !text.contains("pg-password"),
            "a secret in the {what}: {text}"
        );
        assert!(
            text.contains("budget spent for [redacted]") && text.contains("# [redacted]"),
            "{what}: {text}"
        );
    }
}

#[test]
fn a_node_name_that_is_not_dns_1123_never_reaches_a_real_gate() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ran = dir.path().join("ran");
    let command = format!("touch {}", ran.display());
    let mut hooks = CommandHooks::new();
    for bad in [
        "w-1;touch /tmp/x",
        "W-1",
        "w-1\u{1b}]0;pwned\u{7}",
        "",
        "-w",
    ] {
        let nodes = vec!["w-2".to_string(), bad.to_string()];
        let err = hooks
            .start_gate(&GateCall {
                command: &command,
                cluster: "c",
                batch: 1,
                nodes: &nodes,
                pass_env: &[],
            })
            .expect_err(bad);
        assert!(
            err.to_string().contains("is not a DNS-1123 subdomain")
                && err.to_string().contains(&format!("{bad:?}")),
            "{err}"
        );
    }
    assert!(!ran.exists(), "a gate ran");
    // On the engine: a node the Kubernetes API names so stops the batch before any gate.
    let sim = Simulation::new(&cluster(3, 0, 2), SEED).expect("simulable");
    {
        let mut w = sim.world_mut();
        let mut vm = w.vms.remove("w-2").expect("w-2");
        vm.name = "w-2\u{1b}[2J".into();
        w.vms.insert(vm.name.clone(), vm);
    }
    let run = sim.run(&offerings(&[("worker", "medium")]), &gated(&["./slo"]));
    match &report(&run).run.error {
        Some(e @ EngineError::BadNodeName { name, .. }) => {
            assert_eq!(name, "\"w-2\\u{1b}[2J\"", "escaped");
            assert!(!e.to_string().contains('\u{1b}'), "{e}");
        }
        other => panic!("expected the node name refused: {other:?}"),
    }
    assert!(
        sim.world()
            .gates
            .started
            .iter()
            .all(|(_, _, nodes)| nodes.iter().all(|n| !n.contains('\u{1b}'))),
        "{:?}",
        sim.world().gates.started
    );
}
