//! `--window`: a batch starts only inside a maintenance window; outside, the rollout stops
//! cleanly between batches and a later run resumes it, or with `--wait-for-window` it waits
//! (the lease renewed). Windows are read in the system's tz database, DST included.

use crate::common::{cfg, cluster, offerings, report};
use cks_rollout::engine::window::Window;
use cks_rollout::engine::{EngineConfig, EngineError, StepKind};
use cks_rollout::model::ClusterState;
use cks_rollout::sim::{Fault, GateSpec, Simulation};
use std::time::Duration;

const SEED: u64 = 1;
const BERLIN: &str = "Mon-Fri 22:00-05:00 Europe/Berlin";

/// Wall time of an RFC 3339 text.
fn at(text: &str) -> Duration {
    let ts: jiff::Timestamp = text.parse().expect("RFC 3339");
    Duration::from_millis(ts.as_millisecond() as u64)
}

fn windowed(wait: bool) -> EngineConfig {
    EngineConfig {
        windows: vec![Window::parse(BERLIN).expect("window parses")],
        wait_for_window: wait,
        ..cfg()
    }
}

#[test]
fn a_window_is_open_on_its_days_and_past_midnight_into_the_next() {
    let w = Window::parse(BERLIN).expect("parses");
    // Tuesday 2026-12-08, Berlin is UTC+1 in winter.
    assert!(w.is_open(at("2026-12-08T04:59:00+01:00")));
    assert!(!w.is_open(at("2026-12-08T05:00:00+01:00")));
    assert!(!w.is_open(at("2026-12-08T21:59:00+01:00")));
    assert!(w.is_open(at("2026-12-08T22:00:00+01:00")));
    // Friday night runs into Saturday morning; Saturday night is closed; Monday morning is the
    // end of Sunday's (absent) window, so closed.
    assert!(w.is_open(at("2026-12-12T03:00:00+01:00")));
    assert!(!w.is_open(at("2026-12-12T23:00:00+01:00")));
    assert!(!w.is_open(at("2026-12-14T03:00:00+01:00")));
    assert_eq!(
        w.next_open(at("2026-12-12T06:00:00+01:00")),
        Some(at("2026-12-14T22:00:00+01:00"))
    );
    // Summer time: the same local hours are UTC+2.
    assert!(w.is_open(at("2026-07-07T22:30:00+02:00")));
    assert!(!w.is_open(at("2026-07-07T21:30:00+02:00")));
    let utc = Window::parse("daily 00:00-24:00 UTC").expect("parses");
    assert!(utc.is_open(at("2026-03-29T12:00:00Z")));
}

#[test]
fn a_window_that_opens_in_a_dst_gap_opens_at_the_shifted_hour() {
    // Europe/Berlin skips 02:00-03:00 on 2026-03-29 (a Sunday).
    let w = Window::parse("Sun 02:30-04:00 Europe/Berlin").expect("parses");
    let next = w
        .next_open(at("2026-03-29T00:00:00+01:00"))
        .expect("it opens");
    assert_eq!(next, at("2026-03-29T03:30:00+02:00"));
    assert!(w.is_open(at("2026-03-29T03:45:00+02:00")));
}

#[test]
fn bad_window_specs_are_refused_naming_what_is_wrong() {
    for (spec, says) in [
        (
            "Mon-Fri 22:00-05:00 Mars/Olympus",
            "not in the system's tz database",
        ),
        ("Mon-Fry 22:00-05:00 UTC", "are not days of the week"),
        ("Mon-Fri 25:00-05:00 UTC", "is not a time HH:MM"),
        ("Mon-Fri 22:00 UTC", "is not HH:MM-HH:MM"),
        (
            "Mon-Fri 22:00-22:00 UTC",
            "opens and closes at the same time",
        ),
        ("22:00-05:00 UTC", "it has not three parts"),
        // Two digits each, the hour below 24 and the minute below 60; 24:00 only as an end.
        ("Mon 5:00-06:00 UTC", "\"5:00\" is not a time HH:MM"),
        ("Mon 05:0-06:00 UTC", "\"05:0\" is not a time HH:MM"),
        ("Mon 24:00-05:00 UTC", "\"24:00\" is not a time HH:MM"),
        ("Mon 23:60-05:00 UTC", "\"23:60\" is not a time HH:MM"),
        ("Mon 22:00-24:01 UTC", "\"24:01\" is not a time HH:MM"),
        ("Mon 22:00-24:60 UTC", "\"24:60\" is not a time HH:MM"),
    ] {
        let e = Window::parse(spec).expect_err(spec).to_string();
        assert!(e.contains(says), "{spec}: {e}");
        assert!(e.contains("expected DAYS HH:MM-HH:MM ZONE"), "{e}");
    }
}

