//! `cks-iso build`: the whole ISO, planned first, then downloaded, pulled, pinned and packed.
//!
//! [`resolve`] computes the [`Plan`] (every version, tag, commit, URL and image), fetching only
//! the manifests and a kubeadm to list images; [`execute`] carries it out in a staging directory
//! that disappears however the build ends. [`build`] does both. The rules (which files, which
//! URLs, which images) are [`cks_pinning`]'s; this module only orders the work.
//!
//! Files: `options` (flags, environment and config → [`Options`]), `front` (the front stage:
//! inputs and lock → typed options once, each release pinned on the way), `fit` (the files a build
//! will write, for the CloudStack line check before any download), `release` (the minors `cks-iso release` builds), `release_existing` (an ISO already in its folder, before it may be kept), `release_check` (whether `release --dry-run` would keep it), `releases` (autoscaler and
//! CCM), `resolve` (the plan), `lookups` (its small requests, as one bounded pool), `manifests`
//! (the fetched manifests checked and pinned, their images), `kube_pin` (a minor or `stable` resolved to a release), `tool_pin` (crictl and CNI defaults), `release_matrix` (the minors and arches of `cks-iso release --matrix`), `kubeadm` (kubeadm's image list) and `confined` (how it runs), `sources` (a planned file as a
//! download), `head_start` (the large files begun while planning) and `near_end` (begun as kubeadm's
//! download nears its end), `execute` (the second phase) and
//! `execution` (its settings), `record`
//! (`versions.txt`), `sbom` (the SPDX document), `summary`, `lock`,
//! `iso_recipe` (the recipe key finished ISOs are kept by), `iso_reuse` (a finished ISO taken from a cache, checked),
//! `staging`, `preflight` (OUTPUT_PATH and the lock path, checked before the plan), `output_lock` (one writer per OUTPUT_PATH), `run` (both
//! phases).

mod confined;
mod execute;
mod execution;
mod fit;
mod front;
mod head_start;
mod iso_recipe;
mod iso_reuse;
mod kube_pin;
mod kubeadm;
mod lock;
mod lookups;
mod manifests;
mod near_end;
mod options;
mod output_lock;
mod packed_facts;
mod plan;
mod preflight;
mod record;
mod release;
mod release_check;
mod release_existing;
mod release_matrix;
mod releases;
mod resolve;
mod room;
mod run;
mod sbom;
mod signatures_ahead;
mod sources;
mod staging;
mod summary;
mod tool_pin;

pub use crate::progress::Tally;
pub use confined::{
    ConfinedError, DEADLINE as CONFINED_DEADLINE, OUTPUT_LIMIT as CONFINED_OUTPUT_LIMIT,
};
pub use execute::execute;
pub use execution::{Execution, Observer};
pub use front::{Front, Kubernetes, front, with_kubernetes};
pub use head_start::{Downloads, Go, HeadStart, beside, head_start};
pub use kube_pin::{KubePin, RELEASE_SERVER, pin_kubernetes, read_release};
pub use kubeadm::{KubeadmError, Listed, kubeadm_images};
pub use lock::{LOCK_FORMAT, Lock, StagedLock};
pub use options::{EtcdAsked, Inputs, LimitInput, Options, OptionsError, Versions};
pub use output_lock::{OUTPUT_LOCK_NAME, OutputLock, OutputLockError};
pub use plan::{AutoscalerPin, CcmPin, HeadlampPin, Plan};
pub use preflight::{OutputPath, PreflightError, check_cache_dir, check_lock_path};
pub use release::{Minors, release_minors, release_version, release_versions};
pub use release_check::{NotBuiltHere, would_keep};
pub use release_existing::{InFolder, look as look_in_folder};
pub use release_matrix::{Matrix, MatrixRelease};
pub use releases::{Reach, Releases, TagSource, resolve_releases};
pub use resolve::{Resolved, head_start_specs, resolve};
pub use room::{NoRoom, Place};
pub use run::{Outcome, Request, build, pull_options};
pub use sbom::beside as sbom_beside;
pub use sbom::tool as sbom_tool;
pub use sources::file_spec;
pub use staging::Staging;
pub use summary::{ExistingIso, MirroredFile, Summary, mirrored_files};
pub use tool_pin::{CNI_PLUGINS_REPO, CRI_TOOLS_REPO, Tools, kubeadm_etcd_line, pin_tools};
