//! The parts of CloudStack's JSON answers the rollout reads.

use serde::Deserialize;

/// An affinity group as listed on a VM or by `listAffinityGroups`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct AffinityGroup {
    /// Its id.
    pub id: String,
    /// Its name.
    #[serde(default)]
    pub name: String,
    /// `host anti-affinity`, `host affinity`, `ExplicitDedication`, ...
    #[serde(rename = "type", default)]
    pub kind: String,
}

impl AffinityGroup {
    /// Whether CloudStack itself added this group to dedicate hosts (kept across changes).
    pub fn is_dedication(&self) -> bool {
        self.kind.eq_ignore_ascii_case("ExplicitDedication")
    }
}

/// A VM from `listVirtualMachines` or an async job's result.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct VirtualMachine {
    /// Its id.
    #[serde(deserialize_with = "crate::scalar::text")]
    pub id: String,
    /// Its name.
    #[serde(default)]
    pub name: String,
    /// `Running`, `Stopped`, `Starting`, `Stopping`, ...
    #[serde(default)]
    pub state: String,
    /// Its service offering's id.
    #[serde(rename = "serviceofferingid", default)]
    pub service_offering_id: String,
    /// Its service offering's name.
    #[serde(rename = "serviceofferingname", default)]
    pub service_offering_name: String,
    /// CPU cores.
    #[serde(rename = "cpunumber", default)]
    pub cpus: u32,
    /// Memory in MiB.
    #[serde(rename = "memory", default)]
    pub memory_mib: u64,
    /// Its affinity groups.
    #[serde(rename = "affinitygroup", default)]
    pub affinity_groups: Vec<AffinityGroup>,
    /// Its NICs.
    #[serde(rename = "nic", default)]
    pub nics: Vec<Nic>,
}

impl VirtualMachine {
    /// The IP addresses of its NICs, IPv4 and IPv6, in NIC order.
    pub fn addresses(&self) -> Vec<String> {
        self.nics
            .iter()
            .flat_map(|n| [n.ip_address.clone(), n.ip6_address.clone()])
            .flatten()
            .collect()
    }
}

/// A NIC of a VM (`nic[]` of `listVirtualMachines`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Nic {
    /// Its IPv4 address.
    #[serde(
        rename = "ipaddress",
        default,
        deserialize_with = "crate::scalar::optional_text"
    )]
    pub ip_address: Option<String>,
    /// Its IPv6 address.
    #[serde(
        rename = "ip6address",
        default,
        deserialize_with = "crate::scalar::optional_text"
    )]
    pub ip6_address: Option<String>,
}

/// A volume from `listVolumes`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Volume {
    /// Its id.
    pub id: String,
    /// Its name.
    #[serde(default)]
    pub name: String,
    /// `ROOT` or `DATADISK`.
    #[serde(rename = "type", default)]
    pub kind: String,
    /// Size in bytes.
    #[serde(default)]
    pub size: u64,
    /// The VM it is attached to.
    #[serde(rename = "virtualmachineid", default)]
    pub vm_id: Option<String>,
    /// Its disk offering's id.
    #[serde(rename = "diskofferingid", default)]
    pub disk_offering_id: Option<String>,
}

impl Volume {
    /// The size in whole GiB (what `resizeVolume` takes as `size`).
    pub fn size_gb(&self) -> u64 {
        self.size / (1024 * 1024 * 1024)
    }
}

/// A service offering.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ServiceOffering {
    /// Its id (empty when the answer names none).
    #[serde(default, deserialize_with = "crate::scalar::text")]
    pub id: String,
    /// Its name.
    #[serde(default)]
    pub name: String,
    /// CPU cores.
    #[serde(
        rename = "cpunumber",
        default,
        deserialize_with = "crate::scalar::small_count"
    )]
    pub cpus: u32,
    /// Memory in MiB.
    #[serde(rename = "memory", default, deserialize_with = "crate::scalar::count")]
    pub memory_mib: u64,
    /// A custom offering (CPU and memory chosen per VM), which CKS refuses.
    #[serde(
        rename = "iscustomized",
        default,
        deserialize_with = "crate::scalar::flag"
    )]
    pub customized: bool,
    /// `Active` or `Inactive` (empty when the answer leaves it out, as before 4.19).
    #[serde(default, deserialize_with = "crate::scalar::text")]
    pub state: String,
}

impl ServiceOffering {
    /// Whether CloudStack marks it Inactive: VMs may still run on it, none may move onto it.
    pub fn is_inactive(&self) -> bool {
        self.state.eq_ignore_ascii_case("Inactive")
    }
}

/// A disk offering.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct DiskOffering {
    /// Its id.
    pub id: String,
    /// Its name.
    #[serde(default)]
    pub name: String,
    /// Its fixed size in GB (0 when custom).
    #[serde(rename = "disksize", default)]
    pub size_gb: u64,
    /// Whether the size is chosen per volume.
    #[serde(rename = "iscustomized", default)]
    pub customized: bool,
}
