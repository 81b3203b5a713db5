//! `SHA256SUMS-<minor>`: the ISOs of one minor in `sha256sum -c` form (`<hex>  <file>`), by
//! file name.

use std::collections::BTreeMap;

use cks_pinning::catalog::CatalogIso;

/// Each minor with its checksum file's text.
pub fn render(isos: &[CatalogIso]) -> BTreeMap<String, String> {
    let mut lines: BTreeMap<String, Vec<(&str, &str)>> = BTreeMap::new();
    for iso in isos {
        lines
            .entry(iso.minor.clone())
            .or_default()
            .push((&iso.file, &iso.sha256));
    }
    lines
        .into_iter()
        .map(|(minor, mut files)| {
            files.sort();
            let text = files
                .iter()
                .map(|(file, sha256)| format!("{sha256}  {file}\n"))
                .collect();
            (minor, text)
        })
        .collect()
}
