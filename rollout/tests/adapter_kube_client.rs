//! Our Kubernetes client against the fake kubectl validated: nodes with Ready, boot ID, capacity,
//! cordon and annotations; drains that skip DaemonSet and mirror pods, wait out a budget and
//! name the budget that never allows; `/readyz/etcd`; endpoints chosen per call; and
//! credentials from a kubeconfig (token, client certificate, CA).

use std::time::Duration;

use cks_fixtures::kube_api::{KubeApiFake, KubeWorld};
use cks_fixtures::tls::TestCa;

use crate::kube_support::web_world;
use cks_rollout::adapters::kube::{KubeAccess, KubeClient, KubeError};
use cks_rollout::model::{EvictionOutcome, Readiness, ReadyzCheck};

fn world() -> KubeWorld {
    web_world(&["c-1", "c-2", "w-1", "w-2"])
}

fn client_for(api: &KubeApiFake, dir: &std::path::Path) -> KubeClient {
    let path = dir.join("kubeconfig");
    api.write_kubeconfig(&path, None).expect("kubeconfig");
    let access = KubeAccess::from_kubeconfig(&path, None).expect("kubeconfig parses");
    KubeClient::new(&access, Duration::from_secs(5)).expect("client")
}

#[test]
fn reads_nodes_and_cordons_and_annotates_them() {
    let world = world();
    let api = KubeApiFake::start(world.clone(), None).expect("fake");
    let dir = tempfile::tempdir().expect("temp dir");
    let kube = client_for(&api, dir.path());

    let nodes = kube.list_nodes().expect("nodes");
    assert_eq!(nodes.len(), 4);
    let w1 = kube.get_node("w-1").expect("get").expect("exists");
    assert_eq!(w1.ready, Readiness::True);
    assert_eq!(w1.boot_id, world.boot_id("w-1").expect("boot id"));
    assert_eq!((w1.capacity_cpu, w1.capacity_memory_kib), (2, 4096 * 1024));
    assert!(
        kube.get_node("nope")
            .expect("404 is not an error")
            .is_none()
    );

    kube.set_annotation(
        "w-1",
        "cloudstack.apache.org/rollout-boot-id",
        Some(&w1.boot_id),
    )
    .expect("annotate");
    kube.set_unschedulable("w-1", true).expect("cordon");
    let w1 = kube.get_node("w-1").expect("get").expect("exists");
    assert!(w1.unschedulable);
    assert_eq!(w1.rollout_boot_id(), Some(w1.boot_id.as_str()));
    kube.set_unschedulable("w-1", false).expect("uncordon");
    kube.set_annotation("w-1", "cloudstack.apache.org/rollout-boot-id", None)
        .expect("remove");
    let w1 = kube.get_node("w-1").expect("get").expect("exists");
    assert!(!w1.unschedulable && w1.rollout_boot_id().is_none());

    world.node_went_down("w-2");
    assert_eq!(
        kube.get_node("w-2").expect("get").expect("exists").ready,
        Readiness::Unknown
    );
}

#[test]
fn drains_around_daemonsets_and_mirrors_and_names_a_blocking_budget() {
    let world = world();
    let api = KubeApiFake::start(world.clone(), None).expect("fake");
    let dir = tempfile::tempdir().expect("temp dir");
    let kube = client_for(&api, dir.path());

    let pods = kube.list_pods("w-1").expect("pods");
    assert_eq!(pods.len(), 3);
    assert!(pods.iter().any(|p| p.daemonset) && pods.iter().any(|p| p.mirror));

    kube.set_unschedulable("w-1", true).expect("cordon");
    let report = kube
        .drain("w-1", Duration::from_secs(5), Duration::from_millis(20))
        .expect("drain");
    assert_eq!(report.evicted, ["default/web-1"]);
    assert_eq!(
        report.skipped,
        ["kube-system/proxy-w-1", "kube-system/static-w-1"]
    );
    assert_eq!(world.pods_on("w-1"), ["proxy-w-1", "static-w-1"]);

    // Two web pods are left (web-2 on w-2 and web-1's replacement); a budget that needs both
    // never allows draining w-2.
    world
        .lock()
        .pdbs
        .values_mut()
        .for_each(|pdb| pdb["spec"]["minAvailable"] = 2.into());
    kube.set_unschedulable("w-2", true).expect("cordon");
    let err = kube.drain("w-2", Duration::from_millis(300), Duration::from_millis(20));
    match err {
        Err(KubeError::DrainBlocked {
            node, pod, budget, ..
        }) => {
            assert_eq!(node, "w-2");
            assert!(pod.starts_with("default/web"), "{pod}");
            assert_eq!(budget.as_deref(), Some("default/web-pdb"));
        }
        other => panic!("expected a blocked drain, got {other:?}"),
    }
    let pod = kube
        .list_pods("w-2")
        .expect("pods")
        .into_iter()
        .find(|p| p.name.starts_with("web"))
        .expect("a web pod stays");
    match kube.evict(&pod).expect("evict answers") {
        EvictionOutcome::Blocked { budget, message } => {
            assert_eq!(budget.as_deref(), Some("default/web-pdb"));
            assert!(message.contains("disruption budget"), "{message}");
        }
        other => panic!("expected a 429, got {other:?}"),
    }

    // Once the budget is relaxed (after a refusal was seen), the retried eviction goes through.
    let relax = world.clone();
    let evictions = |w: &KubeWorld| {
        w.requests()
            .iter()
            .filter(|r| r.ends_with("/eviction"))
            .count()
    };
    let seen = evictions(&world);
    let helper = std::thread::spawn(move || {
        cks_fixtures::process::wait_until("a refused eviction", Duration::from_secs(5), || {
            evictions(&relax) > seen
        })
        .expect("the drain tries");
        relax
            .lock()
            .pdbs
            .values_mut()
            .for_each(|pdb| pdb["spec"]["minAvailable"] = 1.into());
    });
    let report = kube
        .drain("w-2", Duration::from_secs(5), Duration::from_millis(20))
        .expect("drain");
    helper.join().expect("helper");
    assert!(report.refusals >= 1, "{report:?}");
    assert_eq!(report.evicted.len(), 1);
}

