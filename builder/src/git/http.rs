//! Smart HTTP(S): `GET info/refs?service=git-upload-pack` asking for protocol v2, then `POST
//! git-upload-pack` with `ls-refs`; a v0 advertisement or a dumb `info/refs` file is read as is.

use std::time::Duration;

use cks_pinning::limits::LimitKind;

use super::error::GitError;
use super::pktline::decode_all;
use super::refs::{
    Advertisement, ReadError, RemoteRef, ls_refs_request, parse_advertisement, parse_dumb,
    parse_ls_refs, tags_only,
};

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

/// Decodes a complete pkt-line body from `url`.
fn packets(url: &str, body: &[u8]) -> Result<Vec<super::pktline::Packet>, GitError> {
    decode_all(body).map_err(|reason| {
        if reason == "truncated" {
            read_error(url, ReadError::Truncated)
        } else {
            read_error(url, ReadError::Malformed(reason))
        }
    })
}

async fn send(
    request: reqwest::RequestBuilder,
    url: &str,
    stall: Duration,
) -> Result<reqwest::Response, GitError> {
    crate::http::send(request, url, stall)
        .await
        .map_err(GitError::from)
}

async fn body(
    response: reqwest::Response,
    url: &str,
    stall: Duration,
    limit: u64,
) -> Result<Vec<u8>, GitError> {
    crate::http::read_bounded(response, url, LimitKind::Git, limit, stall)
        .await
        .map_err(GitError::from)
}

/// Lists the tags of the repository at the http(s) `url`.
pub async fn list(
    client: &reqwest::Client,
    url: &str,
    stall: Duration,
    limit: u64,
) -> Result<Vec<RemoteRef>, GitError> {
    let base = url.trim_end_matches('/');
    let info = format!("{base}/info/refs?service=git-upload-pack");
    let response = send(
        client.get(&info).header("Git-Protocol", "version=2"),
        &info,
        stall,
    )
    .await?;
    let smart = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/x-git-upload-pack-advertisement"));
    let advertised = body(response, &info, stall, limit).await?;
    if !smart {
        let text = String::from_utf8(advertised).map_err(|_| GitError::Protocol {
            url: info.clone(),
            reason: "info/refs is neither a smart advertisement nor text".to_string(),
        })?;
        return parse_dumb(&text)
            .map(tags_only)
            .map_err(|e| read_error(&info, e));
    }
    let capabilities = match parse_advertisement(&packets(&info, &advertised)?)
        .map_err(|e| read_error(&info, e))?
    {
        Advertisement::V0 { refs } => return Ok(tags_only(refs)),
        Advertisement::V2 { capabilities } => capabilities,
    };
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
        .body(ls_refs_request(&capabilities));
    let response = send(request, &post, stall).await?;
    let answer = body(response, &post, stall, limit).await?;
    parse_ls_refs(&packets(&post, &answer)?)
        .map(tags_only)
        .map_err(|e| read_error(&post, e))
}
