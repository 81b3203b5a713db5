//! The five ports over the simulated world: every call is one step, checked by the invariants.

use super::spec::Fault;
use super::world::{SimVm, World};
use crate::engine::safety::quorum;
use crate::model::{
    AffinityGroup, ClusterRecord, ClusterState, DiskOffering, Endpoint, EtcdMember,
    EvictionOutcome, Lease, MemberHealth, NodeStatus, NodeType, Pod, ROLLOUT_ANNOTATION,
    ReadyzCheck, ServiceOffering, TypeSettings, Vm, VmState, Volume, VolumeKind,
};
use crate::ports::{Clock, Cloud, Etcd, Kube, PortError, PortErrorKind, PortResult, Store};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

/// A handle on the shared world; each port is one.
#[derive(Debug, Clone)]
pub struct SimHandle(pub Rc<RefCell<World>>);

impl SimHandle {
    fn call<T: Shown>(
        &self,
        what: String,
        f: impl FnOnce(&mut World) -> PortResult<T>,
    ) -> PortResult<T> {
        let mut w = self.0.borrow_mut();
        if w.crashed {
            return Err(PortError::unavailable("the engine process is gone"));
        }
        w.step += 1;
        w.fire_faults();
        if w.crashed {
            let line = format!("#{} t={}s CRASH before {what}", w.step, w.now.as_secs());
            w.trace.push(line);
            return Err(PortError::unavailable("the engine process is gone"));
        }
        w.tick();
        let r = f(&mut w);
        let shown = match &r {
            Ok(v) => v.shown(),
            Err(e) => format!("error: {e}"),
        };
        let line = format!("#{} t={}s {what} -> {shown}", w.step, w.now.as_secs());
        w.trace.push(line);
        super::invariants::check_state(&mut w);
        r
    }
}

/// A short text for a call's result in the trace.
trait Shown {
    fn shown(&self) -> String;
}

impl Shown for () {
    fn shown(&self) -> String {
        "ok".to_string()
    }
}

impl Shown for bool {
    fn shown(&self) -> String {
        self.to_string()
    }
}

impl<T> Shown for Vec<T> {
    fn shown(&self) -> String {
        format!("{} item(s)", self.len())
    }
}

impl Shown for Option<NodeStatus> {
    fn shown(&self) -> String {
        match self {
            Some(n) => format!(
                "{:?} boot {} unschedulable={}",
                n.ready, n.boot_id, n.unschedulable
            ),
            None => "not found".to_string(),
        }
    }
}

impl Shown for EvictionOutcome {
    fn shown(&self) -> String {
        format!("{self:?}")
    }
}

impl Shown for ClusterRecord {
    fn shown(&self) -> String {
        format!("{:?} cancel={}", self.state, self.cancel)
    }
}

fn vm_by_id<'a>(w: &'a mut World, id: &str) -> PortResult<&'a mut SimVm> {
    w.vms
        .values_mut()
        .find(|v| v.id == id)
        .ok_or_else(|| PortError::not_found(format!("no VM with id {id}")))
}

fn name_of(w: &World, id: &str) -> Option<String> {
    w.vms.values().find(|v| v.id == id).map(|v| v.name.clone())
}

fn refused(message: String) -> PortError {
    PortError::new(PortErrorKind::Refused, message)
}

impl Cloud for SimHandle {
    fn list_vms(&mut self, _cluster_id: &str) -> PortResult<Vec<Vm>> {
        self.call("cloud.list_vms".into(), |w| {
            Ok(w.vms
                .values()
                .map(|v| Vm {
                    id: v.id.clone(),
                    name: v.name.clone(),
                    node_name: v.name.clone(),
                    node_type: v.node_type,
                    state: v.state.clone(),
                    service_offering_id: v.offering.clone(),
                    affinity_group_ids: v.groups.clone(),
                })
                .collect())
        })
    }

    fn list_volumes(&mut self, _cluster_id: &str) -> PortResult<Vec<Volume>> {
        self.call("cloud.list_volumes".into(), |w| {
            Ok(w.vms
                .values()
                .map(|v| Volume {
                    id: v.root_id.clone(),
                    vm_id: v.id.clone(),
                    kind: VolumeKind::Root,
                    size_gb: v.root_gb,
                    disk_offering_id: v.root_offering.clone(),
                })
                .collect())
        })
    }

    fn stop_vm(&mut self, vm_id: &str) -> PortResult<()> {
        self.call(format!("cloud.stop_vm({vm_id})"), |w| {
            let name = name_of(w, vm_id).ok_or_else(|| PortError::not_found(vm_id.to_string()))?;
            if w.take_fault(|f| matches!(f, Fault::StopFails { node, .. } if *node == name)) {
                return Err(PortError::other(format!(
                    "stopVirtualMachine {vm_id}: 530 job failed"
                )));
            }
            if w.vms[&name].state == VmState::Stopped {
                return Ok(());
            }
            super::invariants::on_stop(w, &name);
            super::invariants::touch(w, &name);
            let boot = {
                let v = &w.vms[&name];
                v.node
                    .as_ref()
                    .map_or(v.boot_id.clone(), |n| n.boot_id.clone())
            };
            w.halt(&name);
            let v = vm_by_id(w, vm_id)?;
            v.engine_stopped = true;
            v.stopped_boot = Some(boot);
            v.engine_stops += 1;
            w.advance_random(5, 30);
            Ok(())
        })
    }

