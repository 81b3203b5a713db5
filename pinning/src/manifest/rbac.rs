//! The autoscaler's extra RBAC: what newer cluster-autoscaler releases read beyond the CloudStack
//! example's ClusterRole.

use super::error::ManifestError;
use super::objects::objects;

/// The name of the extra ClusterRole and its ClusterRoleBinding.
pub const EXTRA_RBAC_NAME: &str = "cluster-autoscaler-extra";

/// The text appended to the autoscaler manifest. It starts with a line break, so a manifest
/// without a trailing newline cannot glue `---` onto its last line.
pub const EXTRA_RBAC: &str = "
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: cluster-autoscaler-extra
  labels:
    k8s-addon: cluster-autoscaler.addons.k8s.io
    k8s-app: cluster-autoscaler
rules:
  - apiGroups: [\"storage.k8s.io\"]
    resources: [\"volumeattachments\"]
    verbs: [\"get\", \"list\", \"watch\"]
  - apiGroups: [\"resource.k8s.io\"]
    resources: [\"deviceclasses\", \"resourceslices\", \"resourceclaims\"]
    verbs: [\"get\", \"list\", \"watch\"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: cluster-autoscaler-extra
  labels:
    k8s-addon: cluster-autoscaler.addons.k8s.io
    k8s-app: cluster-autoscaler
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cluster-autoscaler-extra
subjects:
  - kind: ServiceAccount
    name: cluster-autoscaler
    namespace: kube-system
";

/// Appends [`EXTRA_RBAC`] to `text`. A manifest that already holds the extra ClusterRole is
/// returned unchanged, so the edit can be applied twice safely.
pub fn append_extra_rbac(text: &str) -> Result<String, ManifestError> {
    let present = objects(text)?
        .iter()
        .any(|object| object.kind == "ClusterRole" && object.name == EXTRA_RBAC_NAME);
    if present {
        return Ok(text.to_string());
    }
    let mut out = String::with_capacity(text.len() + EXTRA_RBAC.len());
    out.push_str(text);
    out.push_str(EXTRA_RBAC);
    Ok(out)
}
