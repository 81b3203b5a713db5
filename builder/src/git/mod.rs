//! Listing a git remote's tags the way `git ls-remote --tags` does, without cloning: a small
//! protocol v2 `ls-refs` client (with `ref-prefix refs/tags/` and `peel`) over smart HTTP(S),
//! `git://` and local repositories, falling back to the v0 advertisement (and dumb HTTP) when
//! the server does not speak v2. Transient failures are retried like downloads.
//!
//! ```no_run
//! # async fn demo() -> anyhow::Result<()> {
//! let text = cks_builder::git::ls_remote_tags("https://github.com/kubernetes/autoscaler").await?;
//! assert!(text.lines().all(|l| l.contains("\trefs/tags/")));
//! # Ok(()) }
//! ```

mod answer;
mod daemon;
mod error;
mod http;
mod local;
mod pktline;
mod refs;

use std::path::PathBuf;

use anyhow::Context;

pub use daemon::DaemonUrl;
pub use error::GitError;
pub use refs::{RemoteRef, format_ls_remote, parse_dumb};

use crate::fetch::ClientOptions;
use crate::retry::RetryPolicy;

/// How remotes are reached.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LsRemoteOptions {
    /// Timeouts, the minimum rate and extra CA certificates (for https:// and, for the
    /// timeouts and the rate, git://).
    pub client: ClientOptions,
    /// How transient failures are retried.
    pub retry: RetryPolicy,
}

/// The kinds of remote spoken here.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Remote {
    Http,
    Daemon(DaemonUrl),
    Local(PathBuf),
}

fn classify(url: &str) -> Result<Remote, GitError> {
    if url.starts_with("http://") || url.starts_with("https://") {
        return Ok(Remote::Http);
    }
    if url.starts_with("git://") {
        return DaemonUrl::parse(url)
            .map(Remote::Daemon)
            .ok_or_else(|| GitError::UnsupportedUrl {
                url: url.to_string(),
            });
    }
    let path = PathBuf::from(url.strip_prefix("file://").unwrap_or(url));
    if path.is_dir() {
        return Ok(Remote::Local(path));
    }
    Err(GitError::UnsupportedUrl {
        url: url.to_string(),
    })
}

/// The tags of the remote at `url`, in the server's order, annotated ones with their peeled
/// object.
pub async fn list_tags(url: &str, options: &LsRemoteOptions) -> Result<Vec<RemoteRef>, GitError> {
    list_tags_using(None, url, options).await
}

/// Like [`list_tags`], reusing `client` for http(s) remotes (a [`crate::fetch::Fetcher`]'s, say)
/// instead of building one, which costs more than the listing itself; `options.client` then
/// only supplies the timeouts.
pub async fn list_tags_using(
    client: Option<&reqwest::Client>,
    url: &str,
    options: &LsRemoteOptions,
) -> Result<Vec<RemoteRef>, GitError> {
    let text = ls_remote_tags_using(client, url, options).await?;
    parse_dumb(&text).map_err(|e| http::read_error(url, e))
}

/// The tags of the remote at `url` as `git ls-remote --tags` prints them, read as the answer
/// arrives: besides one read and one packet, only the tags are held (see [`answer`]).
pub async fn ls_remote_tags_using(
    client: Option<&reqwest::Client>,
    url: &str,
    options: &LsRemoteOptions,
) -> Result<String, GitError> {
    let remote = classify(url)?;
    let built;
    let client = match (&remote, client) {
        (Remote::Http, None) => {
            built = options.client.build()?;
            Some(&built)
        }
        (_, client) => client,
    };
    let pace = options.client.pace();
    let git_limit = options
        .client
        .limits
        .get(cks_pinning::limits::LimitKind::Git);
    let outcome = options
        .retry
        .run(|_| async {
            match (&remote, client) {
                (Remote::Http, Some(client)) => http::list(client, url, pace, git_limit).await,
                (Remote::Daemon(daemon), _) => {
                    daemon::list(daemon, url, options.client.connect_timeout, pace, git_limit).await
                }
                (Remote::Local(path), _) => local::list(path, url).await,
                (Remote::Http, None) => Err(GitError::UnsupportedUrl {
                    url: url.to_string(),
                }),
            }
        })
        .await;
    outcome
        .map(|done| done.value.into_text())
        .map_err(|failed| failed.value)
}

/// Like [`ls_remote_tags`], with explicit options and a typed error.
pub async fn ls_remote_tags_with(url: &str, options: &LsRemoteOptions) -> Result<String, GitError> {
    ls_remote_tags_using(None, url, options).await
}

/// Lists the tags of the remote at `url` (smart HTTP(S), `git://` or a local path) as
/// `git ls-remote --tags` prints them: `<sha>\t<ref>` lines, with peeled `<ref>^{}` lines for
/// annotated tags.
pub async fn ls_remote_tags(url: &str) -> anyhow::Result<String> {
    ls_remote_tags_with(url, &LsRemoteOptions::default())
        .await
        .with_context(|| format!("listing the tags of {url}"))
}
