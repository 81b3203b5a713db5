//! What the tarball check reads of a layout's `index.json`, typed.

/// What the check reads of the layout's `index.json`: the first entry's media type (the rest
/// of the file is compared byte for byte with what the writer writes).
#[derive(serde::Deserialize)]
pub(super) struct IndexJson {
    #[serde(default)]
    pub(super) manifests: Vec<IndexEntry>,
}

/// An entry of `index.json`.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct IndexEntry {
    #[serde(default)]
    pub(super) media_type: Option<String>,
}
