//! The Kubernetes objects of a manifest: kind, name and namespace of each document.

use super::document::{Parsed, get, get_str};
use super::error::ManifestError;

/// One object of a manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Object {
    /// `apiVersion`.
    pub api_version: String,
    /// `kind`.
    pub kind: String,
    /// `metadata.name`.
    pub name: String,
    /// `metadata.namespace`, if set.
    pub namespace: Option<String>,
}

/// The objects of every non-empty document, in order. A document without `apiVersion`, `kind`
/// or `metadata.name` is refused.
pub fn objects(text: &str) -> Result<Vec<Object>, ManifestError> {
    let parsed = Parsed::parse(text)?;
    parsed
        .objects()
        .enumerate()
        .map(|(index, document)| {
            let field = |value: Option<&str>, name: &'static str| {
                value.map(str::to_string).ok_or(ManifestError::NotAnObject {
                    document: index + 1,
                    line: document.span.start.line(),
                    missing: name,
                })
            };
            let metadata = get(document, "metadata");
            Ok(Object {
                api_version: field(get_str(document, "apiVersion"), "apiVersion")?,
                kind: field(get_str(document, "kind"), "kind")?,
                name: field(metadata.and_then(|m| get_str(m, "name")), "metadata.name")?,
                namespace: metadata
                    .and_then(|m| get_str(m, "namespace"))
                    .map(str::to_string),
            })
        })
        .collect()
}
