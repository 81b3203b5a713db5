//! Each end-of-run and cross-run invariant is shown to catch a deliberate breakage: a real
//! recorded run, broken in the one way its rule forbids, is fed to the checker, which must name
//! the broken rule (and the nodes, where there are some).

use crate::common::{cfg, cluster, offerings, run_ok};
use cks_rollout::adapters::store::{RecordStore, SqliteStore, StoreError};
use cks_rollout::engine::{Event, NoProgress, Progress, StepKind, UpdateOutcome, UpdateRequest};
use cks_rollout::model::{ClusterRecord, ClusterState, Endpoint, Lease, TypeSettings};
use cks_rollout::ports::{PortResult, Store};
use cks_rollout::sim::{
    ClusterSpec, Fault, JobSpan, PdbSpec, PodSpec, SimHandle, SimPorts, Simulation, check_cancels,
    check_end,
};
use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

fn worker_update() -> UpdateRequest {
    offerings(&[("worker", "medium")])
}

/// A cluster whose rollout stops on a drain a budget blocks, with no node down: it ends Running.
fn blocked_drain() -> ClusterSpec {
    let mut spec = cluster(3, 0, 3);
    spec.pods.push(PodSpec {
        app: "web".into(),
        namespace: "default".into(),
        replicas: 3,
        daemonset: false,
    });
    spec.pdbs.push(PdbSpec {
        name: "web-pdb".into(),
        namespace: "default".into(),
        app: "web".into(),
        min_available: 1,
    });
    spec.faults.push(Fault::PdbBlocks {
        pdb: "web-pdb".into(),
        times: 1000,
    });
    spec
}

/// A broken engine: it uncordons `node` as soon as its VM was started again, before the new
/// boot (the step a real engine takes only once Ready with a new boot ID).
struct UncordonAtStart {
    ports: SimPorts,
    node: &'static str,
    done: bool,
}

impl Progress for UncordonAtStart {
    fn on_event(&mut self, e: &Event) {
        if !self.done && e.step == StepKind::StartVm && e.node.as_deref() == Some(self.node) {
            self.done = true;
            let _ = self
                .ports
                .ports()
                .kube
                .set_unschedulable(&Endpoint::Cluster, self.node, false);
        }
    }
}

#[test]
fn an_uncordon_with_no_new_boot_id_is_named_by_the_checker() {
    let sim = Simulation::new(&cluster(3, 0, 3), 5).expect("simulable");
    let mut broken = UncordonAtStart {
        ports: sim.ports(),
        node: "w-1",
        done: false,
    };
    let run = sim.run_with(&worker_update(), &cfg(), &mut broken);
    assert!(broken.done, "w-1 was started again");
    let v = run.violation.expect("the checker fires");
    assert_eq!(v.invariant, "no-uncordon-without-new-boot-id", "{v}");
    assert_eq!(v.nodes, vec!["w-1".to_string()], "{v}");
    // The same run without the broken step keeps the rule.
    let clean = Simulation::new(&cluster(3, 0, 3), 5).expect("simulable");
    run_ok(&clean, &worker_update());
}

#[test]
fn a_later_cancel_that_restarted_fewer_nodes_is_named_by_the_checker() {
    let spec = cluster(3, 0, 4);
    let req = worker_update();
    let steps: Vec<u64> = (20..=200).step_by(30).collect();
    let seen = Simulation::cancel_sweep(&spec, &req, &cfg(), 6, &steps)
        .unwrap_or_else(|(v, seen)| panic!("{v}: {seen:?}"));
    assert!(check_cancels(&seen).is_none());
    let (first, last) = (seen[0], seen[seen.len() - 1]);
    assert!(
        first.1 < last.1,
        "the sweep restarts more nodes for a later cancel: {seen:?}"
    );
    // The recorded restarts with the earliest and the latest cancel's counts swapped.
    let mut broken = seen.clone();
    broken[0].1 = last.1;
    let n = broken.len() - 1;
    broken[n].1 = first.1;
    let v = check_cancels(&broken).expect("the checker fires");
    assert_eq!(v.invariant, "cancel-earlier-restarts-no-more", "{v}");
}

#[test]
fn a_healthy_end_recorded_as_alert_is_named_by_the_checker() {
    let sim = Simulation::new(&blocked_drain(), 2).expect("simulable");
    let run = run_ok(&sim, &worker_update());
    let mut w = sim.world_mut();
    assert_eq!(
        w.record.state,
        ClusterState::Running,
        "{}",
        run.failure_report()
    );
    assert!(check_end(&w, true, false).is_none());
    w.record.state = ClusterState::Alert;
    let v = check_end(&w, true, false).expect("the checker fires");
    assert_eq!(v.invariant, "healthy-end-is-running", "{v}");
}

