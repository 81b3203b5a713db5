//! `--window`: a batch starts only inside a maintenance window; outside, the rollout stops
//! cleanly between batches and a later run resumes it, or with `--wait-for-window` it waits
//! (the lease renewed). Windows are read in the system's tz database, DST included.

use crate::common::{cfg, cluster, offerings, report};
use cks_rollout::engine::window::Window;
use cks_rollout::engine::{EngineConfig, EngineError, StepKind};
use cks_rollout::model::ClusterState;
use cks_rollout::sim::{Fault, Simulation};
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
    ] {
        let e = Window::parse(spec).expect_err(spec).to_string();
        assert!(e.contains(says), "{spec}: {e}");
        assert!(e.contains("expected DAYS HH:MM-HH:MM ZONE"), "{e}");
    }
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
        Some(EngineError::WindowClosed { next, .. }) => {
            assert_eq!(next, "2026-12-08T21:00:00Z");
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
