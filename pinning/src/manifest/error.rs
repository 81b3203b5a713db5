//! Why a manifest cannot be read or edited.

use thiserror::Error;

use crate::image::ImageRefError;

/// Why a manifest cannot be read or edited. Callers add the manifest's name (file or URL).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ManifestError {
    /// The text is not YAML.
    #[error("not valid YAML at line {line}, column {column}: {message}")]
    Yaml {
        /// The 1-based line.
        line: usize,
        /// The 1-based column.
        column: usize,
        /// The parser's description.
        message: String,
    },
    /// A container's `image` is empty or not a string.
    #[error("the container image at line {line} is not an image reference: {source_text:?}")]
    ImageNotString {
        /// The 1-based line.
        line: usize,
        /// The value's source text.
        source_text: String,
    },
    /// A container's `image` is not a valid reference.
    #[error("the container image at line {line} is malformed: {source}")]
    ImageRef {
        /// The 1-based line.
        line: usize,
        /// Why the reference is malformed.
        source: ImageRefError,
    },
    /// The manifest does not name exactly one container image.
    #[error(
        "expected exactly one container image to pin, found {found}{}; the upstream layout changed, so check the manifest and update the pin",
        if lines.is_empty() { String::new() } else { format!(" (lines {})", lines.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")) }
    )]
    ImageCount {
        /// How many container images the manifest names.
        found: usize,
        /// Their 1-based lines.
        lines: Vec<usize>,
    },
    /// A value to edit is written in a form the splice does not handle (block or multi-line).
    #[error(
        "the {what} at line {line} is written as {source_text:?}; only a one-line plain or quoted value can be edited in place"
    )]
    ScalarStyle {
        /// What was being edited.
        what: String,
        /// The 1-based line.
        line: usize,
        /// The value's source text.
        source_text: String,
    },
    /// The autoscaler manifest lacks the `--nodes` placeholder argument.
    #[error(
        "the autoscaler manifest has no `{placeholder}` argument, which CloudStack fills in per cluster; the upstream layout changed, so check the manifest"
    )]
    MissingPlaceholder {
        /// The placeholder looked for.
        placeholder: &'static str,
    },
    /// An edit changed the placeholders.
    #[error("the edit changed the `--nodes` placeholders: {before} before, {after} after")]
    PlaceholderLost {
        /// Count before the edit.
        before: usize,
        /// Count after the edit.
        after: usize,
    },
    /// A document is not a Kubernetes object.
    #[error("document {document} (line {line}) is not a Kubernetes object: it has no {missing}")]
    NotAnObject {
        /// The 1-based index among non-empty documents.
        document: usize,
        /// The 1-based line where it starts.
        line: usize,
        /// The missing field.
        missing: &'static str,
    },
    /// Mappings and sequences nested deeper than [`MAX_DEPTH`].
    #[error(
        "nesting deeper than {limit} levels at line {line}; no Kubernetes manifest nests this deep"
    )]
    TooDeep {
        /// The 1-based line where the limit was passed.
        line: usize,
        /// The limit.
        limit: usize,
    },
    /// Aliases that copy more than [`MAX_ALIAS_NODES`] nodes (an alias bomb).
    #[error(
        "aliases copying more than {limit} nodes by line {line}; no Kubernetes manifest expands like this"
    )]
    AliasBomb {
        /// The 1-based line where the limit was passed.
        line: usize,
        /// The limit.
        limit: u64,
    },
    /// A document is not a Kubernetes object (no `apiVersion` or `kind`), or there is none.
    #[error(
        "it holds {held}, not Kubernetes objects (every document needs apiVersion and kind); check that the URL serves the manifest"
    )]
    NotManifest {
        /// What the text holds, e.g. "a JSON document with keys name, version".
        held: String,
    },
    /// A manifest that must run containers names no image.
    #[error(
        "its {objects} Kubernetes object(s) name no container image; a {role} manifest runs at least one, so check that the URL serves the manifest"
    )]
    NoImages {
        /// The manifest's role (network, dashboard, ...).
        role: &'static str,
        /// How many objects it holds.
        objects: usize,
    },
    /// An edit's result failed its own check.
    #[error("{edit} gave an unexpected result: {detail}")]
    EditCheck {
        /// The edit.
        edit: &'static str,
        /// What was wrong.
        detail: String,
    },
}