#[test]
fn each_call_goes_to_the_endpoint_chosen_and_readyz_reports_etcd() {
    let world = world();
    let on_c1 = KubeApiFake::start(world.clone(), Some("c-1")).expect("fake on c-1");
    let on_c2 = KubeApiFake::start(world.clone(), Some("c-2")).expect("fake on c-2");
    let dir = tempfile::tempdir().expect("temp dir");
    let kube = client_for(&on_c1, dir.path());
    let via_c2 = kube.via(&on_c2.url());
    assert_eq!(via_c2.server(), on_c2.url());

    assert!(kube.readyz(ReadyzCheck::Etcd).expect("readyz"));
    world.node_went_down("c-1");
    let err = kube.list_nodes().expect_err("c-1's API server is down");
    assert!(
        matches!(err, KubeError::Status { status: 503, .. }),
        "{err}"
    );
    assert!(!kube.readyz(ReadyzCheck::All).expect("answers 503"));
    assert_eq!(via_c2.list_nodes().expect("c-2 answers").len(), 4);
    world.lock().etcd_ready = false;
    assert!(!via_c2.readyz(ReadyzCheck::Etcd).expect("readyz"));
    let before = world.requests().len();
    via_c2.get_node("w-1").expect("get");
    assert_eq!(world.requests().len(), before + 1);
}

#[test]
fn kubeconfig_credentials_token_and_client_certificate_over_tls() {
    let ca = TestCa::new().expect("CA");
    let dir = tempfile::tempdir().expect("temp dir");

    let world = world();
    world.require_token("s3cret-token");
    let api = KubeApiFake::start_with(
        world.clone(),
        None,
        Some(ca.server_config(false).expect("tls")),
    )
    .expect("fake");
    let path = dir.path().join("token");
    api.write_kubeconfig_with(&path, Some("s3cret-token"), Some(&ca.cert_pem()), None)
        .expect("kubeconfig");
    let access = KubeAccess::from_kubeconfig(&path, None).expect("parses");
    assert!(
        !format!("{access:?}").contains("s3cret-token"),
        "Debug hides the token"
    );
    let kube = KubeClient::new(&access, Duration::from_secs(5)).expect("client");
    assert_eq!(kube.list_nodes().expect("token accepted").len(), 4);
    api.write_kubeconfig_with(&path, Some("wrong"), Some(&ca.cert_pem()), None)
        .expect("kubeconfig");
    let wrong = KubeClient::new(
        &KubeAccess::from_kubeconfig(&path, None).expect("parses"),
        Duration::from_secs(5),
    )
    .expect("client");
    assert!(matches!(
        wrong.list_nodes(),
        Err(KubeError::Status { status: 401, .. })
    ));

    let mtls = KubeApiFake::start_with(
        KubeWorld::new(),
        None,
        Some(ca.server_config(true).expect("tls")),
    )
    .expect("fake");
    let client_pair = ca.client("admin").expect("client cert");
    let path = dir.path().join("cert");
    mtls.write_kubeconfig_with(&path, None, Some(&ca.cert_pem()), Some(&client_pair))
        .expect("kubeconfig");
    let kube = KubeClient::new(
        &KubeAccess::from_kubeconfig(&path, None).expect("parses"),
        Duration::from_secs(5),
    )
    .expect("client");
    assert!(
        kube.list_nodes()
            .expect("client certificate accepted")
            .is_empty()
    );
    mtls.write_kubeconfig_with(&path, None, Some(&ca.cert_pem()), None)
        .expect("kubeconfig");
    let anonymous = KubeClient::new(
        &KubeAccess::from_kubeconfig(&path, None).expect("parses"),
        Duration::from_secs(5),
    )
    .expect("client");
    assert!(
        matches!(anonymous.list_nodes(), Err(KubeError::Http { .. })),
        "no certificate, no TLS session"
    );

    std::fs::write(&path, "clusters: []\ncontexts: []\n").expect("write");
    let err = KubeAccess::from_kubeconfig(&path, None).expect_err("no context");
    assert!(err.to_string().contains("current-context"), "{err}");
}
