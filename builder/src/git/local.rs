//! Local repositories: the real `git upload-pack --stateless-rpc` speaks protocol v2 on stdin
//! and stdout, as it does behind `git http-backend`.

use std::path::Path;
use std::process::Stdio;

use tokio::io::AsyncWriteExt;

use super::answer::{Advertisement, Framer, LsRefs, Parser, Step};
use super::error::GitError;
use super::http::read_error;
use super::refs::{ReadError, TagText, ls_refs_request};

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

/// Reads the whole `answer` of `git upload-pack` into `parser`.
fn read(answer: &[u8], url: &str, parser: &mut impl Parser) -> Result<(), GitError> {
    match Framer::default().feed(answer, parser) {
        Ok(Step::Done) => Ok(()),
        Ok(Step::More) => Err(read_error(url, ReadError::Truncated)),
        Err(e) => Err(read_error(url, e)),
    }
}

/// Lists the tags of the local repository at `path`, as `git ls-remote --tags` prints them.
pub async fn list(path: &Path, url: &str) -> Result<TagText, GitError> {
    let advertised = upload_pack(path, url, true, b"").await?;
    let mut tags = TagText::default();
    let mut advertisement = Advertisement::new(&mut tags);
    read(&advertised, url, &mut advertisement)?;
    drop(advertised);
    if advertisement.is_v2() {
        let request = ls_refs_request(advertisement.object_format.as_deref());
        let answer = upload_pack(path, url, false, &request).await?;
        read(&answer, url, &mut LsRefs::new(&mut tags))?;
    }
    Ok(tags)
}
