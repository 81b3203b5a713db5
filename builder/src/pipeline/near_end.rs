//! The head start told to go shortly before kubeadm's download ends, not after it. A new
//! connection opens with a small congestion window and needs several round trips to fill the
//! link; started while kubeadm's last bytes still arrive, the large files have the link full
//! by the time kubeadm is in, instead of leaving it half idle across the handover.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::head_start::Go;
use crate::progress::ProgressSink;

/// How long before the watched transfer's end the head start goes: its remaining bytes at the
/// rate it has had so far. A second: the rate so far includes the transfer's own slow start,
/// so it is lower than the rate at the end, and the lead found is shorter than asked; the large
/// files' own slow start then still ends before kubeadm does (on a link of 40 ms, half a second
/// left the link a tenth of a second half idle at the handover).
pub const LEAD: Duration = Duration::from_millis(1000);

/// Whether a transfer of `total` bytes, `done` of them in `elapsed`, ends within `lead` at the
/// rate it has had so far. Its first `lead` is no rate yet: the first bytes come in a burst
/// (already buffered when the transfer is seen to start), and one would promise the whole
/// file in an instant.
pub fn due(total: u64, done: u64, elapsed: Duration, lead: Duration) -> bool {
    if done == 0 || elapsed < lead {
        return false;
    }
    let rate = done as f64 / elapsed.as_secs_f64();
    (total.saturating_sub(done) as f64) <= rate * lead.as_secs_f64()
}

/// A progress sink that gives [`Go`] when the transfer named `name` is near its end (or when
/// told, [`NearEnd::now`]).
pub struct NearEnd {
    name: String,
    go: Mutex<Option<Go>>,
    seen: Mutex<Seen>,
}

/// The watched transfer so far (a retried transfer starts again).
#[derive(Default)]
struct Seen {
    started: Option<Instant>,
    total: Option<u64>,
    done: u64,
}

impl NearEnd {
    /// Watches the transfer named `name`, to give `go`.
    pub fn new(name: &str, go: Option<Go>) -> Arc<Self> {
        Arc::new(NearEnd {
            name: name.to_string(),
            go: Mutex::new(go),
            seen: Mutex::new(Seen::default()),
        })
    }

    /// Gives the signal, unless it was given already.
    pub fn now(&self) {
        if let Some(go) = self.go.lock().ok().and_then(|mut go| go.take()) {
            go.now();
        }
    }
}

impl ProgressSink for NearEnd {
    fn on_start(&self, name: &str, total: Option<u64>) {
        if name == self.name
            && let Ok(mut seen) = self.seen.lock()
        {
            *seen = Seen {
                started: Some(Instant::now()),
                total,
                done: 0,
            };
        }
    }

    fn on_bytes(&self, name: &str, bytes: u64) {
        if name != self.name {
            return;
        }
        let near = match self.seen.lock() {
            Ok(mut seen) => {
                seen.done += bytes;
                match (seen.started, seen.total) {
                    (Some(started), Some(total))
                        if due(total, seen.done, started.elapsed(), LEAD) =>
                    {
                        Some((total, seen.done))
                    }
                    _ => None,
                }
            }
            Err(_) => None,
        };
        if let Some((total, done)) = near
            && self.go.lock().is_ok_and(|go| go.is_some())
        {
            tracing::debug!(name = %self.name, total, done, "near its end: the head start goes");
            self.now();
        }
    }

    fn on_done(&self, _name: &str) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn due_when_the_rest_fits_in_the_lead_at_the_rate_so_far() {
        let second = Duration::from_secs(1);
        // 25 MB/s so far: 10 MB left is 0.4 s, within the lead; 75 MB is not.
        assert!(due(
            100_000_000,
            90_000_000,
            3 * second + second / 5 * 3,
            LEAD
        ));
        assert!(!due(100_000_000, 25_000_000, second, LEAD));
        assert!(due(100_000_000, 100_000_000, second, LEAD), "at the end");
        assert!(!due(100_000_000, 0, second, LEAD), "nothing seen yet");
        assert!(!due(100, 10, Duration::ZERO, LEAD));
        // The first buffered bytes, seen 10 µs after the start: no rate yet.
        assert!(!due(78_643_702, 8_192, Duration::from_micros(10), LEAD));
    }

    #[tokio::test]
    async fn the_signal_goes_once_near_the_end_of_the_watched_transfer_only() {
        let (send, mut got) = tokio::sync::oneshot::channel();
        let watch = NearEnd::new("k8s/kubeadm", Some(Go(send)));
        watch.on_start("k8s/kubeadm", Some(1_000));
        watch.on_bytes("k8s/kubelet", 1_000);
        assert!(got.try_recv().is_err(), "another transfer says nothing");
        // The transfer has run longer than the lead: its rate now counts (the start moved
        // back rather than the test waiting).
        if let Ok(mut seen) = watch.seen.lock() {
            seen.started = Instant::now().checked_sub(LEAD * 2);
        }
        watch.on_bytes("k8s/kubeadm", 10);
        assert!(got.try_recv().is_err(), "far from the end");
        watch.on_bytes("k8s/kubeadm", 989);
        assert!(got.try_recv().is_ok(), "a byte left: go");
        watch.now();
    }
}
