//! Small text files beside a download (a signature, a certificate, a Sigstore bundle), fetched
//! through the same mirrors, client and retry policy as the files themselves; 404 is an answer.

use super::http::get_text;
use super::{FetchError, Fetcher};

impl Fetcher {
    /// The text at `url` (canonical; a mirror rewrite applies), at most `limit` bytes, or
    /// `None` when the server answers 404. Returns the URL used with the text.
    pub async fn small_text(
        &self,
        url: &str,
        limit: usize,
    ) -> Result<(String, Option<String>), FetchError> {
        let used = self.options.mirrors.rewrite(url);
        let stall = self.options.client.stall_timeout;
        let outcome = self
            .options
            .retry
            .run(|_| get_text(&self.client, &used, stall, limit))
            .await;
        match outcome {
            Ok(done) => Ok((used, Some(done.value))),
            Err(failed) => match failed.value {
                FetchError::NotFound { .. } => Ok((used, None)),
                other => Err(other),
            },
        }
    }
}
