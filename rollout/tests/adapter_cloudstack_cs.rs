//! The CloudStack API fake is faithful enough for the real Python `cs` client: signed requests
//! (GET and POST) are accepted and a wrong secret refused, async jobs are polled to their result
//! or failure, and a VM stop/start reboots its node in the linked Kubernetes fake; the injected
//! job faults (a stop that fails after stopping, a slow stop) and the CKS cluster's state and
//! VM list look to `cs` as they would from CloudStack.

use std::process::Output;

use cks_fixtures::cloudstack_api::{CloudStackFake, CloudWorld};
use cks_fixtures::kube_api::KubeWorld;
use serde_json::Value;

use crate::cs_support::{self, ok, text};

struct Setup {
    cloud: CloudWorld,
    kube: KubeWorld,
    api: CloudStackFake,
    vm: String,
    big: String,
    group: String,
}

fn setup() -> Setup {
    let kube = KubeWorld::new();
    kube.add_node("w-1", 2, 4096);
    let cloud = CloudWorld::new("test-api-key", "test-secret");
    cloud.link_kube(kube.clone());
    let small = cloud.add_service_offering("small", 2, 4096);
    let big = cloud.add_service_offering("big", 4, 8192);
    let custom = cloud.add_disk_offering("custom", 0);
    let group = cloud.add_affinity_group("workers-anti", "host anti-affinity");
    let vm = cloud.add_vm("w-1", &small, 20, &custom, &[]);
    let api = CloudStackFake::start(cloud.clone()).expect("fake starts");
    Setup {
        cloud,
        kube,
        api,
        vm,
        big,
        group,
    }
}

fn cs(setup: &Setup, secret: &str, args: &[&str]) -> Output {
    cs_support::cs(&setup.api.endpoint(), "test-api-key", secret, args)
}

#[test]
fn cs_lists_stops_changes_and_starts_a_vm_that_reboots_its_node() {
    let s = setup();
    let boot_before = s.kube.boot_id("w-1").expect("boot id");

    let list = ok(&cs(&s, "test-secret", &["listVirtualMachines", "name=w-1"]));
    assert_eq!(list["virtualmachine"][0]["id"], Value::String(s.vm.clone()));
    assert_eq!(list["virtualmachine"][0]["state"], "Running");

    let id = format!("id={}", s.vm);
    let stopped = ok(&cs(&s, "test-secret", &["stopVirtualMachine", &id]));
    assert_eq!(stopped["virtualmachine"]["state"], "Stopped");
    assert!(!s.kube.is_ready("w-1"), "a stopped VM's node is not Ready");
    let polls = s
        .cloud
        .calls()
        .iter()
        .filter(|c| c.starts_with("queryasyncjobresult"))
        .count();
    assert!(
        polls >= 2,
        "cs polled the job until it finished ({polls} polls)"
    );

    let offering = format!("serviceofferingid={}", s.big);
    let changed = ok(&cs(
        &s,
        "test-secret",
        &["--post", "changeServiceForVirtualMachine", &id, &offering],
    ));
    assert_eq!(changed["virtualmachine"]["cpunumber"], 4);

    let volume = s.cloud.root_volume_of("w-1").expect("root volume");
    let resized = ok(&cs(
        &s,
        "test-secret",
        &["resizeVolume", &format!("id={}", volume.id), "size=40"],
    ));
    assert_eq!(resized["volume"]["size"], 40u64 * 1024 * 1024 * 1024);

    let groups = format!("affinitygroupids={}", s.group);
    let updated = ok(&cs(
        &s,
        "test-secret",
        &["updateVMAffinityGroup", &id, &groups],
    ));
    assert_eq!(
        updated["virtualmachine"]["affinitygroup"][0]["name"],
        "workers-anti"
    );

    let started = ok(&cs(&s, "test-secret", &["startVirtualMachine", &id]));
    assert_eq!(started["virtualmachine"]["state"], "Running");
    assert!(s.kube.is_ready("w-1"));
    let boot_after = s.kube.boot_id("w-1").expect("boot id");
    assert_ne!(boot_before, boot_after, "the node booted again");
    assert_eq!(
        s.kube.node("w-1").expect("node")["status"]["capacity"]["cpu"],
        "4"
    );
}

#[test]
fn cs_with_a_wrong_secret_is_refused() {
    let s = setup();
    let out = cs(&s, "not-the-secret", &["listVirtualMachines"]);
    assert!(!out.status.success());
    let said = text(&out);
    assert!(said.contains("unable to verify user credentials"), "{said}");
}