    fn start_vm(&mut self, vm_id: &str) -> PortResult<()> {
        self.call(format!("cloud.start_vm({vm_id})"), |w| {
            let name = name_of(w, vm_id).ok_or_else(|| PortError::not_found(vm_id.to_string()))?;
            if w.take_fault(|f| matches!(f, Fault::StartFails { node, .. } if *node == name)) {
                return Err(PortError::other(format!(
                    "startVirtualMachine {vm_id}: 533 insufficient capacity"
                )));
            }
            if w.vms[&name].state == VmState::Running {
                return Ok(());
            }
            w.boot(&name);
            w.advance_random(5, 30);
            Ok(())
        })
    }

    fn change_offering(&mut self, vm_id: &str, offering_id: &str) -> PortResult<()> {
        self.call(
            format!("cloud.change_offering({vm_id}, {offering_id})"),
            |w| {
                let name =
                    name_of(w, vm_id).ok_or_else(|| PortError::not_found(vm_id.to_string()))?;
                super::invariants::on_change(w, &name, "change_offering")?;
                if w.take_fault(|f| matches!(f, Fault::ScaleFails { node, .. } if *node == name)) {
                    return Err(PortError::other(format!(
                        "changeServiceForVirtualMachine {vm_id}: 530 failed"
                    )));
                }
                if !w.offerings.iter().any(|o| o.id == offering_id) {
                    return Err(PortError::not_found(format!("no offering {offering_id}")));
                }
                vm_by_id(w, vm_id)?.offering = offering_id.to_string();
                w.advance(Duration::from_secs(1));
                Ok(())
            },
        )
    }

    fn resize_volume(&mut self, volume_id: &str, size_gb: u64) -> PortResult<()> {
        self.call(
            format!("cloud.resize_volume({volume_id}, {size_gb})"),
            |w| {
                let name = w
                    .vms
                    .values()
                    .find(|v| v.root_id == volume_id)
                    .map(|v| v.name.clone())
                    .ok_or_else(|| PortError::not_found(format!("no volume {volume_id}")))?;
                super::invariants::on_change(w, &name, "resize_volume")?;
                if w.take_fault(|f| matches!(f, Fault::ResizeFails { node, .. } if *node == name)) {
                    return Err(PortError::other(format!(
                        "resizeVolume {volume_id}: 530 failed"
                    )));
                }
                let v = &w.vms[&name];
                if size_gb < v.root_gb {
                    return Err(refused(format!(
                        "resizeVolume {volume_id}: shrinking is not allowed"
                    )));
                }
                let fixed = v
                    .root_offering
                    .as_ref()
                    .and_then(|id| w.disk_offerings.iter().find(|d| &d.id == id))
                    .is_some_and(|d| d.is_fixed_size());
                if fixed {
                    return Err(refused(format!(
                        "resizeVolume {volume_id}: fixed-size disk offering"
                    )));
                }
                if let Some(v) = w.vms.get_mut(&name) {
                    v.root_gb = size_gb;
                }
                w.advance(Duration::from_secs(5));
                Ok(())
            },
        )
    }

    fn update_affinity_groups(&mut self, vm_id: &str, group_ids: &[String]) -> PortResult<()> {
        self.call(
            format!("cloud.update_affinity_groups({vm_id}, {group_ids:?})"),
            |w| {
                let name =
                    name_of(w, vm_id).ok_or_else(|| PortError::not_found(vm_id.to_string()))?;
                super::invariants::on_change(w, &name, "update_affinity_groups")?;
                if w.take_fault(|f| matches!(f, Fault::AffinityFails { node, .. } if *node == name))
                {
                    return Err(PortError::other(format!(
                        "updateVMAffinityGroup {vm_id}: 530 failed"
                    )));
                }
                vm_by_id(w, vm_id)?.groups = group_ids.to_vec();
                w.advance(Duration::from_secs(1));
                Ok(())
            },
        )
    }

    fn list_service_offerings(&mut self) -> PortResult<Vec<ServiceOffering>> {
        self.call("cloud.list_service_offerings".into(), |w| {
            Ok(w.offerings.clone())
        })
    }

    fn list_disk_offerings(&mut self) -> PortResult<Vec<DiskOffering>> {
        self.call("cloud.list_disk_offerings".into(), |w| {
            Ok(w.disk_offerings.clone())
        })
    }

