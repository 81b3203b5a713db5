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
use cks_rollout::ports::{GateCall, GateRun, GateStatus, Hooks};
use cks_rollout::ports::{PortError, Store};
use cks_rollout::sim::{Fault, GateSpec, Simulation};
use std::time::{Duration, Instant};

const SEED: u64 = 5;

fn gated(gates: &[&str]) -> EngineConfig {
    EngineConfig {
        gates: gates.iter().map(|g| g.to_string()).collect(),
        ..cfg()
    }
}

/// The update call `req` of `sim` with `cfg`, its gates run by `hooks`.
fn update_with_hooks(
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

/// Wait (bounded) for a real gate to exit.
fn exited(hooks: &mut CommandHooks, run: &GateRun) -> GateStatus {
    let until = Instant::now() + Duration::from_secs(30);
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
    let run = hooks
        .start_gate(&GateCall {
            command: &command,
            cluster: "c",
            batch: 1,
            nodes: &[],
            pass_env: &[],
        })
        .expect("gate starts");
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
    let run = hooks
        .start_gate(&GateCall {
            command: "head -c 5000000 /dev/zero | tr '\\0' 'x'; printf '\\n\\033[31mred\\033[0m\\n\\n'; exit 1",
            cluster: "c",
            batch: 1,
            nodes: &[],
            pass_env: &[],
        })
        .expect("gate starts");
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

/// A gate that exits 0 leaving `setsid sleep 1000` (out of its process group) holding its
/// output: the pid of that sleep is written to `dir/child-BATCH.pid`.
fn gate_leaving_a_child(dir: &std::path::Path) -> String {
    format!(
        "f={}/child-$CKS_BATCH.pid; \
         setsid sh -c \"echo \\$\\$ > $f.tmp; mv $f.tmp $f; exec sleep 1000\" & \
         i=0; while [ ! -s $f ] && [ $i -lt 3000 ]; do sleep 0.01; i=$((i+1)); done; \
         echo done; exit 0",
        dir.display()
    )
}

/// Kill the sleeps the gates left behind.
fn kill_left_children(dir: &std::path::Path) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if name.starts_with("child-")
            && name.ends_with(".pid")
            && let Ok(pid) = std::fs::read_to_string(entry.path())
        {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", pid.trim()])
                .status();
        }
    }
}

#[test]
fn a_real_gate_whose_child_holds_its_output_ends_within_the_read_deadline() {
    let dir = tempfile::tempdir().expect("temp dir");
    let command = gate_leaving_a_child(dir.path());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut hooks = CommandHooks::new();
        let run = hooks
            .start_gate(&GateCall {
                command: &command,
                cluster: "c",
                batch: 1,
                nodes: &[],
                pass_env: &[],
            })
            .expect("gate starts");
        let _ = tx.send(exited(&mut hooks, &run));
    });
    // Far beyond the read deadline; a gate status that never comes fails the test.
    let status = rx.recv_timeout(Duration::from_secs(120));
    kill_left_children(dir.path());
    assert_eq!(
        status.expect("the gate ended"),
        GateStatus::Exited {
            code: Some(0),
            last_line: "done".into()
        }
    );
}

#[test]
fn a_rollout_whose_real_gate_leaves_a_child_holding_its_output_goes_on() {
    let dir = tempfile::tempdir().expect("temp dir");
    let command = gate_leaving_a_child(dir.path());
    // Virtual time runs far faster than the real gate: a gate timeout no real wait reaches.
    let cfg = EngineConfig {
        gate_timeout: Duration::from_secs(1 << 40),
        ..gated(&[&command])
    };
    let req = offerings(&[("worker", "medium")]);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let sim = Simulation::new(&cluster(3, 0, 2), SEED).expect("simulable");
        let outcome = update_with_hooks(&sim, &mut CommandHooks::new(), &req, &cfg);
        let _ = tx.send((
            outcome.map_err(|e| e.to_string()).map(|o| match o {
                UpdateOutcome::RolledOut(r) => r.run.error.map(|e| e.to_string()),
                other => Some(format!("{other:?}")),
            }),
            sim.restarts(),
            sim.world().violation.clone(),
        ));
    });
    let ended = rx.recv_timeout(Duration::from_secs(300));
    kill_left_children(dir.path());
    let (outcome, restarts, violation) = ended.expect("the rollout ended");
    assert_eq!(outcome, Ok(None), "the rollout went on");
    assert_eq!(restarts, 2);
    assert!(violation.is_none(), "{violation:?}");
}

