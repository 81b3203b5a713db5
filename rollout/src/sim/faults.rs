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
                Fault::Cancel { at_step } if at_step == step => self.record.cancel = true,
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
            | Fault::OutsideCordon { .. }
            | Fault::OutsideUncordon { .. }
            | Fault::Cancel { .. }
            | Fault::StealLease { .. }
            | Fault::SetState { .. }
            | Fault::Crash { .. }
    )
}

pub(super) fn fault_count(f: &Fault) -> u32 {
    match f {
        Fault::StopFails { times, .. }
        | Fault::StartFails { times, .. }
        | Fault::ScaleFails { times, .. }
        | Fault::ResizeFails { times, .. }
        | Fault::AffinityFails { times, .. }
        | Fault::PdbBlocks { times, .. } => *times,
        Fault::SaveSettingsFails => 1,
        _ => 0,
    }
}
