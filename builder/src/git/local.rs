//! Local repositories: the real `git upload-pack --stateless-rpc` speaks protocol v2 on stdin
//! and stdout, as it does behind `git http-backend`.

use std::path::Path;
use std::process::Stdio;

use tokio::io::AsyncWriteExt;

use super::error::GitError;
use super::http::read_error;
use super::pktline::decode_all;
use super::refs::{
    Advertisement, RemoteRef, ls_refs_request, parse_advertisement, parse_ls_refs, tags_only,
};

async fn upload_pack(
    path: &Path,
    url: &str,
    advertise: bool,
    input: &[u8],
) -> Result<Vec<u8>, GitError> {
    let mut command = tokio::process::Command::new("git");
    command.arg("upload-pack").arg("--stateless-rpc");
    if advertise {
        command.arg("--advertise-refs");
    }
    command
        .arg(path)
        .env("GIT_PROTOCOL", "version=2")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = command.spawn().map_err(|e| GitError::Program {
        url: url.to_string(),
        status: "not started".to_string(),
        stderr: format!("{e}; is git installed?"),
    })?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(input)
            .await
            .map_err(|e| GitError::io(url, &e))?;
    }
    let output = child
        .wait_with_output()
        .await
        .map_err(|e| GitError::io(url, &e))?;
    if !output.status.success() {
        return Err(GitError::Program {
            url: url.to_string(),
            status: output.status.to_string(),
            stderr: String::from_utf8_lossy(&output.stderr).trim().to_string(),
        });
    }
    Ok(output.stdout)
}

/// Lists the tags of the local repository at `path`.
pub async fn list(path: &Path, url: &str) -> Result<Vec<RemoteRef>, GitError> {
    let advertised = upload_pack(path, url, true, b"").await?;
    let packets = decode_all(&advertised).map_err(|reason| GitError::Protocol {
        url: url.to_string(),
        reason,
    })?;
    match parse_advertisement(&packets).map_err(|e| read_error(url, e))? {
        Advertisement::V0 { refs } => Ok(tags_only(refs)),
        Advertisement::V2 { capabilities } => {
            let answer = upload_pack(path, url, false, &ls_refs_request(&capabilities)).await?;
            let packets = decode_all(&answer).map_err(|reason| GitError::Protocol {
                url: url.to_string(),
                reason,
            })?;
            parse_ls_refs(&packets)
                .map(tags_only)
                .map_err(|e| read_error(url, e))
        }
    }
}
