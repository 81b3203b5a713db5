//! Offerings made Inactive (from 4.19 the offering lists hide them unless asked): the
//! CloudStack port still lists the one the nodes run on, marked inactive, so the rollout sees
//! every node's offering; the engine moves nodes off an Inactive offering, counts them in the
//! cluster's capacity, and refuses an Inactive offering as a target before any node is touched.

use cks_fixtures::cloudstack_api::{CloudStackFake, CloudWorld};
use cks_rollout::adapters::cloudstack::{
    CloudStackClient, CloudStackCloud, CloudStackConfig, Secret,
};
use cks_rollout::engine::NoProgress;
use cks_rollout::ports::Cloud;
use cks_rollout::sim::Simulation;
use serde_json::Value;

use crate::common::{cfg, cluster, offerings, report, run_ok};

#[test]
fn the_port_lists_the_inactive_offerings_the_fake_hides_by_default() {
    let world = CloudWorld::new("inactive-key", "inactive-secret");
    let old = world.add_service_offering("old", 2, 4096);
    let new = world.add_service_offering("new", 4, 8192);
    let old_disk = world.add_disk_offering("old-disk", 0);
    world.deactivate_offering(&old);
    world.deactivate_offering(&old_disk);
    let api = CloudStackFake::start(world.clone()).expect("CloudStack fake");
    let client = CloudStackClient::new(CloudStackConfig::new(
        api.endpoint(),
        Secret::new("inactive-key"),
        Secret::new("inactive-secret"),
    ))
    .expect("client");
    let plain: Vec<Value> = client
        .list("listServiceOfferings", "serviceoffering", &[])
        .expect("listServiceOfferings");
    assert_eq!(plain.len(), 1, "the fake shows only Active ones: {plain:?}");

    let mut port = CloudStackCloud::new(client);
    let listed = port.list_service_offerings().expect("offerings");
    let flags: Vec<(&str, bool)> = listed.iter().map(|o| (o.id.as_str(), o.inactive)).collect();
    assert_eq!(flags, [(old.as_str(), true), (new.as_str(), false)]);
    let disks = port.list_disk_offerings().expect("disk offerings");
    assert!(disks.iter().any(|d| d.id == old_disk), "{disks:?}");
}

#[test]
fn nodes_on_an_inactive_offering_move_off_it_and_count_in_the_capacity() {
    let mut spec = cluster(3, 0, 3);
    spec.offerings
        .iter_mut()
        .filter(|o| o.id == "small")
        .for_each(|o| o.inactive = true);
    let sim = Simulation::new(&spec, 1).expect("simulable");
    let run = run_ok(&sim, &offerings(&[("worker", "medium")]));
    let report = report(&run);
    assert_eq!(report.run.done.len(), 3, "{}", run.failure_report());
    let release = report.release.as_ref().expect("release ran");
    // 3 control nodes still on the inactive small (2 CPU), 3 workers on medium (4 CPU).
    assert_eq!(release.cores, 3 * 2 + 3 * 4);
}

#[test]
fn an_inactive_target_offering_is_refused_naming_it() {
    let mut spec = cluster(3, 0, 3);
    spec.offerings
        .iter_mut()
        .filter(|o| o.id == "large")
        .for_each(|o| o.inactive = true);
    let sim = Simulation::new(&spec, 1).expect("simulable");
    let err = sim
        .update(&offerings(&[("worker", "large")]), &cfg(), &mut NoProgress)
        .expect_err("refused");
    assert_eq!(err.parameter(), Some("nodeofferings"));
    assert!(err.to_string().contains("Inactive"), "{err}");
    assert!(
        !sim.world().trace.join("\n").contains("stop_vm"),
        "no node was touched"
    );
}