#[test]
fn a_release_that_left_the_cluster_updating_is_named_by_the_checker() {
    let sim = Simulation::new(&blocked_drain(), 2).expect("simulable");
    run_ok(&sim, &worker_update());
    let mut w = sim.world_mut();
    assert!(check_end(&w, true, false).is_none());
    w.record.state = ClusterState::Updating;
    let v = check_end(&w, true, false).expect("the checker fires");
    assert_eq!(v.invariant, "release-leaves-updating", "{v}");
}

/// A broken store port: the lease check answers "held" without asking the store (and so never
/// renews the heartbeat either); every other call goes to the simulation's store.
struct NoLeaseCheck(SimHandle);

impl Store for NoLeaseCheck {
    fn load(&mut self, id: &str) -> PortResult<ClusterRecord> {
        self.0.load(id)
    }
    fn compare_and_set_state(
        &mut self,
        id: &str,
        expected: ClusterState,
        new: ClusterState,
        lease: Option<&Lease>,
    ) -> PortResult<bool> {
        self.0.compare_and_set_state(id, expected, new, lease)
    }
    fn save_settings(
        &mut self,
        id: &str,
        expected: ClusterState,
        settings: &TypeSettings,
    ) -> PortResult<bool> {
        self.0.save_settings(id, expected, settings)
    }
    fn renew_lease(&mut self, id: &str, lease: &Lease) -> PortResult<bool> {
        self.0.renew_lease(id, lease)
    }
    fn hold_lease(&mut self, _: &str, _: &mut Lease, _: Duration) -> PortResult<bool> {
        Ok(true)
    }
    fn end_rollout(
        &mut self,
        id: &str,
        lease: &Lease,
        timeout: Duration,
        new: ClusterState,
    ) -> PortResult<bool> {
        self.0.end_rollout(id, lease, timeout, new)
    }
    fn expire_lease(
        &mut self,
        id: &str,
        seen: Option<&Lease>,
        timeout: Duration,
    ) -> PortResult<bool> {
        self.0.expire_lease(id, seen, timeout)
    }
    fn begin_rollout(
        &mut self,
        id: &str,
        expected: ClusterState,
        lease: &Lease,
        settings: &TypeSettings,
    ) -> PortResult<bool> {
        self.0.begin_rollout(id, expected, lease, settings)
    }
    fn request_cancel(&mut self, id: &str) -> PortResult<bool> {
        self.0.request_cancel(id)
    }
    fn set_cancel(&mut self, id: &str, cancel: bool) -> PortResult<()> {
        self.0.set_cancel(id, cancel)
    }
    fn set_last_error(&mut self, id: &str, error: Option<&str>) -> PortResult<()> {
        self.0.set_last_error(id, error)
    }
    fn set_capacity(&mut self, id: &str, cores: u64, memory_mb: u64) -> PortResult<()> {
        self.0.set_capacity(id, cores, memory_mb)
    }
}

/// The update call of `sim` with the lease check disabled.
fn without_lease_check(sim: &Simulation, req: &UpdateRequest) {
    sim.prepare(req, &cfg());
    let mut ports = sim.ports();
    let mut broken = NoLeaseCheck(ports.store());
    let outcome = cks_rollout::engine::update(
        &mut ports.ports_with_store(&mut broken),
        &sim.cluster_id(),
        req,
        &cfg(),
        &mut NoProgress,
    );
    sim.finish(&outcome);
}

#[test]
fn an_engine_acting_without_its_lease_checked_is_named_by_the_checker() {
    // A 20-minute stop: with no lease check there is no renewal either, so the scanner of a
    // second engine finds the lease expired, takes the cluster and rolls it out.
    let mut spec = cluster(3, 0, 3);
    spec.jobs.stop = Some(JobSpan {
        min_s: 1200,
        max_s: 1200,
    });
    let req = worker_update();
    let probe = Simulation::new(&spec, 6).expect("simulable");
    without_lease_check(&probe, &req);
    let at_step = probe
        .world()
        .trace
        .iter()
        .filter(|l| l.contains("cloud.job_status"))
        .nth(300)
        .and_then(|l| l.trim_start_matches('#').split(' ').next()?.parse().ok())
        .expect("the first stop is polled for ten minutes");
    spec.faults.push(Fault::SecondEngine { at_step });
    let sim = Simulation::new(&spec, 6).expect("simulable");
    without_lease_check(&sim, &req);
    let w = sim.world();
    let v = w.violation.clone().expect("the checker fires");
    assert_eq!(v.invariant, "one-engine-at-a-time", "{v}");
    assert!(
        w.trace
            .iter()
            .any(|l| l.contains("second engine done: scan Ok(MovedToAlert")),
        "{}",
        w.trace.join("\n")
    );
    drop(w);
    // The same schedule with the lease checked keeps the rule: the second engine finds the
    // owner alive and takes nothing.
    let clean = Simulation::new(&spec, 6).expect("simulable");
    let run = clean.run(&req, &cfg());
    assert!(run.violation.is_none(), "{}", run.failure_report());
}

