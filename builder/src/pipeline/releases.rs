//! The first step of a plan, shared by `cks-iso build` and `cks-iso resolve`: the autoscaler
//! release (from the repository's tags, through a mirror when one matches) and the CCM tag.

use anyhow::{Context, Result};
use cks_pinning::autoscaler::{AutoscalerError, RemoteTags, resolve};
use cks_pinning::version::KubeVersion;

use super::plan::{AutoscalerPin, CcmPin};
use crate::fetch::{ClientOptions, Mirrors};
use crate::git::{LsRemoteOptions, ls_remote_tags_with};
use crate::retry::RetryPolicy;

/// Where the autoscaler's tags are read from.
#[derive(Debug, Clone)]
pub enum TagSource {
    /// A repository (URL or local path), listed with git ls-remote semantics after the mirror
    /// rewrites.
    Repository(String),
    /// A listing as `git ls-remote --tags` prints it, read from `source` (named in errors).
    Listing {
        /// The listing's text.
        text: String,
        /// Where it came from.
        source: String,
    },
}

fn choosing(source: &str) -> String {
    format!("choosing the cluster-autoscaler release from {source}")
}

/// How to reach a repository: mirrors, TLS and timeouts, retries.
#[derive(Debug, Clone, Default)]
pub struct Reach {
    /// Base-URL rewrites (`--mirror`).
    pub mirrors: Mirrors,
    /// Timeouts and extra CA certificates.
    pub client: ClientOptions,
    /// How transient failures are retried.
    pub retry: RetryPolicy,
}

/// The releases a build for one Kubernetes version bundles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Releases {
    /// The autoscaler release, its tag, commit and image.
    pub autoscaler: AutoscalerPin,
    /// The CCM tag and image.
    pub ccm: CcmPin,
    /// Things the user should know (an override of another minor, ...).
    pub warnings: Vec<String>,
}

/// Chooses the autoscaler release for `kubernetes` from `tags` (`autoscaler` overrides the
/// newest of the minor) and pins the CCM (`ccm` overrides the default tag).
pub async fn resolve_releases(
    kubernetes: &KubeVersion,
    tags: &TagSource,
    reach: &Reach,
    autoscaler: Option<&str>,
    ccm: Option<&str>,
) -> Result<Releases> {
    // The text is dropped once parsed: only the compact tags are held while choosing.
    let parse = |text: &str, source: &str| {
        RemoteTags::parse(text)
            .map_err(AutoscalerError::from)
            .with_context(|| choosing(source))
    };
    let (tags, source) = match tags {
        TagSource::Listing { text, source } => (parse(text, source)?, source.clone()),
        TagSource::Repository(repo) => {
            let url = reach.mirrors.rewrite(repo);
            let options = LsRemoteOptions {
                client: reach.client.clone(),
                retry: reach.retry.clone(),
            };
            let text = ls_remote_tags_with(&url, &options)
                .await
                .with_context(|| format!("listing the autoscaler's release tags at {url}"))?;
            (parse(&text, &url)?, url)
        }
    };
    let release = resolve(&tags, kubernetes, autoscaler).with_context(|| choosing(&source))?;
    drop(tags);
    let image = release
        .image()
        .context("naming the cluster-autoscaler image")?;
    let ccm = cks_pinning::ccm::pin(ccm).context("choosing the CCM release (CCM_VERSION)")?;
    Ok(Releases {
        autoscaler: AutoscalerPin {
            tag: release.tag.clone(),
            version: release.version.clone(),
            commit: release.commit.clone(),
            image,
        },
        ccm: CcmPin {
            tag: ccm.tag.clone(),
            image: ccm.image.clone(),
        },
        warnings: release.warnings.iter().map(ToString::to_string).collect(),
    })
}
