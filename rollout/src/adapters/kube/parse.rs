//! Turning the API's nodes ([`Node`]) and pod JSON into the engine's model, and naming the budget behind
//! a 429 eviction answer.

use cks_discovery::kube_node::Node;

use super::answer;

use crate::model::{NodeStatus, Pod, Readiness};

/// Whole cores from a quantity like `4`, `4000m`.
fn cpu_cores(q: &str) -> u32 {
    match q.strip_suffix('m') {
        Some(milli) => milli.parse::<u64>().map_or(0, |m| (m / 1000) as u32),
        None => q.parse::<f64>().map_or(0, |c| c as u32),
    }
}

/// KiB from a memory quantity like `8388608Ki`, `8Gi`, `8589934592`.
fn memory_kib(q: &str) -> u64 {
    let units: [(&str, u64); 8] = [
        ("Ki", 1024),
        ("Mi", 1024 << 10),
        ("Gi", 1024 << 20),
        ("Ti", 1024 << 30),
        ("k", 1000),
        ("M", 1_000_000),
        ("G", 1_000_000_000),
        ("T", 1_000_000_000_000),
    ];
    for (suffix, bytes) in units {
        if let Some(n) = q.strip_suffix(suffix) {
            return n
                .parse::<u64>()
                .map_or(0, |n| n.saturating_mul(bytes) / 1024);
        }
    }
    q.parse::<u64>().map_or(0, |b| b / 1024)
}

/// A node's status, as the engine sees it, from the API's node.
pub fn node(node: Node) -> NodeStatus {
    let ready = match node.ready() {
        Some("True") => Readiness::True,
        Some("False") => Readiness::False,
        _ => Readiness::Unknown,
    };
    let capacity = |key: &str| node.status.capacity.get(key).map(String::as_str);
    NodeStatus {
        ready,
        capacity_cpu: capacity("cpu").map_or(0, cpu_cores),
        capacity_memory_kib: capacity("memory").map_or(0, memory_kib),
        boot_id: node.status.node_info.boot_id,
        unschedulable: node.spec.unschedulable,
        annotations: node.metadata.annotations,
        name: node.metadata.name,
    }
}

/// A pod, as the engine sees it; `None` for a finished pod (Succeeded or Failed), which a
/// drain ignores.
pub fn pod(pod: answer::Pod) -> Option<Pod> {
    if matches!(pod.status.phase.as_str(), "Succeeded" | "Failed") {
        return None;
    }
    let daemonset = pod
        .metadata
        .owners
        .iter()
        .any(|r| r.kind == "DaemonSet" && r.controller != Some(false));
    let mirror = pod
        .metadata
        .annotations
        .contains_key("kubernetes.io/config.mirror");
    let namespace = match pod.metadata.namespace {
        namespace if namespace.is_empty() => "default".to_string(),
        namespace => namespace,
    };
    Some(Pod {
        namespace,
        name: pod.metadata.name,
        node: pod.spec.node_name,
        daemonset,
        mirror,
    })
}

/// The budget name in a 429 Status: "The disruption budget NAME needs ...".
pub fn budget_in_status(status: &answer::Status) -> Option<String> {
    status.details.causes.iter().find_map(|cause| {
        let message = cause.message.as_deref()?;
        let rest = message.strip_prefix("The disruption budget ")?;
        rest.split_whitespace().next().map(str::to_string)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities() {
        assert_eq!(cpu_cores("4"), 4);
        assert_eq!(cpu_cores("3500m"), 3);
        assert_eq!(memory_kib("8388608Ki"), 8_388_608);
        assert_eq!(memory_kib("8Gi"), 8_388_608);
        assert_eq!(memory_kib("1048576"), 1024);
    }
}
