//! A small answer of a release server (`release/stable-1.33.txt`), read through the mirrors and
//! bounded by the `answer` limit.

use cks_pinning::limits::LimitKind;

use super::error::FetchError;
use super::fetcher::Fetcher;
use super::http::request;

impl Fetcher {
    /// The body of the upstream `url` (through its mirror, when one matches), at most the
    /// `answer` limit; also the URL actually requested, for errors.
    pub async fn read_answer(&self, url: &str) -> Result<(String, Vec<u8>), FetchError> {
        let used = self.options.mirrors.rewrite(url);
        let pace = self.options.client.pace();
        let limit = self.options.client.limits.get(LimitKind::Answer);
        let response = request(&self.client, &used, pace.stall).await?;
        let body =
            crate::http::read_bounded(response, &used, LimitKind::Answer, limit, pace).await?;
        Ok((used, body))
    }
}
