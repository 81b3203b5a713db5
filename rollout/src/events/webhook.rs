//! `--webhook URL`: each event POSTed as its JSON line, from a thread of its own so a slow or
//! failing receiver never holds the rollout up. Each event is tried a few times with a short
//! timeout; the first event that cannot be delivered ends the deliveries, with one warning.

use super::EventLine;
use crate::engine::{Event, Progress};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError, sync_channel};
use std::thread::JoinHandle;
use std::time::Duration;

/// Time allowed for one POST (connect, send, answer).
pub const TIMEOUT: Duration = Duration::from_secs(2);
/// Tries per event.
pub const TRIES: u32 = 3;
/// Wait between two tries (doubled after each).
const BACKOFF: Duration = Duration::from_millis(200);
/// Events waiting to be sent; more are dropped (and counted in the warning).
const QUEUE: usize = 4096;
/// How long the end of the rollout waits for the events still queued.
pub const DRAIN: Duration = Duration::from_secs(15);

/// The URL as shown in messages: scheme, host and port only (a path or query may hold a token).
pub fn shown(url: &reqwest::Url) -> String {
    let port = url.port().map(|p| format!(":{p}")).unwrap_or_default();
    format!(
        "{}://{}{port}/…",
        url.scheme(),
        url.host_str().unwrap_or("")
    )
}

/// Why a webhook URL was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WebhookUrlError {
    /// Not an http or https URL with a host.
    #[error("--webhook: expected an http:// or https:// URL with a host")]
    NotHttp,
    /// The HTTP client could not be made.
    #[error("--webhook: cannot make an HTTP client: {0}")]
    Client(String),
}

/// What the last try of an event came to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum Attempt {
    /// The receiver answered with a status that is not a success.
    #[error("answered {0}")]
    Status(reqwest::StatusCode),
    /// No answer within [`TIMEOUT`].
    #[error("no answer within {} s", TIMEOUT.as_secs())]
    Timeout,
    /// The request failed: the error and its causes.
    #[error("{0}")]
    Failed(String),
}

/// Why an event was not delivered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{last} ({TRIES} tries)")]
struct Undelivered {
    /// What the last try came to.
    last: Attempt,
}

/// Posts events to a webhook.
pub struct Webhook {
    cluster: String,
    queue: Option<SyncSender<String>>,
    dropped: u64,
    worker: Option<JoinHandle<Option<String>>>,
    done: Receiver<()>,
    url: String,
}

/// POST `body` to `url`, [`TRIES`] times at most; the last error.
fn deliver(
    client: &reqwest::blocking::Client,
    url: &reqwest::Url,
    body: &str,
) -> Result<(), Undelivered> {
    let mut wait = BACKOFF;
    let mut last = Attempt::Failed(String::new());
    for n in 1..=TRIES {
        let sent = client
            .post(url.clone())
            .header("content-type", "application/json")
            .body(body.to_string())
            .send();
        match sent {
            Ok(r) if r.status().is_success() => return Ok(()),
            Ok(r) => last = Attempt::Status(r.status()),
            Err(e) if e.is_timeout() => last = Attempt::Timeout,
            Err(e) => {
                let e = e.without_url();
                let mut text = e.to_string();
                let mut source = std::error::Error::source(&e);
                while let Some(s) = source {
                    text = format!("{text}: {s}");
                    source = s.source();
                }
                last = Attempt::Failed(text);
            }
        }
        if n < TRIES {
            std::thread::sleep(wait);
            wait *= 2;
        }
    }
    Err(Undelivered { last })
}

impl Webhook {
    /// Checks `url` (http or https) and starts the sender.
    pub fn start(url: &str, cluster: &str) -> Result<Self, WebhookUrlError> {
        let parsed = reqwest::Url::parse(url)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
            .ok_or(WebhookUrlError::NotHttp)?;
        let client = reqwest::blocking::Client::builder()
            .timeout(TIMEOUT)
            .connect_timeout(TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| WebhookUrlError::Client(e.to_string()))?;
        let (tx, rx) = sync_channel::<String>(QUEUE);
        let (done_tx, done) = sync_channel::<()>(1);
        let target = parsed.clone();
        let worker = std::thread::spawn(move || {
            let mut failed = None;
            for body in rx {
                if failed.is_some() {
                    continue;
                }
                if let Err(e) = deliver(&client, &target, &body) {
                    failed = Some(e.to_string());
                }
            }
            let _ = done_tx.send(());
            failed
        });
        Ok(Webhook {
            cluster: cluster.to_string(),
            queue: Some(tx),
            dropped: 0,
            worker: Some(worker),
            done,
            url: shown(&parsed),
        })
    }

    /// Waits (at most [`DRAIN`]) for the events still queued; the one warning to print, if
    /// the webhook did not take every event.
    pub fn finish(mut self) -> Option<String> {
        self.queue = None;
        let failed = match self.done.recv_timeout(DRAIN) {
            Ok(()) | Err(RecvTimeoutError::Disconnected) => {
                self.worker.take().and_then(|w| w.join().ok()).flatten()
            }
            Err(RecvTimeoutError::Timeout) => {
                Some(format!("events still unsent after {} s", DRAIN.as_secs()))
            }
        };
        let dropped = (self.dropped > 0)
            .then(|| format!("{} event(s) dropped from a full queue", self.dropped));
        let why: Vec<String> = failed.into_iter().chain(dropped).collect();
        (!why.is_empty()).then(|| {
            format!(
                "webhook {}: {}; the rollout went on without it",
                self.url,
                why.join("; ")
            )
        })
    }
}

impl Progress for Webhook {
    fn on_event(&mut self, event: &Event) {
        if let Ok(body) = serde_json::to_string(&EventLine::new(&self.cluster, event)) {
            self.send_line(body);
        }
    }
}

impl Webhook {
    /// Queues one JSON body for delivery (a fleet's events use this); never blocks.
    pub fn send_line(&mut self, body: String) {
        let Some(queue) = &self.queue else {
            return;
        };
        match queue.try_send(body) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => self.dropped += 1,
            Err(TrySendError::Disconnected(_)) => self.queue = None,
        }
    }
}
