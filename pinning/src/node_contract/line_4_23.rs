//! The 4.23 node contract: apache/cloudstack `main` after #12776 (Headlamp). The reads that PR
//! did not touch are those of 4.22 (`main` `26009659`, 2025-12-01, is unchanged on every path
//! since `3d6cafe`); the dashboard reads are as `../shared/upstream/cloudstack-4.23/README.md`
//! quotes them from a fork that merged #12776 (apache's own text is unverified).

use super::{Contract, Line, Need, OnMissing, Read};

const SETUP_FAILS: &str = "setup-kube-system stops under `bash -e`, so the node never joins";

/// The 4.23 contract.
pub const CONTRACT: Contract = Contract {
    line: Line::V4_23,
    source: "apache/cloudstack main after #12776 (4.23), per cloudstack-4.23/README.md",
    reads: &[
        Read {
            need: Need::File("k8s/kubeadm"),
            by: "conf/k8s-control-node.yml:141, conf/k8s-node.yml:135 (cp -a; unchanged by #12776)",
            on_missing: OnMissing::Fails(SETUP_FAILS),
        },
        Read {
            need: Need::File("k8s/kubelet"),
            by: "conf/k8s-control-node.yml:141, conf/k8s-node.yml:135 (cp -a; unchanged by #12776)",
            on_missing: OnMissing::Fails(SETUP_FAILS),
        },
        Read {
            need: Need::File("k8s/kubectl"),
            by: "conf/k8s-control-node.yml:141, conf/k8s-node.yml:135 (cp -a; unchanged by #12776)",
            on_missing: OnMissing::Fails(SETUP_FAILS),
        },
        Read {
            need: Need::Glob("cni/cni-plugins-*64.tgz"),
            by: "conf/k8s-control-node.yml:134, conf/k8s-node.yml:128 (tar -f; unchanged by #12776)",
            on_missing: OnMissing::Fails(SETUP_FAILS),
        },
        Read {
            need: Need::Glob("cri-tools/crictl-linux-*64.tar.gz"),
            by: "conf/k8s-control-node.yml:137, conf/k8s-node.yml:131 (tar -f; unchanged by #12776)",
            on_missing: OnMissing::Fails(SETUP_FAILS),
        },
        Read {
            need: Need::File("kubelet.service"),
            by: "conf/k8s-control-node.yml:144, conf/k8s-node.yml:138 (sed; unchanged by #12776)",
            on_missing: OnMissing::Fails(SETUP_FAILS),
        },
        Read {
            need: Need::File("10-kubeadm.conf"),
            by: "conf/k8s-control-node.yml:146, conf/k8s-node.yml:140 (sed; unchanged by #12776)",
            on_missing: OnMissing::Fails(SETUP_FAILS),
        },
        Read {
            need: Need::Glob("docker/*.tar"),
            by: "conf/k8s-control-node.yml:150-161 (ctr image import; unchanged by #12776)",
            on_missing: OnMissing::Degrades("the images are pulled from the Internet"),
        },
        Read {
            need: Need::File("network.yaml"),
            by: "conf/k8s-control-node.yml deploy-kube-system (kubectl apply)",
            on_missing: OnMissing::Fails(
                "deploy-kube-system stops under `bash -e` unless the cluster has its own CNI",
            ),
        },
        Read {
            need: Need::FirstOf(&["headlamp.yaml", "dashboard.yaml"]),
            by: "conf/k8s-control-node.yml deploy-kube-system (if [ -f headlamp.yaml ] … elif [ -f dashboard.yaml ]); utils/KubernetesClusterUtil.java isKubernetesClusterDashboardServiceRunning (kube-system/headlamp, then kubernetes-dashboard)",
            on_missing: OnMissing::Fails(
                "the node only warns, then the dashboard readiness poll times out, so cluster creation fails",
            ),
        },
        Read {
            need: Need::File("dashboard.yaml"),
            by: "script/upgrade-kubernetes.sh:154 at 3d6cafe (kubectl apply; not in #12776's file list)",
            on_missing: OnMissing::Unverified(
                "if 4.23 kept this line, upgrading a cluster to this ISO stops under `bash -e`",
            ),
        },
        Read {
            need: Need::File("autoscaler.yaml"),
            by: "conf/k8s-control-node.yml:174-176 (if [ -e ]; unchanged by #12776)",
            on_missing: OnMissing::Degrades("the cluster cannot autoscale"),
        },
        Read {
            need: Need::File("provider.yaml"),
            by: "conf/k8s-control-node.yml:178-180 (if [ -e ]; unchanged by #12776)",
            on_missing: OnMissing::Degrades("no cloud controller manager is deployed"),
        },
        Read {
            need: Need::File("snapshot-crds.yaml"),
            by: "conf/k8s-control-node.yml:182-185 (if [ -e ]); script/deploy-csi-driver:21-24",
            on_missing: OnMissing::Degrades("the CSI driver cannot be deployed"),
        },
        Read {
            need: Need::File("etcd/etcd-linux-amd64.tar.gz"),
            by: "conf/etcd-node.yml:101 (tar -zxf; unchanged by #12776)",
            on_missing: OnMissing::Degrades("clusters with external etcd nodes cannot set them up"),
        },
    ],
};