    fn list_affinity_groups(&mut self) -> PortResult<Vec<AffinityGroup>> {
        self.call("cloud.list_affinity_groups".into(), |w| {
            Ok(w.groups.clone())
        })
    }
}

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

fn node_mut<'a>(w: &'a mut World, name: &str) -> PortResult<&'a mut super::world::SimNode> {
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
                            super::invariants::on_annotate(w, node);
                            super::invariants::touch(w, node);
                        }
                        None => {
                            super::invariants::on_done(w, node, true);
                            super::invariants::on_finished(w, node);
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
                if unschedulable {
                    super::invariants::touch(w, node);
                } else {
                    super::invariants::on_uncordon(w, node);
                    super::invariants::on_done(w, node, false);
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

impl Etcd for SimHandle {
    fn members(&mut self) -> PortResult<Vec<EtcdMember>> {
        self.call("etcd.members".into(), |w| {
            w.health_seen = (w.member_health(), w.step);
            let t = w.member_type();
            Ok(w.vms
                .values()
                .filter(|v| v.node_type == t)
                .map(|v| EtcdMember {
                    name: v.name.clone(),
                    client_url: format!("https://{}:2379", v.name),
                    health: if v.state != VmState::Running || !v.booted {
                        MemberHealth::Unknown
                    } else if v.etcd_unhealthy {
                        MemberHealth::Unhealthy
                    } else {
                        MemberHealth::Healthy
                    },
                    learner: false,
                })
                .collect())
        })
    }
}

fn cluster<'a>(w: &'a mut World, id: &str) -> PortResult<&'a mut ClusterRecord> {
    if w.record.id == id {
        Ok(&mut w.record)
    } else {
        Err(PortError::not_found(format!("no cluster {id}")))
    }
}

impl Store for SimHandle {
    fn load(&mut self, cluster_id: &str) -> PortResult<ClusterRecord> {
        self.call("store.load".into(), |w| Ok(cluster(w, cluster_id)?.clone()))
    }

    fn compare_and_set_state(
        &mut self,
        cluster_id: &str,
        expected: ClusterState,
        new: ClusterState,
        lease: Option<&Lease>,
    ) -> PortResult<bool> {
        self.call(format!("store.cas({expected:?} -> {new:?})"), |w| {
            let r = cluster(w, cluster_id)?;
            if r.state != expected {
                return Ok(false);
            }
            r.state = new;
            r.lease = lease.cloned();
            if new == ClusterState::Updating {
                w.phase = None;
            }
            Ok(true)
        })
    }

    fn save_settings(
        &mut self,
        cluster_id: &str,
        expected: ClusterState,
        settings: &TypeSettings,
    ) -> PortResult<bool> {
        self.call("store.save_settings".into(), |w| {
            if w.take_fault(|f| matches!(f, Fault::SaveSettingsFails)) {
                return Err(PortError::unavailable("database is locked"));
            }
            let r = cluster(w, cluster_id)?;
            if r.state != expected {
                return Ok(false);
            }
            r.settings = settings.clone();
            Ok(true)
        })
    }

    fn renew_lease(&mut self, cluster_id: &str, lease: &Lease) -> PortResult<bool> {
        self.call("store.renew_lease".into(), |w| {
            let r = cluster(w, cluster_id)?;
            match &mut r.lease {
                Some(l) if l.owner == lease.owner => {
                    l.heartbeat_ms = lease.heartbeat_ms;
                    Ok(true)
                }
                _ => Ok(false),
            }
        })
    }

    fn set_cancel(&mut self, cluster_id: &str, cancel: bool) -> PortResult<()> {
        self.call(format!("store.set_cancel({cancel})"), |w| {
            cluster(w, cluster_id)?.cancel = cancel;
            Ok(())
        })
    }

    fn set_last_error(&mut self, cluster_id: &str, error: Option<&str>) -> PortResult<()> {
        self.call("store.set_last_error".into(), |w| {
            cluster(w, cluster_id)?.last_error = error.map(str::to_string);
            Ok(())
        })
    }

    fn set_capacity(&mut self, cluster_id: &str, cores: u64, memory_mb: u64) -> PortResult<()> {
        self.call(format!("store.set_capacity({cores}, {memory_mb})"), |w| {
            let r = cluster(w, cluster_id)?;
            r.cores = cores;
            r.memory_mb = memory_mb;
            Ok(())
        })
    }
}

impl Clock for SimHandle {
    fn now(&self) -> Duration {
        self.0.borrow().now
    }

    fn sleep(&mut self, d: Duration) {
        self.0.borrow_mut().advance(d);
    }
}

/// Healthy members other than `name` as the engine last saw them, the quorum needed, and the
/// step it looked.
pub fn others_healthy(w: &World, name: &str) -> (usize, usize, u64) {
    let (seen, step) = &w.health_seen;
    let healthy = seen
        .iter()
        .filter(|(n, h)| n.as_str() != name && **h)
        .count();
    (healthy, quorum(w.member_health().len()), *step)
}