/// A window is open from its start minute up to its end minute, not at it; the last minute of
/// the day opens one, and 24:00 closes one at midnight.
#[test]
fn a_window_is_open_from_its_start_until_its_end_minute() {
    let day = Window::parse("daily 09:00-17:00 UTC").expect("a day window");
    assert!(!day.is_open(at("2026-03-02T08:59:59Z")));
    assert!(day.is_open(at("2026-03-02T09:00:00Z")));
    assert!(day.is_open(at("2026-03-02T16:59:59Z")));
    assert!(!day.is_open(at("2026-03-02T17:00:00Z")));
    let last = Window::parse("daily 23:59-24:00 UTC").expect("the day's last minute");
    assert!(last.is_open(at("2026-03-02T23:59:30Z")));
    assert!(!last.is_open(at("2026-03-03T00:00:00Z")));
    assert!(!last.is_open(at("2026-03-02T23:58:59Z")));
}

/// A window kept in a rollout's settings reads back as the same window; another spec is
/// another window.
#[test]
fn a_window_read_back_is_the_same_window_and_another_spec_is_not() {
    let kept = Window::parse(BERLIN).expect("window parses");
    let text = serde_json::to_string(&kept).expect("serialises");
    assert_eq!(text, format!("{BERLIN:?}"));
    let read: Window = serde_json::from_str(&text).expect("reads back");
    assert_eq!(read, kept);
    let other = Window::parse("Mon-Fri 22:00-06:00 Europe/Berlin").expect("window parses");
    assert_ne!(other, kept);
}

fn berlin_cluster(start: &str) -> cks_rollout::sim::ClusterSpec {
    let mut spec = cluster(3, 0, 4);
    spec.clock_start = Some(start.into());
    spec
}

#[test]
fn a_window_closing_mid_rollout_stops_between_batches_and_a_run_in_the_next_resumes() {
    let sim =
        Simulation::new(&berlin_cluster("2026-12-08T04:56:00+01:00"), SEED).expect("simulable");
    let req = offerings(&[("worker", "medium")]);
    let run = sim.run(&req, &windowed(false));
    assert!(run.violation.is_none(), "{}", run.failure_report());
    let first = sim.restarts();
    assert!((1..4).contains(&first), "{first} of 4 before the close");
    match &report(&run).run.error {
        Some(EngineError::WindowClosed { next, windows, .. }) => {
            assert_eq!(next, "2026-12-08T21:00:00Z");
            assert_eq!(windows, BERLIN, "the error names the window");
        }
        other => panic!("expected the window to close: {other:?}"),
    }
    {
        let w = sim.world();
        assert_eq!(w.record.state, ClusterState::Running, "nothing is down");
        assert!(
            w.record
                .last_error
                .as_deref()
                .is_some_and(|e| e.contains("the maintenance window closed")),
            "{:?}",
            w.record.last_error
        );
        assert!(
            w.vms
                .values()
                .all(|v| v.node.as_ref().is_none_or(|n| !n.unschedulable))
        );
    }
    // A run outside the window does nothing.
    sim.world_mut().advance(Duration::from_secs(3600));
    let idle = sim.run(&req, &windowed(false));
    assert!(idle.violation.is_none(), "{}", idle.failure_report());
    assert_eq!(sim.restarts(), first);
    // Inside the next window, it resumes where it stopped.
    let now = sim.world().epoch + sim.world().now;
    sim.world_mut()
        .advance(at("2026-12-08T22:10:00+01:00") - now);
    let resumed = sim.run(&req, &windowed(false));
    assert!(resumed.violation.is_none(), "{}", resumed.failure_report());
    assert!(
        report(&resumed).run.error.is_none(),
        "{}",
        resumed.failure_report()
    );
    assert_eq!(sim.restarts(), 4, "each worker restarted once");
    assert_eq!(sim.world().record.state, ClusterState::Running);
}

