//! Firing the fault schedule: step-scheduled faults and counted call failures.

use super::spec::Fault;
use super::world::World;

impl World {
    pub(super) fn arm_node_faults(&mut self) {
        for f in self.faults.clone() {
            match &f.fault {
                Fault::NeverReady { node } => self.with_vm(node, |v| v.never_ready = true),
                Fault::StaleReady { node } => self.with_vm(node, |v| v.stale_ready = true),
                Fault::StaleCapacity { node } => self.with_vm(node, |v| v.stale_capacity = true),
                _ => {}
            }
        }
    }

    /// Fire the step-scheduled faults of step `self.step`.
    pub fn fire_faults(&mut self) {
        let step = self.step;
        if !self.faults.iter().any(|f| is_scheduled(&f.fault)) {
            return;
        }
        for i in 0..self.faults.len() {
            let fault = self.faults[i].fault.clone();
            match fault {
                Fault::EtcdUnhealthy {
                    member,
                    at_step,
                    until_step,
                } => {
                    let on = step >= at_step && until_step.is_none_or(|u| step < u);
                    self.with_vm(&member, |v| v.etcd_unhealthy = on);
                }
                Fault::ApiDown {
                    node,
                    at_step,
                    until_step,
                } => {
                    let on = step >= at_step && until_step.is_none_or(|u| step < u);
                    self.with_vm(&node, |v| v.api_down = on);
                }
                Fault::NodeNotReady {
                    node,
                    at_step,
                    until_step,
                } => {
                    if step == at_step {
                        self.with_vm(&node, |v| {
                            if let Some(n) = v.node.as_mut() {
                                n.ready = crate::model::Readiness::False;
                            }
                        });
                        self.trace.push(format!("#{step} {node} turns NotReady"));
                    } else if until_step == Some(step) {
                        self.with_vm(&node, |v| {
                            if v.booted
                                && v.state == crate::model::VmState::Running
                                && let Some(n) = v.node.as_mut()
                            {
                                n.ready = crate::model::Readiness::True;
                            }
                        });
                    }
                }
                Fault::OutsideCordon { node, at_step } if at_step == step => {
                    self.with_vm(&node, |v| {
                        if let Some(n) = v.node.as_mut() {
                            n.unschedulable = true;
                        }
                    });
                }
                Fault::OutsideUncordon { node, at_step } if at_step == step => {
                    self.with_vm(&node, |v| {
                        if let Some(n) = v.node.as_mut() {
                            n.unschedulable = false;
                        }
                    });
                }
                Fault::Crash { at_step } if at_step == step => self.crashed = true,
                Fault::SecondEngine { at_step } if at_step == step => self.engines.due = true,
                Fault::Cancel { at_step } if at_step == step => {
                    // As the real `cancel`: recorded only while a rollout runs.
                    let line = if self.record.state == crate::model::ClusterState::Updating {
                        self.record.cancel = true;
                        format!("#{step} cancel recorded")
                    } else {
                        format!(
                            "#{step} cancel refused: cluster {} is {:?}, no rollout is running",
                            self.record.id, self.record.state
                        )
                    };
                    self.trace.push(line);
                }
                Fault::CloudStackState {
                    at_step,
                    state,
                    until_step,
                } => {
                    if step == at_step {
                        self.cks_state = state;
                    } else if until_step == Some(step) {
                        self.cks_state = "Running".to_string();
                    }
                }
                Fault::AddWorker { at_step } if at_step == step => self.add_worker(),
                Fault::SetState { at_step, state } if at_step == step => self.record.state = state,
                Fault::StealLease { at_step } if at_step == step => {
                    self.record.lease = Some(crate::model::Lease {
                        owner: "another-engine".to_string(),
                        heartbeat_ms: self.now.as_millis() as u64,
                    });
                }
                _ => {}
            }
        }
    }

    /// Consume one failure of a counted fault matching `pred`; true if one fired.
    pub fn take_fault(&mut self, pred: impl Fn(&Fault) -> bool) -> bool {
        for f in &mut self.faults {
            if f.left > 0 && pred(&f.fault) {
                f.left -= 1;
                return true;
            }
        }
        false
    }
}

fn is_scheduled(f: &Fault) -> bool {
    matches!(
        f,
        Fault::EtcdUnhealthy { .. }
            | Fault::ApiDown { .. }
            | Fault::NodeNotReady { .. }
            | Fault::OutsideCordon { .. }
            | Fault::OutsideUncordon { .. }
            | Fault::Cancel { .. }
            | Fault::CloudStackState { .. }
            | Fault::AddWorker { .. }
            | Fault::StealLease { .. }
            | Fault::SetState { .. }
            | Fault::Crash { .. }
            | Fault::SecondEngine { .. }
    )
}

impl World {
    /// CloudStack adds a worker (`w-N`) with the cluster's offering, running and Ready (a scale
    /// or the autoscaler, during a rollout).
    pub fn add_worker(&mut self) {
        let n = self
            .vms
            .values()
            .filter(|v| v.node_type == crate::model::NodeType::Worker)
            .count()
            + 1;
        let k = self.vms.len() + 1;
        let name = format!("w-{n}");
        let offering = self.record.service_offering_id.clone();
        let (cpu, memory_kib) = self
            .offerings
            .iter()
            .find(|o| o.id == offering)
            .map_or((0, 0), |o| (o.cpu_cores, super::world::reported_memory(o)));
        let Some(template) = self.vms.values().find(|v| v.node.is_some()).cloned() else {
            return;
        };
        let boot = format!("boot-{name}-0");
        let vm = super::world::SimVm {
            id: format!("vm-{k:03}"),
            name: name.clone(),
            node_type: crate::model::NodeType::Worker,
            state: crate::model::VmState::Running,
            offering,
            groups: vec![],
            root_id: format!("vol-{k:03}"),
            root_gb: template.root_gb,
            root_offering: template.root_offering.clone(),
            boot_id: boot.clone(),
            boot_done_at: None,
            booted: true,
            stopped_at: None,
            node: Some(super::world::SimNode {
                ready: crate::model::Readiness::True,
                boot_id: boot,
                cpu,
                memory_kib,
                unschedulable: false,
                annotations: Default::default(),
            }),
            engine_stopped: false,
            stopped_boot: None,
            engine_stops: 0,
            external_down: false,
            api_down: false,
            etcd_unhealthy: false,
            etcd_learner: false,
            never_ready: false,
            stale_ready: false,
            unmatched: false,
            stale_capacity: false,
            ip: format!("10.1.{}.{}", k / 250, k % 250 + 1),
            member_name: name.clone(),
            member_address: format!("10.1.{}.{}", k / 250, k % 250 + 1),
            stopping_until: None,
        };
        self.vms.insert(name.clone(), vm);
        self.record.worker_count += 1;
        self.worker_budget = self.max_unavailable.min(n as u32 - 1).max(1);
        let step = self.step;
        self.trace
            .push(format!("#{step} CloudStack added worker {name}"));
    }
}
