//! The CloudStack fake's cluster-access answers are what the real Python `cs` client reads:
//! the kubeconfig from `getKubernetesClusterConfig`, the cluster's network and public address,
//! the VMs' NIC addresses and the port-forwarding rules to their SSH ports; and the real
//! kubectl trusts a control node's own API server on its InternalIP with the cluster CA.

use std::process::{Command, Output};

use cks_fixtures::cloudstack_api::{CloudStackFake, CloudWorld};
use serde_json::Value;

use crate::cs_support::{self, ok, text};

fn cs(api: &CloudStackFake, args: &[&str]) -> Output {
    cs_support::cs(&api.endpoint(), "cs-key", "cs-secret", args)
}

#[test]
fn cs_reads_the_kubeconfig_the_public_address_the_nics_and_the_ssh_rules() {
    let cloud = CloudWorld::new("cs-key", "cs-secret");
    let small = cloud.add_service_offering("small", 2, 4096);
    let disk = cloud.add_disk_offering("custom", 0);
    let control = cloud.add_vm("k1-control-1", &small, 20, &disk, &[]);
    let worker = cloud.add_vm("k1-node-1", &small, 20, &disk, &[]);
    cloud.set_vm_address(&control, "10.1.1.11");
    cloud.set_vm_address(&worker, "10.1.1.21");
    let cluster = cloud.add_cluster("k1", &[control.clone(), worker.clone()]);
    let ip = cloud
        .set_cluster_network(&cluster, "Isolated", Some("203.0.113.7"))
        .expect("public address");
    cloud.add_port_forward(&ip, 2222, &control, 22);
    cloud.add_port_forward(&ip, 2223, &worker, 22);
    let api = CloudStackFake::start(cloud.clone()).expect("fake starts");
    let id = format!("id={cluster}");

    // No kubeconfig stored yet: an empty configdata, as CloudStack answers.
    let empty = ok(&cs(&api, &["getKubernetesClusterConfig", &id]));
    assert_eq!(empty["clusterconfig"]["configdata"], "");
    cloud.set_kubeconfig(&cluster, "apiVersion: v1\nkind: Config\n");
    let config = ok(&cs(&api, &["getKubernetesClusterConfig", &id]));
    assert_eq!(config["clusterconfig"]["name"], "k1");
    assert_eq!(
        config["clusterconfig"]["configdata"],
        "apiVersion: v1\nkind: Config\n"
    );
    let unknown = cs(&api, &["getKubernetesClusterConfig", "id=nope"]);
    assert!(!unknown.status.success());
    assert!(String::from_utf8_lossy(&unknown.stdout).contains("Invalid Kubernetes cluster ID"));

    let listed = ok(&cs(&api, &["listKubernetesClusters", &id]));
    let entry = &listed["kubernetescluster"][0];
    assert_eq!(entry["ipaddress"], "203.0.113.7");
    assert_eq!(entry["ipaddressid"], Value::String(ip.clone()));
    let network = entry["networkid"].as_str().expect("network id").to_string();
    let networks = ok(&cs(&api, &["listNetworks", &format!("id={network}")]));
    assert_eq!(networks["network"][0]["type"], "Isolated");
    let address = ok(&cs(&api, &["listPublicIpAddresses", &format!("id={ip}")]));
    assert_eq!(address["publicipaddress"][0]["ipaddress"], "203.0.113.7");
    assert_eq!(address["publicipaddress"][0]["issourcenat"], true);

    let vms = ok(&cs(
        &api,
        &["listVirtualMachines", &format!("id={control}")],
    ));
    assert_eq!(vms["virtualmachine"][0]["nic"][0]["ipaddress"], "10.1.1.11");
    assert_eq!(
        vms["virtualmachine"][0]["nic"][0]["networkid"],
        Value::String(network)
    );

    let rules = ok(&cs(
        &api,
        &[
            "listPortForwardingRules",
            &format!("ipaddressid={ip}"),
            "listall=true",
        ],
    ));
    assert_eq!(rules["count"], 2);
    let rule = rules["portforwardingrule"]
        .as_array()
        .expect("rules")
        .iter()
        .find(|r| r["virtualmachineid"] == Value::String(worker.clone()))
        .expect("the worker's rule");
    assert_eq!(
        (rule["publicport"].as_str(), rule["privateport"].as_str()),
        (Some("2223"), Some("22"))
    );
    assert_eq!(rule["ipaddress"], "203.0.113.7");
    assert_eq!(rule["virtualmachinename"], "k1-node-1");
    // CloudStack's listPortForwardingRules takes no `virtualmachineid` (the real server would
    // ignore it and list every rule): the fake playing its line refuses it.
    let refused = cs(
        &api,
        &[
            "listPortForwardingRules",
            &format!("virtualmachineid={control}"),
        ],
    );
    assert!(!refused.status.success());
    assert!(
        text(&refused).contains("Unknown parameters : virtualmachineid"),
        "{}",
        text(&refused)
    );
}

/// The real kubectl trusts a control node's own API server on `https://<InternalIP>:6443` with
/// the kubeconfig's CA (its certificate names the node's address) and reads the InternalIPs
/// discovery matches VMs by.
#[test]
fn kubectl_reads_internal_ips_from_a_control_nodes_own_api_server() {
    use cks_fixtures::kube_api::{KubeApiFake, KubeWorld};
    use cks_fixtures::tls::TestCa;
    use std::net::{IpAddr, SocketAddr};

    let ip = cks_fixtures::sshd::node_addresses(1).expect("address")[0];
    let world = KubeWorld::new();
    world.add_node("k1-control-1", 2, 4096);
    world.lock().nodes.get_mut("k1-control-1").expect("node")["status"]["addresses"] =
        serde_json::json!([{"type": "InternalIP", "address": ip.to_string()}]);
    let ca = TestCa::new().expect("CA");
    let tls = ca.server_config_for(&[IpAddr::V4(ip)], false).expect("tls");
    let api = KubeApiFake::start_at(
        world,
        Some("k1-control-1"),
        Some(tls),
        SocketAddr::new(IpAddr::V4(ip), 6443),
    )
    .expect("API server on the node address");
    assert_eq!(api.url(), format!("https://{ip}:6443"));
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("kubeconfig");
    api.write_kubeconfig_with(&config, Some("node-token"), Some(&ca.cert_pem()), None)
        .expect("kubeconfig");
    let program =
        cks_fixtures::process::require_program("kubectl", "kubectl").expect("kubectl installed");
    let out = Command::new(program)
        .arg("--kubeconfig")
        .arg(&config)
        .arg("--cache-dir")
        .arg(dir.path())
        .args([
            "get",
            "nodes",
            "-o",
            "jsonpath={.items[0].status.addresses[0].address}",
        ])
        .env("HOME", dir.path())
        .output()
        .expect("kubectl runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), ip.to_string());
}
