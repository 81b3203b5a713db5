//! Fetching one file of a plan: the store first (the content cache, then the shared tier), then each candidate URL in order
//! (the next only after a 404), each attempt retried (request, status, then the stream and the checksum file at once,
//! verify; a body that broke resumes with `Range` from the bytes already hashed), then the edit
//! and the rename into place.

use std::path::Path;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::OnceCell;

use super::checksum::{is_sha256_hex, published_digest};
use super::error::FetchError;
use super::error::FileError;
use super::fetcher::Fetcher;
use super::http::{Downloaded, get_text, temp_in};
use super::local::{copy_hashing, local_path};
use super::resume::{BodyTarget, Resume, request_rest, stream_resuming};
use super::spec::{FetchedFile, FileSpec};
use crate::artifact::ChecksumStatus;
use cks_pinning::limits::LimitKind;
use cks_pinning::sources::Checksum;
use cks_pinning::sources::Edit;

use crate::http::HttpError;

/// The expected digest of a candidate and where it came from.
type Expected = Option<(String, String)>;

/// One candidate URL of a file and what the attempts on it share.
struct Candidate<'a> {
    /// The URL as the plan lists it.
    url: &'a str,
    /// The URL asked (after the mirror table's rewrite).
    used: String,
    /// The published digest, fetched once for all attempts.
    expected: OnceCell<Expected>,
    /// The bytes an earlier attempt received, so the next asks only for the rest (`Range`).
    resume: Resume,
}

/// Where the bytes of a file came from, for its record.
pub(super) struct Origin {
    pub(super) url: String,
    pub(super) url_used: String,
    pub(super) checksum: ChecksumStatus,
    pub(super) from_cache: bool,
    pub(super) attempts: u32,
}

/// The file name at the end of a URL (query and fragment dropped).
fn url_file_name(url: &str) -> &str {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    path.rsplit('/').next().unwrap_or(path)
}

impl Fetcher {
    /// Fetches `spec`; see the module documentation for the order of things.
    pub(super) async fn fetch_file(&self, spec: &FileSpec) -> Result<FetchedFile, FileError> {
        let fail = |url: &str, attempts: u32, error: FetchError| FileError {
            file: spec.name.clone(),
            url: url.to_string(),
            attempts,
            error,
        };
        if spec.urls.is_empty() {
            let error = FetchError::NoUrl {
                file: spec.name.clone(),
            };
            return Err(fail("", 0, error));
        }
        if let Checksum::Pinned { sha256 } = &spec.checksum
            && !is_sha256_hex(sha256)
        {
            let error = FetchError::BadDigest {
                file: spec.name.clone(),
                digest: sha256.clone(),
            };
            return Err(fail(&spec.urls[0], 0, error));
        }
        let dir = spec
            .dest
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let dest_name = spec
            .dest
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "download".to_string());

        if let Some((got, origin)) = self
            .take_from_store(spec, dir, &dest_name)
            .await
            .map_err(|(url, e)| fail(&url, 0, e))?
        {
            let url = origin.url.clone();
            return self
                .finish(spec, got, origin, dir, &dest_name)
                .await
                .map_err(|e| fail(&url, 0, e));
        }

