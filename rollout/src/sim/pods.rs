//! Pods in the simulated world: placement, rescheduling after evictions, availability.

use super::spec::ClusterSpec;
use super::world::{SimPod, World};
use crate::model::{NodeType, Readiness, VmState};

impl World {
    pub(super) fn place_pods(&mut self, spec: &ClusterSpec) {
        let workers: Vec<String> = self
            .vms
            .values()
            .filter(|v| v.node_type == NodeType::Worker)
            .map(|v| v.name.clone())
            .collect();
        let kube_nodes: Vec<String> = self
            .vms
            .values()
            .filter(|v| v.node.is_some())
            .map(|v| v.name.clone())
            .collect();
        let mut next = 0;
        for p in &spec.pods {
            if p.daemonset {
                for (i, n) in kube_nodes.iter().enumerate() {
                    self.pods.push(SimPod {
                        namespace: p.namespace.clone(),
                        name: format!("{}-ds-{i}", p.app),
                        app: p.app.clone(),
                        node: Some(n.clone()),
                        daemonset: true,
                    });
                }
                continue;
            }
            for i in 0..p.replicas {
                let node = (!workers.is_empty()).then(|| workers[next % workers.len()].clone());
                next += 1;
                self.pods.push(SimPod {
                    namespace: p.namespace.clone(),
                    name: format!("{}-{i}", p.app),
                    app: p.app.clone(),
                    node,
                    daemonset: false,
                });
            }
        }
    }

    fn schedulable(&self) -> Vec<String> {
        self.vms
            .values()
            .filter(|v| v.node_type == NodeType::Worker)
            .filter(|v| {
                v.node
                    .as_ref()
                    .is_some_and(|n| !n.unschedulable && n.ready == Readiness::True)
                    && v.state == VmState::Running
            })
            .map(|v| v.name.clone())
            .collect()
    }

    pub(super) fn schedule_pending(&mut self) {
        let targets = self.schedulable();
        if targets.is_empty() {
            return;
        }
        for i in 0..self.pods.len() {
            if self.pods[i].node.is_none() {
                let load = |n: &String| {
                    self.pods
                        .iter()
                        .filter(|p| p.node.as_ref() == Some(n))
                        .count()
                };
                let best = targets.iter().min_by_key(|n| load(n)).cloned();
                self.pods[i].node = best;
            }
        }
    }

    /// Pods of `app` that count as available (bound to a Running, Ready node).
    pub fn available(&self, app: &str) -> u32 {
        self.pods
            .iter()
            .filter(|p| p.app == app)
            .filter(|p| {
                p.node
                    .as_ref()
                    .and_then(|n| self.vms.get(n))
                    .is_some_and(|v| {
                        v.state == VmState::Running
                            && v.node.as_ref().is_some_and(|n| n.ready == Readiness::True)
                    })
            })
            .count() as u32
    }
}
