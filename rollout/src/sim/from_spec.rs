//! The simulated world built from a cluster description: its VMs, nodes, pods, etcd members
//! and record, every random choice drawn from the seed.

use super::spec::ClusterSpec;
use super::spec_error::SpecError;
use super::world::{ArmedFault, SimNode, SimVm, World, reported_memory};
use crate::model::{ClusterRecord, NodeType, Readiness, VmState};
use rand::SeedableRng;
use rand::rngs::StdRng;
use std::collections::BTreeMap;
use std::time::Duration;

fn names(prefix: &str, n: u32) -> Vec<String> {
    (1..=n).map(|i| format!("{prefix}-{i}")).collect()
}

impl World {
    /// Build the world of `spec`, with every random choice drawn from `seed`.
    pub fn new(spec: &ClusterSpec, seed: u64) -> Result<World, SpecError> {
        spec.jobs.check()?;
        let etcd_count = spec.etcd.as_ref().map_or(0, |e| e.count);
        let offering =
            |id: &Option<String>| id.clone().unwrap_or_else(|| spec.service_offering.clone());
        let mut vms = BTreeMap::new();
        let groups = [
            (NodeType::Control, "c", &spec.control),
            (NodeType::Worker, "w", &spec.workers),
        ];
        let mut all: Vec<(NodeType, &str, &super::spec::NodeGroupSpec)> = groups.to_vec();
        if let Some(e) = &spec.etcd {
            all.insert(0, (NodeType::Etcd, "e", e));
        }
        let mut k = 0;
        for (t, prefix, g) in all {
            for name in names(prefix, g.count) {
                k += 1;
                let node = (t != NodeType::Etcd).then(|| SimNode {
                    ready: Readiness::True,
                    boot_id: format!("boot-{name}-0"),
                    cpu: 0,
                    memory_kib: 0,
                    unschedulable: false,
                    annotations: BTreeMap::new(),
                });
                vms.insert(
                    name.clone(),
                    SimVm {
                        id: format!("vm-{k:03}"),
                        name: name.clone(),
                        node_type: t,
                        state: VmState::Running,
                        offering: offering(&g.offering),
                        groups: g.affinity_groups.clone(),
                        root_id: format!("vol-{k:03}"),
                        root_gb: g.root_disk_gb,
                        root_offering: g.root_disk_offering.clone(),
                        boot_id: format!("boot-{name}-0"),
                        boot_done_at: None,
                        booted: true,
                        stopped_at: None,
                        node,
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
                        member_address: String::new(),
                        stopping_until: None,
                    },
                );
            }
        }
        for o in &spec.nodes {
            let vm = vms
                .get_mut(&o.node)
                .ok_or_else(|| SpecError(format!("nodes: no node named '{}'", o.node)))?;
            if let Some(x) = &o.offering {
                vm.offering = x.clone();
            }
            if let Some(x) = o.root_disk_gb {
                vm.root_gb = x;
            }
            if let Some(x) = &o.affinity_groups {
                vm.groups = x.clone();
            }
            if let Some(x) = &o.ip {
                vm.ip = x.clone();
            }
            if let Some(x) = &o.member_name {
                vm.member_name = x.clone();
            }
            if let Some(x) = &o.member_address {
                vm.member_address = x.clone();
            }
            vm.unmatched = o.unmatched;
            if o.stopped {
                vm.external_down = true;
                vm.state = VmState::Stopped;
                vm.booted = false;
                vm.stopped_at = Some(Duration::ZERO);
                vm.stopped_boot = Some(vm.boot_id.clone());
            } else if o.restarting {
                // Started again by an earlier run: a new boot, not yet posted by the kubelet.
                vm.external_down = true;
                vm.stopped_boot = Some(vm.boot_id.clone());
                vm.boot_id = format!("boot-{}-r", vm.name);
                vm.booted = false;
                vm.boot_done_at = Some(Duration::from_secs(45));
            }
            if let Some(n) = vm.node.as_mut() {
                n.unschedulable = o.cordoned;
                n.annotations.extend(o.annotations.clone());
                if o.stopped {
                    n.ready = Readiness::Unknown;
                }
            }
        }
        let offerings = spec.offerings.clone();
        for vm in vms.values_mut() {
            if vm.member_address.is_empty() {
                vm.member_address = vm.ip.clone();
            }
            let Some(of) = offerings.iter().find(|x| x.id == vm.offering) else {
                return Err(SpecError(format!(
                    "node {}: no offering '{}'",
                    vm.name, vm.offering
                )));
            };
            if let Some(n) = vm.node.as_mut() {
                n.cpu = of.cpu_cores;
                n.memory_kib = reported_memory(of);
            }
        }
        let count = |t| vms.values().filter(|v: &&SimVm| v.node_type == t).count() as u32;
        let record = ClusterRecord {
            id: spec.id.clone(),
            name: spec.name.clone(),
            state: spec.state,
            service_offering_id: spec.service_offering.clone(),
            control_count: count(NodeType::Control),
            worker_count: count(NodeType::Worker),
            etcd_count,
            settings: spec.settings.clone(),
            cores: 0,
            memory_mb: 0,
            cancel: false,
            last_error: None,
            lease: None,
        };
        let mut world = World {
            now: Duration::ZERO,
            step: 0,
            rng: StdRng::seed_from_u64(seed),
            record,
            vms,
            offerings,
            disk_offerings: spec.disk_offerings.clone(),
            groups: spec.affinity_groups.clone(),
            pods: Vec::new(),
            pdbs: spec.pdbs.clone(),
            faults: spec
                .faults
                .iter()
                .map(|f| ArmedFault {
                    left: f.times(),
                    fault: f.clone(),
                })
                .collect(),
            crashed: false,
            store_down: false,
            trace: Vec::new(),
            violation: None,
            acts: Vec::new(),
            worker_budget: 1,
            max_unavailable: 1,
            phase: None,
            health_seen: (BTreeMap::new(), 0),
            api_seen: BTreeMap::new(),
            unhealthy_at: 0,
            last_load_step: 0,
            cks_state: "Running".to_string(),
            kubernetes_version: spec.kubernetes_version.clone(),
            autoscaling: spec.autoscaling,
            cloudstack_version: spec
                .cloudstack_version
                .as_deref()
                .map(|text| {
                    crate::model::CloudStackVersion::parse(text).ok_or_else(|| {
                        SpecError(format!(
                            "cloudstack_version: '{text}' is not a CloudStack release such as 4.21.0.0"
                        ))
                    })
                })
                .transpose()?,
            boots: 0,
            jobs: super::jobs::Jobs::new(spec.jobs.clone()),
            engines: Default::default(),
            gates: super::gates::Gates::new(spec.gates.clone()),
            epoch: spec.epoch()?,
            reboot_required: spec.reboot_required.iter().cloned().collect(),
            backing: None,
            windows: Vec::new(),
        };
        let (cores, mem) = world.capacity();
        world.record.cores = cores;
        world.record.memory_mb = mem;
        world.place_pods(spec);
        world.arm_node_faults();
        Ok(world)
    }
}
