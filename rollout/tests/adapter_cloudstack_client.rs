//! Our CloudStack client against the fake the Python `cs` client validated: signed requests,
//! lists, the full stop/change/grow/regroup/start cycle with the node rebooting, job failures
//! and timeouts, and errors that carry CloudStack's code and text but never the keys.

use std::time::Duration;

use cks_fixtures::cloudstack_api::{CloudStackFake, CloudWorld};
use cks_fixtures::kube_api::KubeWorld;
use cks_rollout::adapters::cloudstack::{
    CloudStackClient, CloudStackConfig, CloudStackError, Secret,
};

struct Setup {
    cloud: CloudWorld,
    kube: KubeWorld,
    api: CloudStackFake,
    big: String,
    anti: String,
    dedicated: String,
}

fn setup() -> Setup {
    let kube = KubeWorld::new();
    let cloud = CloudWorld::new("the-api-key", "the-secret-key");
    cloud.link_kube(kube.clone());
    let small = cloud.add_service_offering("small", 2, 4096);
    let big = cloud.add_service_offering("big", 4, 8192);
    let custom = cloud.add_disk_offering("custom", 0);
    let anti = cloud.add_affinity_group("workers-anti", "host anti-affinity");
    let dedicated = cloud.add_affinity_group("dedicated", "ExplicitDedication");
    for name in ["k1-control-1", "k1-node-1", "k1-node-2", "other-node-1"] {
        kube.add_node(name, 2, 4096);
        cloud.add_vm(name, &small, 20, &custom, std::slice::from_ref(&dedicated));
    }
    let api = CloudStackFake::start(cloud.clone()).expect("fake starts");
    Setup {
        cloud,
        kube,
        api,
        big,
        anti,
        dedicated,
    }
}

fn client(s: &Setup, secret: &str) -> CloudStackClient {
    let mut config = CloudStackConfig::new(
        s.api.endpoint(),
        Secret::new("the-api-key"),
        Secret::new(secret),
    );
    config.poll_interval = Duration::from_millis(10);
    config.job_timeout = Duration::from_secs(5);
    CloudStackClient::new(config).expect("client builds")
}

#[test]
fn lists_the_clusters_vms_volumes_offerings_and_groups() {
    let s = setup();
    let c = client(&s, "the-secret-key");
    let vms = c.list_vms("k1-").expect("listVirtualMachines");
    let names: Vec<&str> = vms.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["k1-control-1", "k1-node-1", "k1-node-2"]);
    assert_eq!(vms[0].cpus, 2);
    assert!(vms[0].affinity_groups[0].is_dedication());
    let root = c.root_volume(&vms[1].id, None).expect("listVolumes");
    assert_eq!(root.size_gb(), 20);
    assert_eq!(c.list_service_offerings().expect("offerings").len(), 2);
    assert!(c.list_disk_offerings().expect("disk offerings")[0].customized);
    assert_eq!(c.list_affinity_groups().expect("groups").len(), 2);
    let again = c.list_vms_by_id(&[vms[2].id.clone()], None).expect("by id");
    assert_eq!(again[0].name, "k1-node-2");
}

#[test]
fn stops_changes_grows_regroups_and_starts_a_vm_whose_node_reboots() {
    let s = setup();
    let c = client(&s, "the-secret-key");
    let vm = s.cloud.vm_named("k1-node-1").expect("vm");
    let boot = s.kube.boot_id("k1-node-1").expect("boot id");

    assert_eq!(c.stop_vm(&vm.id).expect("stop").state, "Stopped");
    assert!(!s.kube.is_ready("k1-node-1"));
    assert_eq!(
        c.change_service_offering(&vm.id, &s.big)
            .expect("change")
            .cpus,
        4
    );
    let root = c.root_volume(&vm.id, None).expect("root");
    assert_eq!(c.resize_volume(&root.id, 40).expect("resize").size_gb(), 40);
    let groups = c
        .update_vm_affinity_groups(&vm.id, &[s.anti.clone(), s.dedicated.clone()])
        .expect("regroup");
    assert_eq!(groups.affinity_groups.len(), 2);
    assert_eq!(c.start_vm(&vm.id).expect("start").state, "Running");

    assert!(s.kube.is_ready("k1-node-1"));
    assert_ne!(s.kube.boot_id("k1-node-1").expect("boot id"), boot);
    assert_eq!(
        s.kube.node("k1-node-1").expect("node")["status"]["capacity"]["memory"],
        "8388608Ki"
    );
    let polls = s
        .cloud
        .calls()
        .iter()
        .filter(|c| c.starts_with("queryasyncjobresult"))
        .count();
    assert!(
        polls >= 8,
        "each of the 4 jobs was polled past its pending answer ({polls})"
    );
}

