//! Smart HTTP(S): `GET info/refs?service=git-upload-pack` asking for protocol v2, then `POST
//! git-upload-pack` with `ls-refs`; a v0 advertisement or a dumb `info/refs` file is read as is. Each answer is read
//! as it arrives (see [`super::answer`]), never held whole.

use cks_pinning::limits::LimitKind;

use super::answer::{Advertisement, DumbRefs, Framer, LsRefs, Parser, Step};
use super::error::GitError;
use super::refs::{ReadError, TagText, ls_refs_request};
use crate::http::Body;
use crate::pace::Pace;

/// Maps a read error of the answer from `url`.
pub fn read_error(url: &str, error: ReadError) -> GitError {
    match error {
        ReadError::Remote(message) => GitError::Remote {
            url: url.to_string(),
            message,
        },
        ReadError::Truncated => GitError::Truncated {
            url: url.to_string(),
        },
        ReadError::Malformed(reason) => GitError::Protocol {
            url: url.to_string(),
            reason,
        },
    }
}

async fn send(
    request: reqwest::RequestBuilder,
    url: &str,
    pace: Pace,
) -> Result<reqwest::Response, GitError> {
    crate::http::send(request, url, pace.stall)
        .await
        .map_err(GitError::from)
}

/// Reads one pkt-line answer from `url` into `parser` as it arrives, up to its closing flush.
async fn answer(
    response: reqwest::Response,
    url: &str,
    pace: Pace,
    limit: u64,
    parser: &mut impl Parser,
) -> Result<(), GitError> {
    let mut body = Body::new(response, url, LimitKind::Git, limit, pace)?;
    let mut framer = Framer::default();
    while let Some(chunk) = body.chunk().await? {
        if framer
            .feed(&chunk, parser)
            .map_err(|e| read_error(url, e))?
            == Step::Done
        {
            return Ok(());
        }
    }
    Err(read_error(url, ReadError::Truncated))
}

/// Reads a dumb `info/refs` file from `url` line by line.
async fn dumb(mut body: Body, url: &str, tags: &mut TagText) -> Result<(), GitError> {
    let mut lines = DumbRefs::new(tags);
    while let Some(chunk) = body.chunk().await? {
        lines.feed(&chunk).map_err(|e| read_error(url, e))?;
    }
    lines.finish().map_err(|e| read_error(url, e))
}

/// Lists the tags of the repository at the http(s) `url`, as `git ls-remote --tags` prints
/// them.
pub async fn list(
    client: &reqwest::Client,
    url: &str,
    pace: Pace,
    limit: u64,
) -> Result<TagText, GitError> {
    let base = url.trim_end_matches('/');
    let info = format!("{base}/info/refs?service=git-upload-pack");
    let response = send(
        client.get(&info).header("Git-Protocol", "version=2"),
        &info,
        pace,
    )
    .await?;
    let smart = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/x-git-upload-pack-advertisement"));
    let mut tags = TagText::default();
    if !smart {
        let body = Body::new(response, &info, LimitKind::Git, limit, pace)?;
        dumb(body, &info, &mut tags).await?;
        return Ok(tags);
    }
    let mut advertisement = Advertisement::new(&mut tags);
    answer(response, &info, pace, limit, &mut advertisement).await?;
    if !advertisement.is_v2() {
        return Ok(tags);
    }
    let post = format!("{base}/git-upload-pack");
    let request = client
        .post(&post)
        .header("Git-Protocol", "version=2")
        .header(
            reqwest::header::CONTENT_TYPE,
            "application/x-git-upload-pack-request",
        )
        .header(
            reqwest::header::ACCEPT,
            "application/x-git-upload-pack-result",
        )
        .body(ls_refs_request(advertisement.object_format.as_deref()));
    let response = send(request, &post, pace).await?;
    answer(response, &post, pace, limit, &mut LsRefs::new(&mut tags)).await?;
    Ok(tags)
}