/// Gates whose status is read through a port that fails: `unavailable` reads fail as
/// unavailable (the gate then exits 0), or every read fails for good with `broken`.
struct StatusPort {
    unavailable: u32,
    broken: Option<&'static str>,
}

impl Hooks for StatusPort {
    fn start_gate(&mut self, call: &GateCall<'_>) -> cks_rollout::ports::PortResult<GateRun> {
        Ok(GateRun {
            id: call.batch as u64,
            command: call.command.to_string(),
        })
    }

    fn gate_status(&mut self, _run: &GateRun) -> cks_rollout::ports::PortResult<GateStatus> {
        if let Some(why) = self.broken {
            return Err(PortError::other(why));
        }
        if self.unavailable > 0 {
            self.unavailable -= 1;
            return Err(PortError::unavailable("the gate's status did not answer"));
        }
        Ok(GateStatus::Exited {
            code: Some(0),
            last_line: String::new(),
        })
    }

    fn stop_gate(&mut self, _run: &GateRun) {}

    fn reboot_required(&mut self, _node: &str) -> cks_rollout::ports::PortResult<bool> {
        Ok(false)
    }
}

/// The rollout of the workers of a 3+2 cluster gated by `hooks`: its error, and how many nodes
/// were restarted.
fn gated_through(hooks: &mut StatusPort) -> (Option<String>, u32) {
    let cfg = gated(&["slo-check"]);
    let req = offerings(&[("worker", "medium")]);
    let sim = Simulation::new(&cluster(3, 0, 2), SEED).expect("simulable");
    let outcome = update_with_hooks(&sim, hooks, &req, &cfg);
    assert!(
        sim.world().violation.is_none(),
        "{:?}",
        sim.world().violation
    );
    let error = match outcome.expect("the update ran") {
        UpdateOutcome::RolledOut(r) => r.run.error.map(|e| e.to_string()),
        other => panic!("expected a rollout: {other:?}"),
    };
    (error, sim.restarts())
}

#[test]
fn a_gate_status_that_does_not_answer_for_a_while_is_read_again() {
    let (error, restarts) = gated_through(&mut StatusPort {
        unavailable: 3,
        broken: None,
    });
    assert_eq!(error, None, "the gate passed once its status was read");
    assert_eq!(restarts, 2);
}

#[test]
fn a_gate_status_that_cannot_be_read_fails_the_gate_with_the_ports_error() {
    let (error, restarts) = gated_through(&mut StatusPort {
        unavailable: 0,
        broken: Some("the gate's status is not readable"),
    });
    let error = error.expect("the gate failed");
    assert!(
        error.contains("slo-check") && error.contains("the gate's status is not readable"),
        "{error}"
    );
    assert_eq!(restarts, 0, "no node is touched after a failed gate");
}

/// A gate that never exits, on the simulation's clock: when it was started and stopped.
struct Stuck {
    clock: cks_rollout::sim::SimHandle,
    started: Option<Duration>,
    stopped: Option<Duration>,
}

impl Hooks for Stuck {
    fn start_gate(&mut self, call: &GateCall<'_>) -> cks_rollout::ports::PortResult<GateRun> {
        use cks_rollout::ports::Clock;
        self.started = Some(self.clock.now());
        Ok(GateRun {
            id: 1,
            command: call.command.to_string(),
        })
    }

    fn gate_status(&mut self, _run: &GateRun) -> cks_rollout::ports::PortResult<GateStatus> {
        Ok(GateStatus::Running)
    }

    fn stop_gate(&mut self, _run: &GateRun) {
        use cks_rollout::ports::Clock;
        self.stopped = Some(self.clock.now());
    }

    fn reboot_required(&mut self, _node: &str) -> cks_rollout::ports::PortResult<bool> {
        Ok(false)
    }
}

#[test]
fn a_gate_is_stopped_at_its_timeout_not_at_the_next_look_after_it() {
    // Looked at every second; the timeout falls between two looks.
    let cfg = EngineConfig {
        gate_timeout: Duration::from_millis(2500),
        ..gated(&["./slo"])
    };
    let req = offerings(&[("worker", "medium")]);
    let sim = Simulation::new(&cluster(3, 0, 2), SEED).expect("simulable");
    let mut hooks = Stuck {
        clock: sim.ports().clock(),
        started: None,
        stopped: None,
    };
    let _ = update_with_hooks(&sim, &mut hooks, &req, &cfg);
    let (Some(started), Some(stopped)) = (hooks.started, hooks.stopped) else {
        panic!("the gate was started and stopped")
    };
    assert_eq!(stopped - started, Duration::from_millis(2500));
    assert_eq!(sim.restarts(), 0);
}
