//! The autoscaler's `--nodes=<min>:<max>:<cluster-id>` placeholders, which CloudStack fills in
//! when it deploys the autoscaler; they must survive every edit.

use saphyr::{MarkedYaml, Scalar, YamlData};

use super::document::{Parsed, for_each_entry, items};
use super::error::ManifestError;

/// The argument CloudStack rewrites with a cluster's node group when it enables autoscaling.
pub const NODES_PLACEHOLDER: &str = "--nodes=<min>:<max>:<cluster-id>";

/// How many container `command`/`args` items are exactly [`NODES_PLACEHOLDER`].
pub fn count_placeholders(text: &str) -> Result<usize, ManifestError> {
    let parsed = Parsed::parse(text)?;
    let mut count = 0;
    let mut visit = |key: &str, value: &MarkedYaml<'_>| {
        if key == "command" || key == "args" {
            count += items(value)
                .iter()
                .filter(|item| {
                    matches!(&item.data, YamlData::Value(Scalar::String(s)) if s == NODES_PLACEHOLDER)
                })
                .count();
        }
    };
    for document in parsed.objects() {
        for_each_entry(document, &mut visit);
    }
    Ok(count)
}

/// Refuses an autoscaler manifest without the placeholder argument.
pub fn require_placeholders(text: &str) -> Result<usize, ManifestError> {
    match count_placeholders(text)? {
        0 => Err(ManifestError::MissingPlaceholder {
            placeholder: NODES_PLACEHOLDER,
        }),
        count => Ok(count),
    }
}
