//! Plain data the engine reads and writes through its ports: node types, VMs, offerings, nodes,
//! etcd members and the cluster record.

mod cloud;
mod cluster;
mod etcd;
mod kube;
mod lease;

pub use cks_discovery::node_type::{NodeType, UnknownNodeType};
pub use cloud::{
    AffinityGroup, CksCluster, CloudStackVersion, DiskOffering, EXPLICIT_DEDICATION,
    KubernetesVersion, ServiceOffering, Vm, VmState, Volume, VolumeKind,
};
pub use cluster::{ClusterRecord, ClusterState, Lease, NodeTypeSettings, TypeSettings};
pub use etcd::{EtcdMember, MemberHealth};
pub use kube::{
    Endpoint, EvictionOutcome, NodeStatus, Pod, ROLLOUT_ANNOTATION, Readiness, ReadyzCheck,
};
