//! The 4.22 node contract: apache/cloudstack `main` at `3d6cafe` (2025-10-30), byte-identical
//! on every path that reads the ISO to the 4.22 tip `2941b518` (2025-12-01). Line numbers are
//! those of `plugins/integrations/kubernetes-service/src/main/resources/` at that commit.

use super::{Contract, Line, Need, OnMissing, Read};

const SETUP_FAILS: &str = "setup-kube-system stops under `bash -e`, so the node never joins";

/// The 4.22 contract.
pub const CONTRACT: Contract = Contract {
    line: Line::V4_22,
    source: "apache/cloudstack 4.22 (main 3d6cafe1936ed2403a1031cd5ad42dd205934412)",
    reads: &[
        Read {
            need: Need::File("k8s/kubeadm"),
            by: "conf/k8s-control-node.yml:141, conf/k8s-node.yml:135 (cp -a)",
            on_missing: OnMissing::Fails(SETUP_FAILS),
        },
        Read {
            need: Need::File("k8s/kubelet"),
            by: "conf/k8s-control-node.yml:141, conf/k8s-node.yml:135 (cp -a)",
            on_missing: OnMissing::Fails(SETUP_FAILS),
        },
        Read {
            need: Need::File("k8s/kubectl"),
            by: "conf/k8s-control-node.yml:141, conf/k8s-node.yml:135 (cp -a)",
            on_missing: OnMissing::Fails(SETUP_FAILS),
        },
        Read {
            need: Need::Glob("cni/cni-plugins-*64.tgz"),
            by: "conf/k8s-control-node.yml:134, conf/k8s-node.yml:128 (tar -f)",
            on_missing: OnMissing::Fails(SETUP_FAILS),
        },
        Read {
            need: Need::Glob("cri-tools/crictl-linux-*64.tar.gz"),
            by: "conf/k8s-control-node.yml:137, conf/k8s-node.yml:131 (tar -f)",
            on_missing: OnMissing::Fails(SETUP_FAILS),
        },
        Read {
            need: Need::File("kubelet.service"),
            by: "conf/k8s-control-node.yml:144, conf/k8s-node.yml:138 (sed)",
            on_missing: OnMissing::Fails(SETUP_FAILS),
        },
        Read {
            need: Need::File("10-kubeadm.conf"),
            by: "conf/k8s-control-node.yml:146, conf/k8s-node.yml:140 (sed)",
            on_missing: OnMissing::Fails(SETUP_FAILS),
        },
        Read {
            need: Need::Glob("docker/*.tar"),
            by: "conf/k8s-control-node.yml:150-161 (ctr image import)",
            on_missing: OnMissing::Degrades("the images are pulled from the Internet"),
        },
        Read {
            need: Need::File("network.yaml"),
            by: "conf/k8s-control-node.yml:332 (deploy-kube-system, kubectl apply)",
            on_missing: OnMissing::Fails(
                "deploy-kube-system stops under `bash -e` unless the cluster has its own CNI",
            ),
        },
        Read {
            need: Need::File("dashboard.yaml"),
            by: "conf/k8s-control-node.yml:334 (deploy-kube-system, kubectl apply); utils/KubernetesClusterUtil.java:176 (readiness: pods of kubernetes-dashboard)",
            on_missing: OnMissing::Fails(
                "deploy-kube-system stops under `bash -e` and the dashboard readiness poll times out, so cluster creation fails",
            ),
        },
        Read {
            need: Need::File("dashboard.yaml"),
            by: "script/upgrade-kubernetes.sh:154 (kubectl apply, main control node)",
            on_missing: OnMissing::Fails(
                "upgrade-kubernetes.sh stops under `bash -e`, so the upgrade fails",
            ),
        },
        Read {
            need: Need::File("autoscaler.yaml"),
            by: "conf/k8s-control-node.yml:174-176 (if [ -e ])",
            on_missing: OnMissing::Degrades("the cluster cannot autoscale"),
        },
        Read {
            need: Need::File("provider.yaml"),
            by: "conf/k8s-control-node.yml:178-180 (if [ -e ])",
            on_missing: OnMissing::Degrades("no cloud controller manager is deployed"),
        },
        Read {
            need: Need::File("snapshot-crds.yaml"),
            by: "conf/k8s-control-node.yml:182-185 (if [ -e ]); script/deploy-csi-driver:21-24",
            on_missing: OnMissing::Degrades("the CSI driver cannot be deployed"),
        },
        Read {
            need: Need::File("etcd/etcd-linux-amd64.tar.gz"),
            by: "conf/etcd-node.yml:101 (tar -zxf)",
            on_missing: OnMissing::Degrades("clusters with external etcd nodes cannot set them up"),
        },
    ],
};
