//! The downloader's view of a planned file: the URL rules themselves are in
//! [`cks_pinning::sources`]; this only says where in the staging tree each file goes.

use std::path::Path;

use anyhow::{Context, Result};
use cks_pinning::sources::Source;

use crate::fetch::FileSpec;

/// What the downloader needs to fetch `source` into `tree`.
pub fn file_spec(source: &Source, tree: &Path) -> FileSpec {
    FileSpec {
        name: source.iso_path.clone(),
        urls: source.urls.clone(),
        checksum: source.checksum.clone(),
        dest: tree.join(&source.iso_path),
        edit: source.edit.clone(),
    }
}

/// Makes the folder each of `specs` lands in.
pub fn create_parents(specs: &[FileSpec]) -> Result<()> {
    for parent in specs.iter().filter_map(|spec| spec.dest.parent()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use cks_pinning::sources::{Checksum, Edit, urls};
    use cks_pinning::version::KubeVersion;

    #[test]
    fn a_spec_keeps_the_urls_checksum_and_edit_and_lands_in_the_tree() {
        let k8s = KubeVersion::parse("1.33.13").expect("valid version");
        let units = urls::kubelet_units(&k8s);
        let spec = file_spec(&units[1], Path::new("/tree"));
        assert_eq!(spec.name, "10-kubeadm.conf");
        assert_eq!(spec.dest, Path::new("/tree/10-kubeadm.conf"));
        assert_eq!(spec.urls, units[1].urls);
        assert_eq!(spec.checksum, Checksum::None);
        assert_eq!(spec.edit, Some(Edit::usr_bin_to_opt_bin()));
    }
}