#[test]
fn waiting_for_the_window_keeps_the_lease_against_a_second_engine() {
    let spec = berlin_cluster("2026-12-08T20:00:00+01:00");
    let req = offerings(&[("worker", "medium")]);
    let clean = Simulation::new(&spec, SEED).expect("simulable");
    let run = clean.run(&req, &windowed(true));
    let r = report(&run);
    assert!(r.run.error.is_none(), "{}", run.failure_report());
    let waited = r
        .events
        .iter()
        .find(|e| e.step == StepKind::Window)
        .expect("it waited");
    assert!(
        waited.detail.contains("waiting until 2026-12-08T21:00:00Z"),
        "{}",
        waited.detail
    );
    let first_stop = r
        .events
        .iter()
        .find(|e| e.step == StepKind::Stop)
        .expect("a node was stopped");
    assert!(
        first_stop.at_ms >= 2 * 3600 * 1000,
        "no node went down before 22:00"
    );
    // A second engine an hour into the wait finds the lease held and leaves the cluster alone.
    let step = clean
        .world()
        .trace
        .iter()
        .filter_map(|l| {
            let (n, rest) = l.strip_prefix('#')?.split_once(' ')?;
            let t: u64 = rest.strip_prefix("t=")?.split('s').next()?.parse().ok()?;
            (t >= 3600).then(|| n.parse::<u64>().ok()).flatten()
        })
        .next()
        .expect("the wait lasted an hour");
    let mut spec = spec.clone();
    spec.faults.push(Fault::SecondEngine { at_step: step });
    let sim = Simulation::new(&spec, SEED).expect("simulable");
    let run = sim.run(&req, &windowed(true));
    assert!(run.violation.is_none(), "{}", run.failure_report());
    let r = report(&run);
    assert!(
        r.run.error.is_none() && !r.run.lost_lease,
        "{}",
        run.failure_report()
    );
    assert_eq!(sim.restarts(), 4);
}

/// Wall time of a simulated event.
fn wall_of(e: &cks_rollout::engine::Event) -> Duration {
    Duration::from_millis(e.wall_ms)
}

/// A 25-minute gate before batch 2, in a window that closes at 05:00 Berlin time while it runs.
fn slow_gate_at_the_close() -> (cks_rollout::sim::ClusterSpec, EngineConfig) {
    let mut spec = berlin_cluster("2026-12-08T04:40:00+01:00");
    spec.gates.push(GateSpec {
        batch: 2,
        command: Some("slo".into()),
        exit: 0,
        output: "ok".into(),
        seconds: 25 * 60,
    });
    let cfg = EngineConfig {
        gates: vec!["./slo".into()],
        gate_timeout: Duration::from_secs(3600),
        ..windowed(false)
    };
    (spec, cfg)
}

#[test]
fn a_gate_that_passes_after_the_window_closed_takes_no_node_down_outside_it() {
    let (spec, cfg) = slow_gate_at_the_close();
    let req = offerings(&[("worker", "medium")]);
    let sim = Simulation::new(&spec, SEED).expect("simulable");
    let run = sim.run(&req, &cfg);
    assert!(run.violation.is_none(), "{}", run.failure_report());
    let r = report(&run);
    match &r.run.error {
        Some(EngineError::WindowClosed { batch: 2, .. }) => {}
        other => panic!("expected the window to stop batch 2: {other:?}"),
    }
    let close = at("2026-12-08T05:00:00+01:00");
    let passed = r
        .events
        .iter()
        .find(|e| e.step == StepKind::Gate && e.batch == Some(2))
        .expect("the gate of batch 2 passed");
    assert!(wall_of(passed) > close, "the gate passed after 05:00");
    assert!(
        r.events
            .iter()
            .filter(|e| e.step == StepKind::Stop)
            .all(|e| wall_of(e) < close),
        "{}",
        run.failure_report()
    );
    assert_eq!(sim.restarts(), 1, "only batch 1 went down");
    let w = sim.world();
    assert_eq!(w.record.state, ClusterState::Running, "nothing is down");
    assert!(
        w.vms
            .values()
            .all(|v| v.node.as_ref().is_none_or(|n| !n.unschedulable)),
        "nothing is left cordoned"
    );
}

#[test]
fn waiting_for_the_window_asks_a_gate_that_passed_after_the_close_again_in_the_next() {
    let (spec, cfg) = slow_gate_at_the_close();
    let cfg = EngineConfig {
        wait_for_window: true,
        ..cfg
    };
    let sim = Simulation::new(&spec, SEED).expect("simulable");
    let run = sim.run(&offerings(&[("worker", "medium")]), &cfg);
    assert!(run.violation.is_none(), "{}", run.failure_report());
    let r = report(&run);
    assert!(r.run.error.is_none(), "{}", run.failure_report());
    assert_eq!(sim.restarts(), 4);
    let asked: Vec<usize> = sim
        .world()
        .gates
        .started
        .iter()
        .map(|(batch, _, _)| *batch)
        .collect();
    assert_eq!(asked, vec![1, 2, 2, 3, 4], "batch 2's gate asked again");
    let reopened = at("2026-12-08T22:00:00+01:00");
    let stops: Vec<Duration> = r
        .events
        .iter()
        .filter(|e| e.step == StepKind::Stop)
        .map(wall_of)
        .collect();
    assert!(stops[0] < at("2026-12-08T05:00:00+01:00"));
    assert!(stops[1..].iter().all(|t| *t >= reopened), "{stops:?}");
}

