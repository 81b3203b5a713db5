//! The requests of one build, counted by URL where they are sent: at the one transport,
//! [`crate::http::send`], which every download, checksum, signature file, release answer and
//! git listing goes through. A build runs its work inside [`RequestLog::scope`]; the summary's
//! `fetched_twice` is then [`RequestLog::fetched_twice`]: the URLs asked for more than once
//! (a retried or resumed transfer counts too), 0 when nothing is fetched twice.
//!
//! The log follows the task the build runs in (a tokio task-local): requests sent outside a
//! scope, or from a task spawned apart, are not counted. Registry requests are the puller's
//! own (blobs are fetched once by digest: see the summary's image byte counts).

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

tokio::task_local! {
    static LOG: Arc<RequestLog>;
}

/// How many times each URL was asked for.
#[derive(Debug, Default)]
pub struct RequestLog {
    counts: Mutex<BTreeMap<String, u32>>,
}

impl RequestLog {
    /// A log that counts nothing yet.
    pub fn new() -> Arc<RequestLog> {
        Arc::new(RequestLog::default())
    }

    /// Runs `work`, counting every request it sends here.
    pub async fn scope<F: Future>(self: &Arc<Self>, work: F) -> F::Output {
        LOG.scope(Arc::clone(self), work).await
    }

    /// The URLs asked for more than once.
    pub fn fetched_twice(&self) -> usize {
        self.repeated().len()
    }

    /// Each URL asked for more than once, with how many times, sorted by URL.
    pub fn repeated(&self) -> Vec<(String, u32)> {
        self.counts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .filter(|(_, n)| **n > 1)
            .map(|(url, n)| (url.clone(), *n))
            .collect()
    }

    /// Requests counted in all.
    pub fn total(&self) -> u64 {
        self.counts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .map(|n| u64::from(*n))
            .sum()
    }

    fn count(&self, url: &str) {
        let mut counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        *counts.entry(url.to_string()).or_default() += 1;
    }
}

/// Counts a request for `url` in the log of the build sending it, if any.
pub(crate) fn record(url: &str) {
    let _ = LOG.try_with(|log| log.count(url));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn only_requests_inside_the_scope_are_counted() {
        let log = RequestLog::new();
        record("http://outside/");
        log.scope(async {
            record("http://a/");
            record("http://b/");
            record("http://a/");
        })
        .await;
        assert_eq!(log.total(), 3);
        assert_eq!(log.fetched_twice(), 1);
        assert_eq!(log.repeated(), vec![("http://a/".to_string(), 2)]);
    }
}
