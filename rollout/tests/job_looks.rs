//! The looks at a running CloudStack job: one whose answer did not get through is tried again
//! and the job goes on; any other error ends the job with it (a stop then judged by the VM read
//! again).

use crate::common::{cluster, offerings, report, run_ok};
use cks_rollout::engine::StepKind;
use cks_rollout::model::ClusterState;
use cks_rollout::sim::{Fault, JobSpan, Simulation};

/// What the first stop of a rollout of the workers said, when the first `times` looks at a job
/// fail (as unavailable or not).
fn first_stop(times: u32, unavailable: bool) -> String {
    let mut spec = cluster(3, 0, 3);
    // Stops take a minute: the engine looks at each job while it runs.
    spec.jobs.stop = Some(JobSpan {
        min_s: 60,
        max_s: 60,
    });
    spec.faults.push(Fault::JobLookFails { times, unavailable });
    let sim = Simulation::new(&spec, 2).expect("simulable");
    let run = run_ok(&sim, &offerings(&[("worker", "medium")]));
    let r = report(&run);
    assert!(r.run.error.is_none(), "{}", run.failure_report());
    assert_eq!(sim.world().record.state, ClusterState::Running);
    r.events
        .iter()
        .find(|e| e.step == StepKind::Stop)
        .map(|e| e.detail.clone())
        .expect("a stop")
}

#[test]
fn a_look_at_a_job_that_did_not_get_through_is_tried_again() {
    assert_eq!(first_stop(3, true), "stopped");
}

#[test]
fn a_look_at_a_job_that_fails_ends_the_job_with_its_error() {
    let said = first_stop(1, false);
    assert!(
        said.contains("the stop call failed")
            && said.contains("431 the job id is not valid")
            && said.contains("the VM is Stopped"),
        "{said}"
    );
}
