//! The calls about a cluster's VMs: listing them and their root volumes, stopping and starting
//! them, and changing what they run on (service offering, root disk size, affinity groups); the
//! offerings and affinity groups they may take.

use serde_json::Value;

use crate::client::CloudStackClient;
use crate::error::CloudStackError;
use crate::owner::owned_by;
use crate::types::{AffinityGroup, DiskOffering, ServiceOffering, VirtualMachine, Volume};

/// `state=all` of the offering lists: Active and Inactive offerings.
const ALL_STATES: &str = "all";

impl CloudStackClient {
    /// The VMs whose names contain `keyword` (CKS names a cluster's VMs `<cluster>-control-…`,
    /// `<cluster>-node-…`, `<cluster>-etcd-…`), across all accounts and projects the key may see.
    pub fn list_vms(&self, keyword: &str) -> Result<Vec<VirtualMachine>, CloudStackError> {
        self.list_every_owner(
            "listVirtualMachines",
            "virtualmachine",
            &[("keyword", keyword.to_string())],
            |vm: &VirtualMachine| vm.id.as_str(),
        )
    }

    /// VMs by id, owned by the project `project_id` (a cluster's
    /// [`crate::cluster::KubernetesCluster::project_id`]) or, when `None`, by an account.
    pub fn list_vms_by_id(
        &self,
        ids: &[String],
        project_id: Option<&str>,
    ) -> Result<Vec<VirtualMachine>, CloudStackError> {
        let mut params = vec![("ids", ids.join(","))];
        params.extend(owned_by(project_id));
        self.list("listVirtualMachines", "virtualmachine", &params)
    }

    /// The volumes attached to a VM owned by the project `project_id` or, when `None`, by an
    /// account.
    pub fn list_volumes(
        &self,
        vm_id: &str,
        project_id: Option<&str>,
    ) -> Result<Vec<Volume>, CloudStackError> {
        let mut params = vec![("virtualmachineid", vm_id.to_string())];
        params.extend(owned_by(project_id));
        self.list("listVolumes", "volume", &params)
    }

    /// The root volume of a VM ([`Self::list_volumes`]).
    pub fn root_volume(
        &self,
        vm_id: &str,
        project_id: Option<&str>,
    ) -> Result<Volume, CloudStackError> {
        self.list_volumes(vm_id, project_id)?
            .into_iter()
            .find(|v| v.kind.eq_ignore_ascii_case("ROOT"))
            .ok_or_else(|| CloudStackError::BadResponse {
                command: "listVolumes".to_string(),
                detail: format!("VM {vm_id} has no ROOT volume"),
            })
    }

    /// Stops a VM and waits until it is stopped.
    pub fn stop_vm(&self, vm_id: &str) -> Result<VirtualMachine, CloudStackError> {
        let result = self.call_async("stopVirtualMachine", &[("id", vm_id.to_string())])?;
        Self::one("stopVirtualMachine", result, "virtualmachine")
    }

    /// Starts a VM and waits until it runs.
    pub fn start_vm(&self, vm_id: &str) -> Result<VirtualMachine, CloudStackError> {
        let result = self.call_async("startVirtualMachine", &[("id", vm_id.to_string())])?;
        Self::one("startVirtualMachine", result, "virtualmachine")
    }

    /// Sets a stopped VM's service offering (`changeServiceForVirtualMachine`).
    pub fn change_service_offering(
        &self,
        vm_id: &str,
        offering_id: &str,
    ) -> Result<VirtualMachine, CloudStackError> {
        let command = "changeServiceForVirtualMachine";
        let result = self.call(
            command,
            &[
                ("id", vm_id.to_string()),
                ("serviceofferingid", offering_id.to_string()),
            ],
        )?;
        Self::one(command, result, "virtualmachine")
    }

    /// Changes a running VM's service offering (`scaleVirtualMachine`, where the hypervisor
    /// scales live).
    pub fn scale_vm(&self, vm_id: &str, offering_id: &str) -> Result<Value, CloudStackError> {
        self.call_async(
            "scaleVirtualMachine",
            &[
                ("id", vm_id.to_string()),
                ("serviceofferingid", offering_id.to_string()),
            ],
        )
    }

    /// Grows a volume to `size_gb` (never shrinks: `shrinkok=false`).
    pub fn resize_volume(&self, volume_id: &str, size_gb: u64) -> Result<Volume, CloudStackError> {
        let command = "resizeVolume";
        let result = self.call_async(
            command,
            &[
                ("id", volume_id.to_string()),
                ("size", size_gb.to_string()),
                ("shrinkok", "false".into()),
            ],
        )?;
        Self::one(command, result, "volume")
    }

    /// Replaces a stopped VM's affinity groups with `group_ids`.
    pub fn update_vm_affinity_groups(
        &self,
        vm_id: &str,
        group_ids: &[String],
    ) -> Result<VirtualMachine, CloudStackError> {
        let command = "updateVMAffinityGroup";
        let result = self.call_async(
            command,
            &[
                ("id", vm_id.to_string()),
                ("affinitygroupids", group_ids.join(",")),
            ],
        )?;
        Self::one(command, result, "virtualmachine")
    }

    /// Every service offering, Inactive ones too (`state=all`: from 4.19 the list shows only
    /// Active offerings unless asked, and a VM may still run on one made Inactive since).
    pub fn list_service_offerings(&self) -> Result<Vec<ServiceOffering>, CloudStackError> {
        self.list(
            "listServiceOfferings",
            "serviceoffering",
            &[("state", ALL_STATES.to_string())],
        )
    }

    /// Every disk offering, Inactive ones too (`state=all`, as for service offerings).
    pub fn list_disk_offerings(&self) -> Result<Vec<DiskOffering>, CloudStackError> {
        self.list(
            "listDiskOfferings",
            "diskoffering",
            &[("state", ALL_STATES.to_string())],
        )
    }

    /// Every affinity group the key may see, the accounts' and the projects'.
    pub fn list_affinity_groups(&self) -> Result<Vec<AffinityGroup>, CloudStackError> {
        self.list_every_owner(
            "listAffinityGroups",
            "affinitygroup",
            &[],
            |g: &AffinityGroup| g.id.as_str(),
        )
    }
}
