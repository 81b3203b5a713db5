//! `cks-rollout simulate` as a user runs it: a refused call exits 1, `--no-rollout` stores only,
//! a plan of skipped nodes says so; and an etcd node that times out is not called cordoned.

use std::process::{Command, Output};

use crate::common::{cfg, cluster, offerings, report};
use cks_rollout::engine::{NoProgress, UpdateOutcome};
use cks_rollout::model::NodeType;
use cks_rollout::sim::{Fault, Simulation};
use serde_json::Value;

fn example() -> String {
    format!(
        "{}/examples/simulate-cluster.yaml",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn simulate(cluster: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cks-rollout"))
        .args(["simulate", "--cluster", cluster])
        .args(args)
        .output()
        .expect("cks-rollout runs")
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn a_refused_simulate_run_exits_1_as_its_help_says() {
    let out = simulate(
        &example(),
        &["run", "--offering", "worker=no-such-offering"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("refused: "), "{}", text(&out));
    assert!(text(&out).contains("nodeofferings"), "{}", text(&out));
    let help = Command::new(env!("CARGO_BIN_EXE_cks-rollout"))
        .args(["simulate", "run", "--help"])
        .output()
        .expect("runs");
    let help = text(&help).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(help.contains("1 the update call was refused"), "{help}");
}

#[test]
fn simulate_run_no_rollout_stores_only_and_reports_the_out_of_date_counts() {
    let out = Command::new(env!("CARGO_BIN_EXE_cks-rollout"))
        .args(["--json", "simulate", "--cluster", &example(), "run"])
        .args(["--no-rollout", "--offering", "worker=large"])
        .output()
        .expect("runs");
    assert!(out.status.success(), "{}", text(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(doc["result"]["outcome"], "stored", "{doc}");
    // w-6 is already on large: five workers out of date.
    assert_eq!(doc["view"]["workernodesoutofdate"], 5, "{doc}");
    assert_eq!(doc["invariants"]["held"], true, "{doc}");

    // The same through the library: the settings are stored, no node is stopped or cordoned.
    let sim = Simulation::new(&cluster(3, 0, 3), 1).expect("simulable");
    let mut req = offerings(&[("worker", "medium")]);
    req.rollout = false;
    let outcome = sim.update(&req, &cfg(), &mut NoProgress).expect("stored");
    let UpdateOutcome::Stored { view, .. } = outcome else {
        panic!("expected Stored, got {outcome:?}");
    };
    assert_eq!(view.workernodesoutofdate, 3);
    let w = sim.world();
    assert_eq!(w.record.offering_for(NodeType::Worker), "medium");
    assert_eq!(sim.restarts(), 0);
    assert!(
        w.vms
            .values()
            .all(|v| v.node.as_ref().is_some_and(|n| !n.unschedulable))
    );
}

#[test]
fn a_plan_with_only_skipped_nodes_does_not_say_every_node_is_up_to_date() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("one-control.yaml");
    // One control node whose stored offering (from an earlier store-only call) it does not run:
    // its type cannot lose a node, so the plan skips it.
    std::fs::write(
        &path,
        "service_offering: small\n\
         offerings:\n\
         \x20 - { id: small, name: small, cpu_cores: 2, memory_mb: 4096 }\n\
         \x20 - { id: medium, name: medium, cpu_cores: 4, memory_mb: 8192 }\n\
         control: { count: 1 }\n\
         workers: { count: 2 }\n\
         settings:\n\
         \x20 control: { offering_id: medium }\n",
    )
    .expect("write");
    let path = path.to_string_lossy().into_owned();
    let out = simulate(&path, &["plan"]);
    let shown = text(&out);
    assert!(out.status.success(), "{shown}");
    assert!(shown.contains("skipped c-1 (control)"), "{shown}");
    assert!(!shown.contains("every node is up to date"), "{shown}");
    assert!(
        shown.contains("nothing the rollout can do now: 1 node(s) need a change but are skipped"),
        "{shown}"
    );
    // Without the stored offering nothing differs: then every node is up to date.
    let plain = dir.path().join("plain.yaml");
    let text_of = std::fs::read_to_string(&path).expect("read");
    let cut = text_of.find("settings:").expect("settings");
    std::fs::write(&plain, &text_of[..cut]).expect("write");
    let out = simulate(&plain.to_string_lossy(), &["plan"]);
    assert!(
        text(&out).contains("nothing to do: every node is up to date"),
        "{}",
        text(&out)
    );
}

#[test]
fn an_etcd_node_that_times_out_is_not_said_to_be_left_cordoned() {
    let spec = cluster(3, 3, 2);
    let req = offerings(&[("etcd", "medium")]);
    let clean = Simulation::new(&spec, 4).expect("simulable");
    crate::common::run_ok(&clean, &req);
    let vm = clean.world().vms["e-1"].id.clone();
    let stopped = clean
        .world()
        .trace
        .iter()
        .find(|l| l.contains(&format!("cloud.stop_vm({vm})")))
        .and_then(|l| l.strip_prefix('#')?.split(' ').next()?.parse::<u64>().ok())
        .expect("the clean run stopped e-1");
    // e-1's member never gets healthy again after its restart.
    let mut spec = spec.clone();
    spec.faults.push(Fault::EtcdUnhealthy {
        member: "e-1".into(),
        at_step: stopped + 1,
        until_step: None,
    });
    let sim = Simulation::new(&spec, 4).expect("simulable");
    let run = crate::common::run_ok(&sim, &req);
    let e = report(&run)
        .run
        .error
        .as_ref()
        .map(ToString::to_string)
        .unwrap_or_default();
    assert!(
        e.contains("not verified within"),
        "{}",
        run.failure_report()
    );
    assert!(!e.contains("cordoned"), "{e}");
    assert!(e.contains("run the rollout again once it is back"), "{e}");
}

#[test]
fn status_and_plan_name_the_nodes_created_since_the_settings_were_stored() {
    let mut req = offerings(&[("worker", "medium")]);
    req.rollout = false;
    // The same run twice (deterministic): the first counts the steps the call takes, the second
    // has CloudStack add a worker right after it.
    let dry = Simulation::new(&cluster(3, 0, 3), 1).expect("simulable");
    dry.update(&req, &cfg(), &mut NoProgress).expect("stored");
    let stored_at = dry.world().step;
    let before = crate::common::status(&dry);
    assert!(
        before
            .types
            .iter()
            .all(|t| t.created_since_settings.is_empty()),
        "{before:?}"
    );
    let mut spec = cluster(3, 0, 3);
    spec.faults.push(cks_rollout::sim::Fault::AddWorker {
        at_step: stored_at + 1,
    });
    let sim = Simulation::new(&spec, 1).expect("simulable");
    sim.update(&req, &cfg(), &mut NoProgress).expect("stored");
    // CloudStack scales the cluster up: the new worker has CloudStack's own (default) offering.
    let after = crate::common::status(&sim);
    let workers = after
        .types
        .iter()
        .find(|t| t.node_type == NodeType::Worker)
        .expect("workers");
    assert_eq!(workers.created_since_settings, vec!["w-4"], "{after:?}");
    assert_eq!(
        after.workernodesoutofdate, 4,
        "the new worker is out of date too"
    );
    // The next plan rolls it with the others.
    let mut ports = sim.ports();
    let plan = cks_rollout::engine::plan_update(&mut ports.ports(), &sim.cluster_id(), &req)
        .expect("plan");
    let planned: Vec<String> = plan
        .phases
        .iter()
        .flat_map(|p| {
            p.batches
                .iter()
                .flat_map(|b| b.nodes.iter().map(|n| n.node.clone()))
        })
        .collect();
    assert!(planned.contains(&"w-4".to_string()), "{planned:?}");
}

#[test]
fn a_closed_stdout_ends_a_simulate_plan_quietly_with_status_0() {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_cks-rollout"))
        .args(["simulate", "--cluster", &example(), "plan"])
        .args(["--offering", "worker=large"])
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .expect("cks-rollout runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr, "", "no panic, no message");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}