/// Two workers a batch, the window closing while the first is stopped: the second stays up.
fn closing_within_a_batch(wait: bool) -> (Simulation, cks_rollout::sim::SimRun) {
    let mut spec = berlin_cluster("2026-12-08T04:58:00+01:00");
    spec.jobs.stop = Some(cks_rollout::sim::JobSpan {
        min_s: 240,
        max_s: 240,
    });
    let mut req = offerings(&[("worker", "medium")]);
    req.max_unavailable = Some(2);
    let sim = Simulation::new(&spec, SEED).expect("simulable");
    let run = sim.run(&req, &windowed(wait));
    (sim, run)
}

#[test]
fn a_window_closing_within_a_batch_stops_no_further_node_and_finishes_those_down() {
    let (sim, run) = closing_within_a_batch(false);
    assert!(run.violation.is_none(), "{}", run.failure_report());
    let r = report(&run);
    let stopped: Vec<String> = r
        .events
        .iter()
        .filter(|e| e.step == StepKind::Stop)
        .filter_map(|e| e.node.clone())
        .collect();
    assert_eq!(stopped.len(), 1, "{}", run.failure_report());
    match &r.run.error {
        Some(EngineError::WindowClosed {
            batch: 1, before, ..
        }) => {
            assert!(before.contains("was stopped"), "{before}");
        }
        other => panic!("expected the window to stop batch 1: {other:?}"),
    }
    assert_eq!(r.run.done, stopped, "the node that went down was finished");
    let w = sim.world();
    assert_eq!(w.record.state, ClusterState::Running, "nothing is down");
    assert!(
        w.vms
            .values()
            .all(|v| v.node.as_ref().is_none_or(|n| !n.unschedulable)),
        "the node that stayed up is back in service"
    );
}

#[test]
fn waiting_within_a_batch_stops_its_next_node_in_the_next_window() {
    let (sim, run) = closing_within_a_batch(true);
    assert!(run.violation.is_none(), "{}", run.failure_report());
    let r = report(&run);
    assert!(r.run.error.is_none(), "{}", run.failure_report());
    assert_eq!(sim.restarts(), 4);
    let stops: Vec<Duration> = r
        .events
        .iter()
        .filter(|e| e.step == StepKind::Stop)
        .map(wall_of)
        .collect();
    // A stop's event comes once its 4-minute job is done.
    assert!(stops[0] < at("2026-12-08T05:04:00+01:00"), "{stops:?}");
    assert!(
        stops[1..]
            .iter()
            .all(|t| *t >= at("2026-12-08T22:00:00+01:00")),
        "{stops:?}"
    );
}

#[test]
fn gates_that_outlast_the_window_twice_stop_a_waiting_rollout_with_no_node_down() {
    let mut spec = cluster(3, 0, 2);
    spec.clock_start = Some("2026-12-08T01:05:00Z".into());
    spec.gates.push(GateSpec {
        batch: 1,
        command: None,
        exit: 0,
        output: "ok".into(),
        seconds: 30 * 60,
    });
    let cfg = EngineConfig {
        windows: vec![Window::parse("daily 01:00-01:10 UTC").expect("parses")],
        wait_for_window: true,
        gates: vec!["./slo".into()],
        gate_timeout: Duration::from_secs(3600),
        ..cfg()
    };
    let sim = Simulation::new(&spec, SEED).expect("simulable");
    let run = sim.run(&offerings(&[("worker", "medium")]), &cfg);
    assert!(run.violation.is_none(), "{}", run.failure_report());
    match &report(&run).run.error {
        Some(
            e @ EngineError::GatesOutlastWindow {
                batch: 1, times: 2, ..
            },
        ) => {
            assert!(
                e.to_string().contains("longer than a window is open"),
                "{e}"
            );
            assert!(
                e.to_string().contains("daily 01:00-01:10 UTC"),
                "names the window: {e}"
            );
        }
        other => panic!("expected the gates to outlast the window: {other:?}"),
    }
    assert_eq!(sim.restarts(), 0);
    assert_eq!(sim.world().gates.started.len(), 2, "asked in two windows");
    assert_eq!(sim.world().record.state, ClusterState::Running);
}