#[test]
fn cs_reports_a_failed_job_and_a_refused_change() {
    let s = setup();
    s.cloud
        .fail_next("stopVirtualMachine", "the host is unreachable");
    let out = cs(
        &s,
        "test-secret",
        &["stopVirtualMachine", &format!("id={}", s.vm)],
    );
    assert!(!out.status.success());
    let said = text(&out);
    assert!(said.contains("the host is unreachable"), "{said}");
    assert_eq!(s.cloud.vm_named("w-1").expect("vm").state, "Running");

    let out = cs(
        &s,
        "test-secret",
        &[
            "changeServiceForVirtualMachine",
            &format!("id={}", s.vm),
            &format!("serviceofferingid={}", s.big),
        ],
    );
    assert!(
        !out.status.success(),
        "a running VM's offering is not changed"
    );
    let said = text(&out);
    assert!(said.contains("must be stopped"), "{said}");
}

#[test]
fn cs_sees_a_stop_that_fails_after_stopping_and_a_stop_that_takes_its_time() {
    let s = setup();
    let id = format!("id={}", s.vm);
    let state = |s: &Setup| {
        ok(&cs(s, "test-secret", &["listVirtualMachines", "name=w-1"]))["virtualmachine"][0]
            ["state"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };

    // The job fails, yet the hypervisor did stop the VM.
    s.cloud
        .fail_next_after_effect("stopVirtualMachine", "the host did not confirm the stop");
    let out = cs(&s, "test-secret", &["stopVirtualMachine", &id]);
    assert!(!out.status.success());
    assert!(
        text(&out).contains("the host did not confirm the stop"),
        "{}",
        text(&out)
    );
    assert_eq!(state(&s), "Stopped");
    assert!(!s.kube.is_ready("w-1"), "its node went down");
    ok(&cs(&s, "test-secret", &["startVirtualMachine", &id]));
    assert_eq!(state(&s), "Running");

    // A slow stop: pending, the VM Stopping, until its time has passed; then Stopped.
    s.cloud
        .slow_next("stopVirtualMachine", std::time::Duration::from_secs(6));
    let started = ok(&cs(
        &s,
        "test-secret",
        &["--async", "stopVirtualMachine", &id],
    ));
    let job = format!("jobid={}", started["jobid"].as_str().expect("job id"));
    assert_eq!(state(&s), "Stopping");
    let pending = ok(&cs(&s, "test-secret", &["queryAsyncJobResult", &job]));
    assert_eq!(pending["jobstatus"], 0);
    cks_fixtures::process::wait_until(
        "the slow stop to finish",
        std::time::Duration::from_secs(20),
        || state(&s) == "Stopped",
    )
    .expect("the slow stop finishes");
    let done = ok(&cs(&s, "test-secret", &["queryAsyncJobResult", &job]));
    assert_eq!(done["jobstatus"], 1);
}

#[test]
fn cs_reads_the_cluster_state_cloudstack_reports_and_a_vm_added_to_the_cluster() {
    let s = setup();
    let cluster = s.cloud.add_cluster("k1", std::slice::from_ref(&s.vm));
    let id = format!("id={cluster}");
    let listed = |s: &Setup| ok(&cs(s, "test-secret", &["listKubernetesClusters", &id]));
    assert_eq!(listed(&s)["kubernetescluster"][0]["state"], "Running");
    s.cloud.set_cluster_state(&cluster, "Scaling");
    assert_eq!(listed(&s)["kubernetescluster"][0]["state"], "Scaling");

    let small = s.cloud.vm_named("w-1").expect("vm").service_offering_id;
    let disk = s.cloud.add_disk_offering("custom-2", 0);
    let added = s.cloud.add_vm("w-2", &small, 20, &disk, &[]);
    s.cloud.add_vm_to_cluster(&cluster, &added);
    let vms: Vec<String> = listed(&s)["kubernetescluster"][0]["virtualmachines"]
        .as_array()
        .expect("VM list")
        .iter()
        .filter_map(|v| v["id"].as_str().map(str::to_string))
        .collect();
    assert_eq!(vms, vec![s.vm.clone(), added]);
}

#[test]
fn cs_reads_the_version_list_capabilities_reports_and_a_clusters_autoscaling() {
    let s = setup();
    let caps = ok(&cs(&s, "test-secret", &["listCapabilities"]));
    assert_eq!(
        caps["capability"]["cloudstackversion"],
        cks_fixtures::cloudstack_api::capabilities::DEFAULT_VERSION
    );
    s.cloud.set_cloudstack_version("4.21.0.0");
    let caps = ok(&cs(&s, "test-secret", &["listCapabilities"]));
    assert_eq!(caps["capability"]["cloudstackversion"], "4.21.0.0");

    let cluster = s.cloud.add_cluster("k1", std::slice::from_ref(&s.vm));
    let id = format!("id={cluster}");
    let listed = ok(&cs(&s, "test-secret", &["listKubernetesClusters", &id]));
    assert_eq!(listed["kubernetescluster"][0]["autoscalingenabled"], false);
    s.cloud.set_autoscaling(&cluster, true);
    let listed = ok(&cs(&s, "test-secret", &["listKubernetesClusters", &id]));
    assert_eq!(listed["kubernetescluster"][0]["autoscalingenabled"], true);
}
