//! The large files' downloads started while the plan is still being made. Their URLs follow
//! from the inputs alone (the Kubernetes binaries, CNI, crictl, etcd), so nothing the plan
//! decides can change them; they keep the link busy while kubeadm lists the images and the
//! pulls begin, instead of leaving it idle until the plan is done. They start when the plan
//! says [`Go::now`]: once its own kubeadm is in, which so has the link to itself (beside the
//! plan's small lookups) and comes in a sixth of the time it would sharing the link with
//! them; the image list, which the pulls wait for, comes that much sooner.
//!
//! A build takes a head start only when no finished ISO can be taken instead (no cache
//! registry: see [`super::iso_recipe`]) and it is not a dry run. [`head_start`] splits the work
//! in two: the [`Downloads`] future, which the build polls beside its own work in the same task
//! ([`beside`]), and the [`HeadStart`] the second phase waits on for the results. Dropping the
//! build drops the downloads with it, at once, before the staging directory they write into
//! goes away, so an interrupted or failed build leaves nothing running and nothing behind.

use std::future::Future;
use std::pin::Pin;

use tokio::sync::oneshot;

use crate::fetch::{FetchedFile, Fetcher, FileError, FileSpec};

/// The results of the downloads, one per file in the order started.
type Results = Vec<Result<FetchedFile, FileError>>;

/// Why a file of the head start was not fetched.
#[derive(Debug, thiserror::Error)]
pub enum HeadStartError {
    /// The download failed.
    #[error(transparent)]
    Fetch(Box<FileError>),
    /// The downloads ended before this one's result was sent.
    #[error("{name}: the download stopped before it ended")]
    Stopped {
        /// The file's name in the plan.
        name: String,
    },
}

/// The downloads themselves: a future to poll beside the build (see [`beside`]).
pub type Downloads<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// The downloads' results, to wait for in the second phase.
#[derive(Debug)]
pub struct HeadStart {
    names: Vec<String>,
    results: oneshot::Receiver<Results>,
}

/// What starts the downloads of a head start: [`Go::now`], or dropping it.
#[derive(Debug)]
pub struct Go(pub(super) oneshot::Sender<()>);

impl Go {
    /// Starts the downloads.
    pub fn now(self) {
        // The downloads may be gone (the build ended); there is then nothing to start.
        let _ = self.0.send(());
    }
}

/// Splits fetching `specs` (their folders already made, as many at once as
/// [`Fetcher::fetch_all`] would, once [`Go`] says so) into the downloads to poll, the head
/// start that gets their results, and what starts them.
pub fn head_start(fetcher: &Fetcher, specs: Vec<FileSpec>) -> (Downloads<'_>, HeadStart, Go) {
    let names = specs.iter().map(|s| s.name.clone()).collect();
    let (send, results) = oneshot::channel();
    let (go, start) = oneshot::channel();
    let downloads = Box::pin(async move {
        // Told to start, or the one to tell is gone: either way, start.
        let _ = start.await;
        let fetched = fetcher.fetch_all(&specs).await;
        // The second phase may be gone (the build failed); the results are then dropped.
        let _ = send.send(fetched);
    });
    (downloads, HeadStart { names, results }, Go(go))
}

/// Runs `work` while polling `downloads` in the same task, and returns what `work` returns as
/// soon as it does (finished downloads are kept in the head start; unfinished ones are dropped
/// with this future).
pub async fn beside<T>(downloads: Option<Downloads<'_>>, work: impl Future<Output = T>) -> T {
    let Some(mut downloads) = downloads else {
        return work.await;
    };
    tokio::pin!(work);
    let mut downloading = true;
    loop {
        tokio::select! {
            result = &mut work => return result,
            () = &mut downloads, if downloading => downloading = false,
        }
    }
}

impl HeadStart {
    /// Whether the file named `name` (its ISO path) is among the downloads.
    pub fn covers(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }

    /// Waits for every download: one result per file, in the order they were started.
    pub async fn finish(self) -> Vec<Result<FetchedFile, HeadStartError>> {
        match self.results.await {
            Ok(results) => results
                .into_iter()
                .map(|r| r.map_err(|e| HeadStartError::Fetch(Box::new(e))))
                .collect(),
            Err(_) => self
                .names
                .into_iter()
                .map(|name| Err(HeadStartError::Stopped { name }))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fetch::FetchOptions;

    fn spec(name: &str, url: &str, dir: &std::path::Path) -> FileSpec {
        FileSpec::new(name, url, dir.join(name))
    }

    #[tokio::test]
    async fn every_file_gets_its_result_in_order_and_names_are_covered() {
        let dir = tempfile::tempdir().expect("temp dir");
        let source = dir.path().join("source");
        std::fs::write(&source, b"payload").expect("writes");
        let fetcher = Fetcher::new(FetchOptions::default()).expect("fetcher");
        let url = format!("file://{}", source.display());
        let missing = format!("file://{}", dir.path().join("missing").display());
        let (downloads, start, go) = head_start(
            &fetcher,
            vec![spec("a", &url, dir.path()), spec("b", &missing, dir.path())],
        );
        go.now();
        assert!(start.covers("a") && start.covers("b") && !start.covers("c"));
        // The work waits for the results while the downloads are polled beside it.
        let results = beside(Some(downloads), start.finish()).await;
        assert_eq!(results.len(), 2);
        let a = results[0].as_ref().expect("a is fetched");
        assert_eq!(a.name, "a");
        assert_eq!(std::fs::read(dir.path().join("a")).expect("a"), b"payload");
        let b = results[1].as_ref().expect_err("b is missing").to_string();
        assert!(b.contains('b'), "{b}");
    }

    #[tokio::test]
    async fn work_that_ends_first_drops_the_downloads_at_once() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("binds");
        let url = format!("http://{}/slow", listener.local_addr().expect("addr"));
        let dir = tempfile::tempdir().expect("temp dir");
        let fetcher = Fetcher::new(FetchOptions::default()).expect("fetcher");
        let (downloads, start, go) = head_start(&fetcher, vec![spec("slow", &url, dir.path())]);
        go.now();
        // The work: take the download's connection, answer nothing, and fail.
        let work = async {
            let (conn, _) = listener.accept().await.expect("the download connects");
            Err::<(), _>(conn)
        };
        let mut conn = beside(Some(downloads), work)
            .await
            .expect_err("the work failed");
        // Returning dropped the download and its connection: the server reads end of stream.
        let mut sink = Vec::new();
        let read = tokio::time::timeout(
            std::time::Duration::from_secs(10),
            tokio::io::AsyncReadExt::read_to_end(&mut conn, &mut sink),
        )
        .await;
        assert!(
            read.is_ok(),
            "the connection stayed open after the work ended"
        );
        let results = start.finish().await;
        let error = results[0].as_ref().expect_err("never finished");
        assert!(
            matches!(error, HeadStartError::Stopped { name } if name == "slow"),
            "{error}"
        );
        assert!(
            error.to_string().contains("stopped before it ended"),
            "{error}"
        );
    }
}