        let mut tried = Vec::new();
        for url in &spec.urls {
            if let Some(path) = local_path(url).map_err(|e| fail(url, 0, e))? {
                return self
                    .copy_local(spec, url, &path, dir, &dest_name)
                    .await
                    .map_err(|e| fail(url, 1, e));
            }
            let candidate = Candidate {
                url,
                used: self.options.mirrors.rewrite(url),
                expected: OnceCell::new(),
                resume: Resume::default(),
            };
            let outcome = self
                .options
                .retry
                .run(|_| self.attempt(spec, &candidate, dir, &dest_name))
                .await;
            let used = candidate.used;
            match outcome {
                Ok(done) => {
                    let (got, checksum) = done.value;
                    self.keep_in_store(url, &used, &got, &checksum)
                        .await
                        .map_err(|e| fail(url, done.attempts, e))?;
                    let origin = Origin {
                        url: url.clone(),
                        url_used: used,
                        checksum,
                        from_cache: false,
                        attempts: done.attempts,
                    };
                    return self
                        .finish(spec, got, origin, dir, &dest_name)
                        .await
                        .map_err(|e| fail(url, done.attempts, e));
                }
                Err(failed) => match failed.value {
                    FetchError::NotFound { .. } => tried.push(used),
                    error => return Err(fail(url, failed.attempts, error)),
                },
            }
        }
        let last = spec.urls.last().map(String::as_str).unwrap_or_default();
        let release = matches!(
            spec.checksum,
            Checksum::Sidecar { .. } | Checksum::List { .. }
        );
        Err(fail(last, 1, FetchError::NotFound { tried, release }))
    }

    /// One attempt on one candidate: request and status (asking only for the rest when an
    /// earlier attempt broke mid-body), then the body to a temporary file while the expected
    /// digest is fetched (once per candidate), and the check.
    async fn attempt(
        &self,
        spec: &FileSpec,
        candidate: &Candidate<'_>,
        dir: &Path,
        dest_name: &str,
    ) -> Result<(Downloaded, ChecksumStatus), FetchError> {
        let Candidate {
            url,
            used,
            expected,
            resume,
        } = candidate;
        let pace = self.options.client.pace();
        let stall = pace.stall;
        let kind = LimitKind::of_file(dest_name);
        let target = BodyTarget {
            dir,
            dest_name,
            pace,
            limit: (kind, self.options.client.limits.get(kind)),
        };
        let response = request_rest(&self.client, used, stall, resume).await?;
        // The published digest is fetched while the body streams: it is needed only at the
        // end, and asking for it first would leave the body waiting a round trip or more.
        let (expected, got) = tokio::try_join!(
            expected.get_or_try_init(|| self.expected_digest(spec, url)),
            stream_resuming(response, used, &target, &*self.progress, &spec.name, resume),
        )?;
        match expected {
            None => Ok((got, ChecksumStatus::Computed)),
            Some((digest, _)) if *digest != got.sha256 => Err(FetchError::ChecksumMismatch {
                file: spec.name.clone(),
                url: used.to_string(),
                expected: digest.clone(),
                actual: got.sha256,
            }),
            Some((_, source)) => Ok((
                got,
                ChecksumStatus::Verified {
                    source: source.clone(),
                },
            )),
        }
    }

    /// The digest `spec` must have when fetched from the candidate `url`.
    pub(super) async fn expected_digest(
        &self,
        spec: &FileSpec,
        url: &str,
    ) -> Result<Expected, FetchError> {
        let list_url = match &spec.checksum {
            Checksum::None => return Ok(None),
            Checksum::Pinned { sha256 } => {
                return Ok(Some((sha256.to_ascii_lowercase(), "pinned".to_string())));
            }
            Checksum::Sidecar { suffix } => format!("{url}{suffix}"),
            Checksum::List { url } => url.clone(),
        };
        let used = self.options.mirrors.rewrite(&list_url);
        let pace = self.options.client.pace();
        let limit = self.options.client.limits.get(LimitKind::Checksum);
        let text = get_text(&self.client, &used, pace, limit)
            .await
            .map_err(|e| match e {
                FetchError::NotFound { .. } => FetchError::ChecksumFile {
                    url: used.clone(),
                    reason: "it is not there (HTTP 404); check the checksum URL of the plan"
                        .to_string(),
                },
                FetchError::Http(HttpError::Status { status, .. }) => FetchError::ChecksumFile {
                    url: used.clone(),
                    reason: format!("HTTP {status}"),
                },
                other => other,
            })?;
        let digest = published_digest(&text, url_file_name(url)).map_err(|reason| {
            FetchError::ChecksumFile {
                url: used,
                reason: reason.to_string(),
            }
        })?;
        Ok(Some((digest, list_url)))
    }

    /// Copies a local source, checking a pinned digest.
    async fn copy_local(
        &self,
        spec: &FileSpec,
        source: &str,
        path: &Path,
        dir: &Path,
        dest_name: &str,
    ) -> Result<FetchedFile, FetchError> {
        let got = copy_hashing(path, dir, dest_name, &*self.progress, &spec.name).await?;
        let checksum = match &spec.checksum {
            Checksum::Pinned { sha256 } if !sha256.eq_ignore_ascii_case(&got.sha256) => {
                return Err(FetchError::ChecksumMismatch {
                    file: spec.name.clone(),
                    url: source.to_string(),
                    expected: sha256.to_ascii_lowercase(),
                    actual: got.sha256,
                });
            }
            Checksum::Pinned { .. } => ChecksumStatus::Verified {
                source: "pinned".to_string(),
            },
            _ => ChecksumStatus::Computed,
        };
        let origin = Origin {
            url: source.to_string(),
            url_used: path.display().to_string(),
            checksum,
            from_cache: false,
            attempts: 1,
        };
        self.finish(spec, got, origin, dir, dest_name).await
    }

    /// Applies the edit, if any, and renames the result onto the destination.
    async fn finish(
        &self,
        spec: &FileSpec,
        got: Downloaded,
        origin: Origin,
        dir: &Path,
        dest_name: &str,
    ) -> Result<FetchedFile, FetchError> {
        let upstream_sha256 = got.sha256.clone();
        let got = match &spec.edit {
            None => got,
            Some(edit) => apply_edit(spec, edit, &got, dir, dest_name).await?,
        };
        let file = got.temp;
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(file.path(), std::fs::Permissions::from_mode(0o644))
                .map_err(|e| FetchError::io("setting the mode of", file.path(), e))?;
        }
        file.persist(&spec.dest)
            .map_err(|e| FetchError::io("renaming to", &spec.dest, e.error))?;
        Ok(FetchedFile {
            name: spec.name.clone(),
            dest: spec.dest.clone(),
            url: origin.url,
            url_used: origin.url_used,
            sha256: got.sha256,
            upstream_sha256,
            bytes: got.bytes,
            checksum: origin.checksum,
            from_cache: origin.from_cache,
            attempts: origin.attempts,
        })
    }
}