/// A real SQLite store whose clock the test steps forward (as a database server's clock can
/// be), and which, broken, reports every change as made whatever the store's rules decided:
/// every compare-and-set "wins".
#[derive(Debug)]
struct SteppedClock {
    store: SqliteStore,
    ahead_ms: Rc<Cell<u64>>,
    every_change_wins: bool,
}

impl RecordStore for SteppedClock {
    fn record(&mut self, id: &str) -> Result<ClusterRecord, StoreError> {
        self.store.record(id)
    }

    fn change(
        &mut self,
        id: &str,
        change: &mut dyn FnMut(&mut ClusterRecord, u64) -> bool,
    ) -> Result<bool, StoreError> {
        let ahead = self.ahead_ms.get();
        let made = self
            .store
            .change(id, &mut |r, now_ms| change(r, now_ms + ahead))?;
        Ok(made || self.every_change_wins)
    }
}

/// Steps the store's clock past the lease timeout once the rollout has started.
struct StepAtStart(Rc<Cell<u64>>);

impl Progress for StepAtStart {
    fn on_event(&mut self, e: &Event) {
        if e.step == StepKind::Start {
            self.0.set(cfg().lease_timeout.as_millis() as u64 + 1_000);
        }
    }
}

/// A run of `spec` on a fresh SQLite store whose clock steps past the lease timeout as the
/// rollout starts; `every_change_wins` breaks the store.
fn stepped_run(spec: &ClusterSpec, every_change_wins: bool) -> cks_rollout::sim::SimRun {
    let dir = tempfile::tempdir().expect("temp dir");
    let sim = Simulation::new(spec, 4).expect("simulable");
    let mut store = SqliteStore::open(&dir.path().join("clusters.db")).expect("the store opens");
    store
        .put(&sim.world().record)
        .expect("the record is written");
    let ahead_ms = Rc::new(Cell::new(0));
    let sim = sim.backed_by(Box::new(SteppedClock {
        store,
        ahead_ms: ahead_ms.clone(),
        every_change_wins,
    }));
    sim.run_with(&worker_update(), &cfg(), &mut StepAtStart(ahead_ms))
}

#[test]
fn a_storage_whose_compare_and_set_always_wins_is_named_by_the_checker() {
    // The store's clock steps past the lease timeout as the rollout starts, and a second engine
    // starts after the first cordon: its scanner rightly takes the cluster over. The store's
    // rules tell the first engine its lease is lost; the broken storage says it still holds
    // it, so both engines act on the cluster.
    let mut spec = cluster(3, 0, 3);
    let probe = Simulation::new(&spec, 4).expect("simulable");
    run_ok(&probe, &worker_update());
    let at_step = probe
        .world()
        .trace
        .iter()
        .find(|l| l.contains("kube.set_unschedulable"))
        .and_then(|l| l.trim_start_matches('#').split(' ').next()?.parse().ok())
        .expect("the rollout cordons a node");
    spec.faults.push(Fault::SecondEngine { at_step });

    let run = stepped_run(&spec, true);
    let v = run.violation.clone().expect("the checker fires");
    assert_eq!(
        v.invariant,
        "one-engine-at-a-time",
        "{}",
        run.failure_report()
    );

    // On the storage as it is, the first engine stops at its first lease check.
    let run = stepped_run(&spec, false);
    assert!(run.violation.is_none(), "{}", run.failure_report());
    assert!(
        matches!(&run.outcome, Ok(UpdateOutcome::RolledOut(r)) if r.run.lost_lease),
        "{}",
        run.failure_report()
    );
}

