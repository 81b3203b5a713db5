//! Text-preserving manifest edits: YAML is parsed (with saphyr, which keeps each node's source
//! span) only to validate and to find things; edits splice the text, so comments, quoting, key
//! order and placeholders survive byte for byte outside the edited spans.
//!
//! ```
//! use cks_pinning::manifest;
//! let text = "# keep me\nkind: Pod\nspec:\n  containers:\n    - image: 'nginx' # and me\n      imagePullPolicy: Always\n";
//! assert_eq!(manifest::images(text).expect("valid"), ["nginx"]);
//! let edited = manifest::set_pull_policy(text).expect("valid");
//! assert_eq!(edited, text.replace("Always", "IfNotPresent"));
//! ```

mod document;
mod error;
mod guard;
mod headlamp;
mod images;
mod objects;
mod pin;
mod placeholders;
mod pull_policy;
mod rbac;
mod set_image;
mod validate;

pub use error::ManifestError;
pub use guard::{MAX_ALIAS_NODES, MAX_DEPTH};
pub use headlamp::pin_headlamp;
pub use images::{image_refs, images};
pub use objects::{Object, objects};
pub use pin::{pin_autoscaler, pin_ccm};
pub use placeholders::{NODES_PLACEHOLDER, count_placeholders, require_placeholders};
pub use pull_policy::{IF_NOT_PRESENT, set_pull_policy};
pub use rbac::{EXTRA_RBAC, EXTRA_RBAC_NAME, append_extra_rbac};
pub use set_image::set_image;
pub use validate::{Role, validate};
