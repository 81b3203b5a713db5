//! Upstream signatures, checked after the downloads and pulls: the cosign keyless signature of
//! every Kubernetes release binary (`<url>.sig` and `<url>.cert`, or `<url>.sigstore.json`, fetched
//! through the same [`crate::fetch::Fetcher`] as the file, so with its mirrors, retries and caches,
//! and verified from the file's SHA-256 taken as it streamed, so the binary is never read again)
//! and of every image whose registry has a policy (the `sha256-<hex>.sig` tag and the OCI referrers
//! of its digest, read with the same registry client as the pull). [`cks_signature`] does the
//! verification; this module fetches the material, applies `--signatures require|warn|off` and
//! returns what to record.
//!
//! Files: `settings` (the policies and their config), `verifier` (the trusted root and the
//! check), `files`, `material` (the files' signature material, fetched once as the plan
//! starts and checked from there), `images`, `host_binary`, `outcome` (the verdict of each artifact under the
//! mode).

mod files;
mod host_binary;
mod images;
mod material;
mod outcome;
mod settings;
mod verifier;

pub use cks_signature::{Mode, Policy};
pub use host_binary::{Cleared, NotRun};
pub use images::ImagesAhead;
pub use material::{FetchedMaterial, SignatureMaterial, Signed};
pub use outcome::{Checked, SignatureRefusals};
pub use settings::{
    IncompletePolicy, KUBERNETES_REGISTRY, PolicyInput, SignatureInputs, SignatureSettings,
};
pub use verifier::{TrustedRootError, Verifier};