#[test]
fn the_simulated_store_answers_by_the_store_rules() {
    // The world's record is a store under the same rules as SQLite: the same calls, in the same
    // order, give the same answers and the same record on both.
    let sim = Simulation::new(&cluster(3, 0, 3), 1).expect("simulable");
    let id = sim.cluster_id();
    let dir = tempfile::tempdir().expect("temp dir");
    let mut sqlite = SqliteStore::open(&dir.path().join("clusters.db")).expect("the store opens");
    sqlite
        .put(&sim.world().record)
        .expect("the record is written");
    let mine = Lease {
        owner: "a".into(),
        heartbeat_ms: 0,
    };
    let theirs = Lease {
        owner: "b".into(),
        heartbeat_ms: 0,
    };
    let settings = sim.world().record.settings.clone();
    let t = Duration::from_secs(600);
    type Call<'a> = Box<dyn Fn(&mut dyn Store) -> PortResult<bool> + 'a>;
    let calls: Vec<(&str, Call)> = vec![
        (
            "cancel with no rollout",
            Box::new(|s| s.request_cancel(&id)),
        ),
        (
            "begin from Updating",
            Box::new(|s| s.begin_rollout(&id, ClusterState::Updating, &mine, &settings)),
        ),
        (
            "settings when not Updating",
            Box::new(|s| s.save_settings(&id, ClusterState::Updating, &settings)),
        ),
        (
            "begin",
            Box::new(|s| s.begin_rollout(&id, ClusterState::Running, &mine, &settings)),
        ),
        (
            "begin again",
            Box::new(|s| s.begin_rollout(&id, ClusterState::Running, &theirs, &settings)),
        ),
        ("renew not ours", Box::new(|s| s.renew_lease(&id, &theirs))),
        ("cancel", Box::new(|s| s.request_cancel(&id))),
        (
            "expire a fresh lease seen as another",
            Box::new(|s| s.expire_lease(&id, Some(&theirs), t)),
        ),
        (
            "end not ours",
            Box::new(|s| s.end_rollout(&id, &theirs, t, ClusterState::Running)),
        ),
        (
            "cas from Running",
            Box::new(|s| {
                s.compare_and_set_state(&id, ClusterState::Running, ClusterState::Alert, None)
            }),
        ),
        (
            "cas from Updating",
            Box::new(|s| {
                s.compare_and_set_state(&id, ClusterState::Updating, ClusterState::Alert, None)
            }),
        ),
        (
            "settings in Alert",
            Box::new(|s| s.save_settings(&id, ClusterState::Alert, &settings)),
        ),
    ];
    let mut simulated = sim.ports().store();
    for (what, call) in &calls {
        let a = call(&mut simulated).expect("the simulated store answers");
        let b = call(&mut sqlite).expect("SQLite answers");
        assert_eq!(a, b, "{what}");
        let (a, b) = (sim.world().record.clone(), sqlite.get(&id).expect("record"));
        assert_eq!(
            (a.state, a.cancel, a.lease.map(|l| l.owner)),
            (b.state, b.cancel, b.lease.map(|l| l.owner)),
            "{what}"
        );
    }
}

/// A broken engine rule: the engine reads the wall clock once, so the window it checks stays as
/// it was when the rollout began (the world's own time runs on).
struct WallFrozenAtStart {
    clock: SimHandle,
    wall: Duration,
}

impl cks_rollout::ports::Clock for WallFrozenAtStart {
    fn now(&self) -> Duration {
        self.clock.now()
    }

    fn wall(&self) -> Duration {
        self.wall
    }

    fn sleep(&mut self, d: Duration) {
        self.clock.sleep(d);
    }
}

#[test]
fn a_node_stopped_after_the_window_closed_is_named_by_the_checker() {
    use cks_rollout::engine::EngineConfig;
    use cks_rollout::engine::window::Window;
    use cks_rollout::ports::Clock;
    // The window closes at 05:00 Berlin time while the rollout of four workers runs.
    let mut spec = cluster(3, 0, 4);
    spec.clock_start = Some("2026-12-08T04:58:00+01:00".into());
    let cfg = EngineConfig {
        windows: vec![Window::parse("Mon-Fri 22:00-05:00 Europe/Berlin").expect("parses")],
        ..cfg()
    };
    let req = worker_update();
    let sim = Simulation::new(&spec, 3).expect("simulable");
    sim.prepare(&req, &cfg);
    let mut ports = sim.ports();
    let mut broken = WallFrozenAtStart {
        clock: ports.clock(),
        wall: ports.clock().wall(),
    };
    let outcome = cks_rollout::engine::update(
        &mut ports.ports_with_clock(&mut broken),
        &sim.cluster_id(),
        &req,
        &cfg,
        &mut NoProgress,
    );
    sim.finish(&outcome);
    let v = sim.world().violation.clone().expect("the checker fires");
    assert_eq!(v.invariant, "stop-inside-window", "{v}");
    assert_eq!(v.nodes.len(), 1, "{v}");
    // The same rollout on the world's clock stops between batches once the window closed.
    let clean = Simulation::new(&spec, 3).expect("simulable");
    let run = clean.run(&req, &cfg);
    assert!(run.violation.is_none(), "{}", run.failure_report());
    assert!(clean.restarts() < 4, "{}", run.failure_report());
}