/// Streams `got` through `edit` into a new temporary file.
async fn apply_edit(
    spec: &FileSpec,
    edit: &Edit,
    got: &Downloaded,
    dir: &Path,
    dest_name: &str,
) -> Result<Downloaded, FetchError> {
    let mut editor = edit.editor().map_err(|reason| FetchError::Edit {
        file: spec.name.clone(),
        reason,
    })?;
    let mut input = tokio::fs::File::open(got.temp.path())
        .await
        .map_err(|e| FetchError::io("opening", dir.join(dest_name), e))?;
    let temp = temp_in(dir, dest_name)?;
    let std_file = temp
        .as_file()
        .try_clone()
        .map_err(|e| FetchError::io("opening", dir.join(dest_name), e))?;
    let mut output = tokio::fs::File::from_std(std_file);
    let mut hasher = crate::digest::Sha256Count::new();
    let mut bytes = 0u64;
    let mut buf = vec![0u8; 64 * 1024];
    let mut out = Vec::new();
    loop {
        let n = input
            .read(&mut buf)
            .await
            .map_err(|e| FetchError::io("reading", dir.join(dest_name), e))?;
        out.clear();
        let last = n == 0;
        if last {
            editor.finish(&mut out);
        } else {
            editor.feed(&buf[..n], &mut out);
        }
        hasher.update(&out);
        bytes += out.len() as u64;
        output
            .write_all(&out)
            .await
            .map_err(|e| FetchError::io("writing", dir.join(dest_name), e))?;
        if last {
            break;
        }
    }
    output
        .flush()
        .await
        .map_err(|e| FetchError::io("writing", dir.join(dest_name), e))?;
    Ok(Downloaded {
        temp,
        sha256: hasher.finish().into_hex(),
        bytes,
    })
}
