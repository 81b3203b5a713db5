//! The 4.20 node contract: apache/cloudstack 4.20 (4.20.2.0 = `4dc39312`, tip `243f566a`,
//! 2025-12-01), as `../shared/upstream/cloudstack-4.23/README.md` records it ("Which release
//! lines carry which variant"): the 4.22 reads without etcd nodes or the CSI driver. Its files
//! were not copied, so the citations name the scripts and the step, not line numbers.

use super::{Contract, Line, Need, OnMissing, Read};

const SETUP_FAILS: &str = "setup-kube-system stops under `bash -e`, so the node never joins";

/// The 4.20 contract.
pub const CONTRACT: Contract = Contract {
    line: Line::V4_20,
    source: "apache/cloudstack 4.20 (tip 243f566a603a6215505342d93d45a67d5386251e, per cloudstack-4.23/README.md)",
    reads: &[
        Read {
            need: Need::File("k8s/kubeadm"),
            by: "conf/k8s-control-node.yml, conf/k8s-node.yml setup-kube-system (cp -a)",
            on_missing: OnMissing::Fails(SETUP_FAILS),
        },
        Read {
            need: Need::File("k8s/kubelet"),
            by: "conf/k8s-control-node.yml, conf/k8s-node.yml setup-kube-system (cp -a)",
            on_missing: OnMissing::Fails(SETUP_FAILS),
        },
        Read {
            need: Need::File("k8s/kubectl"),
            by: "conf/k8s-control-node.yml, conf/k8s-node.yml setup-kube-system (cp -a)",
            on_missing: OnMissing::Fails(SETUP_FAILS),
        },
        Read {
            need: Need::Glob("cni/cni-plugins-*64.tgz"),
            by: "conf/k8s-control-node.yml, conf/k8s-node.yml setup-kube-system (tar -f)",
            on_missing: OnMissing::Fails(SETUP_FAILS),
        },
        Read {
            need: Need::Glob("cri-tools/crictl-linux-*64.tar.gz"),
            by: "conf/k8s-control-node.yml, conf/k8s-node.yml setup-kube-system (tar -f)",
            on_missing: OnMissing::Fails(SETUP_FAILS),
        },
        Read {
            need: Need::File("kubelet.service"),
            by: "conf/k8s-control-node.yml, conf/k8s-node.yml setup-kube-system (sed)",
            on_missing: OnMissing::Fails(SETUP_FAILS),
        },
        Read {
            need: Need::File("10-kubeadm.conf"),
            by: "conf/k8s-control-node.yml, conf/k8s-node.yml setup-kube-system (sed)",
            on_missing: OnMissing::Fails(SETUP_FAILS),
        },
        Read {
            need: Need::Glob("docker/*.tar"),
            by: "conf/k8s-control-node.yml setup-kube-system (ctr image import)",
            on_missing: OnMissing::Degrades("the images are pulled from the Internet"),
        },
        Read {
            need: Need::File("network.yaml"),
            by: "conf/k8s-control-node.yml deploy-kube-system (kubectl apply)",
            on_missing: OnMissing::Fails("deploy-kube-system stops under `bash -e`"),
        },
        Read {
            need: Need::File("dashboard.yaml"),
            by: "conf/k8s-control-node.yml deploy-kube-system (kubectl apply); utils/KubernetesClusterUtil.java (readiness: pods of kubernetes-dashboard only)",
            on_missing: OnMissing::Fails(
                "deploy-kube-system stops under `bash -e` and the dashboard readiness poll times out, so cluster creation fails",
            ),
        },
        Read {
            need: Need::File("dashboard.yaml"),
            by: "script/upgrade-kubernetes.sh (kubectl apply, main control node)",
            on_missing: OnMissing::Fails(
                "upgrade-kubernetes.sh stops under `bash -e`, so the upgrade fails",
            ),
        },
        Read {
            need: Need::File("autoscaler.yaml"),
            by: "conf/k8s-control-node.yml setup-kube-system (if [ -e ])",
            on_missing: OnMissing::Degrades("the cluster cannot autoscale"),
        },
        Read {
            need: Need::File("provider.yaml"),
            by: "conf/k8s-control-node.yml setup-kube-system (if [ -e ])",
            on_missing: OnMissing::Degrades("no cloud controller manager is deployed"),
        },
    ],
};