#[test]
fn api_errors_carry_code_and_text_and_never_the_keys() {
    let s = setup();
    let bad = client(&s, "wrong-secret");
    let err = bad.list_vms("k1-").expect_err("a wrong secret is refused");
    match &err {
        CloudStackError::Api {
            status, code, text, ..
        } => {
            assert_eq!((*status, *code), (401, 401));
            assert!(text.contains("unable to verify"), "{text}");
        }
        other => panic!("expected an API error, got {other:?}"),
    }
    let shown = format!("{err} {err:?} {:?}", bad);
    assert!(
        !shown.contains("wrong-secret") && !shown.contains("the-api-key"),
        "{shown}"
    );

    let c = client(&s, "the-secret-key");
    let vm = s.cloud.vm_named("k1-node-2").expect("vm");
    let err = c
        .change_service_offering(&vm.id, &s.big)
        .expect_err("a running VM is not changed");
    assert!(
        matches!(err, CloudStackError::Api { code: 431, .. }),
        "{err}"
    );
    let root = c.root_volume(&vm.id, None).expect("root");
    let err = c.resize_volume(&root.id, 10).expect_err("no shrinking");
    assert!(err.to_string().contains("shrink"), "{err}");
}

#[test]
fn a_failed_job_and_a_job_past_its_timeout_are_errors() {
    let s = setup();
    let c = client(&s, "the-secret-key");
    let vm = s.cloud.vm_named("k1-node-1").expect("vm");
    s.cloud
        .fail_next("startVirtualMachine", "no capacity on any host");
    c.stop_vm(&vm.id).expect("stop");
    let err = c.start_vm(&vm.id).expect_err("the injected failure");
    match &err {
        CloudStackError::Job { code, text, .. } => {
            assert_eq!(*code, 530);
            assert_eq!(text, "no capacity on any host");
        }
        other => panic!("expected a job error, got {other:?}"),
    }

    s.cloud.lock().job_pending_polls = u32::MAX;
    let mut config = c.config().clone();
    config.job_timeout = Duration::from_millis(200);
    let impatient = CloudStackClient::new(config).expect("client");
    let err = impatient
        .start_vm(&vm.id)
        .expect_err("the job never finishes");
    assert!(matches!(err, CloudStackError::JobTimeout { .. }), "{err}");
}

#[test]
fn scale_changes_a_running_vm_and_refuses_a_stopped_one() {
    let s = setup();
    let c = client(&s, "the-secret-key");
    let vm = s.cloud.vm_named("k1-node-2").expect("vm");
    let result = c.scale_vm(&vm.id, &s.big).expect("scaleVirtualMachine");
    assert_eq!(
        result["virtualmachine"]["serviceofferingid"],
        s.big.as_str()
    );
    assert_eq!(
        s.cloud
            .vm_named("k1-node-2")
            .expect("vm")
            .service_offering_id,
        s.big
    );
    c.stop_vm(&vm.id).expect("stop");
    let err = c
        .scale_vm(&vm.id, &s.big)
        .expect_err("a stopped VM does not scale live");
    assert!(
        matches!(err, CloudStackError::Api { code: 431, .. }),
        "{err}"
    );
}
