//! Kubernetes over the simulated world.

use super::SimHandle;
use crate::model::{
    Endpoint, EvictionOutcome, NodeStatus, NodeType, Pod, ROLLOUT_ANNOTATION, ReadyzCheck,
};
use crate::ports::{Kube, PortError, PortResult};
use crate::sim::spec::Fault;
use crate::sim::world::{SimVm, World};

fn reach(w: &World, ep: &Endpoint) -> PortResult<()> {
    let name = match ep {
        Endpoint::Control(n) => n.clone(),
        Endpoint::Cluster => w
            .vms
            .values()
            .find(|v| v.node_type == NodeType::Control)
            .map(|v| v.name.clone())
            .unwrap_or_default(),
    };
    if w.api_serving(&name) {
        Ok(())
    } else {
        Err(PortError::unavailable(format!(
            "API server on {name} does not answer"
        )))
    }
}

fn status(v: &SimVm) -> Option<NodeStatus> {
    let n = v.node.as_ref()?;
    Some(NodeStatus {
        name: v.name.clone(),
        ready: n.ready,
        boot_id: n.boot_id.clone(),
        capacity_cpu: n.cpu,
        capacity_memory_kib: n.memory_kib,
        unschedulable: n.unschedulable,
        annotations: n.annotations.clone(),
    })
}

fn node_mut<'a>(w: &'a mut World, name: &str) -> PortResult<&'a mut crate::sim::world::SimNode> {
    w.vms
        .get_mut(name)
        .and_then(|v| v.node.as_mut())
        .ok_or_else(|| PortError::not_found(format!("nodes \"{name}\" not found")))
}

impl Kube for SimHandle {
    fn list_nodes(&mut self, via: &Endpoint) -> PortResult<Vec<NodeStatus>> {
        self.call(format!("kube.list_nodes(via {via:?})"), |w| {
            reach(w, via)?;
            Ok(w.vms.values().filter_map(status).collect())
        })
    }

    fn get_node(&mut self, via: &Endpoint, name: &str) -> PortResult<Option<NodeStatus>> {
        self.call(format!("kube.get_node({name})"), |w| {
            reach(w, via)?;
            Ok(w.vms.get(name).and_then(status))
        })
    }

    fn set_annotation(
        &mut self,
        via: &Endpoint,
        node: &str,
        key: &str,
        value: Option<&str>,
    ) -> PortResult<()> {
        self.call(
            format!("kube.set_annotation({node}, {key}={value:?})"),
            |w| {
                reach(w, via)?;
                node_mut(w, node)?;
                if key == ROLLOUT_ANNOTATION {
                    match value {
                        Some(_) => {
                            crate::sim::record::annotate(w, node);
                            crate::sim::record::touch(w, node);
                        }
                        None => {
                            crate::sim::record::done(w, node, true);
                        }
                    }
                }
                let n = node_mut(w, node)?;
                match value {
                    Some(v) => {
                        n.annotations.insert(key.to_string(), v.to_string());
                    }
                    None => {
                        n.annotations.remove(key);
                    }
                }
                Ok(())
            },
        )
    }

    fn set_unschedulable(
        &mut self,
        via: &Endpoint,
        node: &str,
        unschedulable: bool,
    ) -> PortResult<()> {
        self.call(
            format!("kube.set_unschedulable({node}, {unschedulable})"),
            |w| {
                reach(w, via)?;
                node_mut(w, node)?;
                if !unschedulable
                    && w.take_fault(
                        |f| matches!(f, Fault::UncordonFails { node: n, .. } if n == node),
                    )
                {
                    return Err(PortError::new(
                        crate::ports::PortErrorKind::Refused,
                        format!("PATCH nodes/{node}: 422 the request was refused"),
                    ));
                }
                if unschedulable {
                    crate::sim::record::touch(w, node);
                } else {
                    crate::sim::record::uncordon(w, node);
                    crate::sim::record::done(w, node, false);
                }
                node_mut(w, node)?.unschedulable = unschedulable;
                Ok(())
            },
        )
    }

    fn list_pods(&mut self, via: &Endpoint, node: &str) -> PortResult<Vec<Pod>> {
        self.call(format!("kube.list_pods({node})"), |w| {
            reach(w, via)?;
            Ok(w.pods
                .iter()
                .filter(|p| p.node.as_deref() == Some(node))
                .map(|p| Pod {
                    namespace: p.namespace.clone(),
                    name: p.name.clone(),
                    node: node.to_string(),
                    daemonset: p.daemonset,
                    mirror: false,
                })
                .collect())
        })
    }

    fn evict(&mut self, via: &Endpoint, pod: &Pod) -> PortResult<EvictionOutcome> {
        self.call(format!("kube.evict({}/{})", pod.namespace, pod.name), |w| {
            reach(w, via)?;
            let Some(i) = w
                .pods
                .iter()
                .position(|p| p.namespace == pod.namespace && p.name == pod.name)
            else {
                return Ok(EvictionOutcome::Gone);
            };
            let app = w.pods[i].app.clone();
            if let Some(pdb) = w.pdbs.iter().find(|b| b.app == app).cloned() {
                let forced = w
                    .take_fault(|f| matches!(f, Fault::PdbBlocks { pdb: b, .. } if *b == pdb.name));
                if forced || w.available(&app) <= pdb.min_available {
                    return Ok(EvictionOutcome::Blocked {
                        budget: Some(format!("{}/{}", pdb.namespace, pdb.name)),
                        message:
                            "Cannot evict pod as it would violate the pod's disruption budget."
                                .to_string(),
                    });
                }
            }
            w.pods[i].node = None;
            w.tick();
            Ok(EvictionOutcome::Evicted)
        })
    }

    fn readyz(&mut self, via: &Endpoint, check: ReadyzCheck) -> PortResult<bool> {
        self.call(format!("kube.readyz(via {via:?}, {check:?})"), |w| {
            if let (Endpoint::Control(n), ReadyzCheck::All) = (via, check) {
                let up = reach(w, via).is_ok();
                let step = w.step;
                w.api_seen.insert(n.clone(), (up, step));
            }
            reach(w, via)?;
            Ok(match check {
                ReadyzCheck::All => true,
                ReadyzCheck::Etcd => w.etcd_quorum(),
            })
        })
    }
}
