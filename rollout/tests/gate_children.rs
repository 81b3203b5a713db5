//! A real gate that leaves a child holding its output: the gate's end is read within the read
//! deadline, and the rollout goes on.

use crate::common::{cluster, offerings};
use crate::gate::{SEED, exited, gated, started, update_with_hooks};
use cks_rollout::adapters::gate_command::CommandHooks;
use cks_rollout::engine::{EngineConfig, UpdateOutcome};
use cks_rollout::ports::GateStatus;
use cks_rollout::sim::Simulation;
use std::time::Duration;

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
        let run = started(&mut hooks, &command);
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
