//! Where long operations report their progress. The library prints nothing itself; the CLI
//! chooses a terminal bar or plain log lines.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// `1536` as `1.5 KiB`.
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// Receives progress of downloads and pulls. Implementations must be cheap and thread-safe.
pub trait ProgressSink: Send + Sync {
    /// A transfer named `name` starts; `total` is its size when known.
    fn on_start(&self, name: &str, total: Option<u64>);
    /// `bytes` more bytes of `name` arrived.
    fn on_bytes(&self, name: &str, bytes: u64);
    /// `name` finished (successfully or not).
    fn on_done(&self, name: &str);
    /// A file named `name` that the build writes itself (the ISO) starts; `total` is about its
    /// size. Its bytes and end are then reported as a transfer's are. By default, a transfer.
    fn on_write_start(&self, name: &str, total: Option<u64>) {
        self.on_start(name, total);
    }
}

/// A sink that ignores everything (library default, tests).
#[derive(Debug, Default, Clone, Copy)]
pub struct NoProgress;

impl ProgressSink for NoProgress {
    fn on_start(&self, _name: &str, _total: Option<u64>) {}
    fn on_bytes(&self, _name: &str, _bytes: u64) {}
    fn on_done(&self, _name: &str) {}
}

/// Two sinks told of everything: the one in force and one that acts on a transfer's progress.
pub struct Tee(pub Arc<dyn ProgressSink>, pub Arc<dyn ProgressSink>);

impl ProgressSink for Tee {
    fn on_start(&self, name: &str, total: Option<u64>) {
        self.0.on_start(name, total);
        self.1.on_start(name, total);
    }
    fn on_bytes(&self, name: &str, bytes: u64) {
        self.0.on_bytes(name, bytes);
        self.1.on_bytes(name, bytes);
    }
    fn on_done(&self, name: &str) {
        self.0.on_done(name);
        self.1.on_done(name);
    }
    fn on_write_start(&self, name: &str, total: Option<u64>) {
        self.0.on_write_start(name, total);
        self.1.on_write_start(name, total);
    }
}

/// A progress sink that remembers each transfer's announced size (its `Content-Length`) and
/// passes everything on to the sink it wraps.
pub struct Tally {
    inner: Arc<dyn ProgressSink>,
    totals: Mutex<HashMap<String, u64>>,
}

impl Tally {
    /// Wraps `inner`.
    pub fn new(inner: Arc<dyn ProgressSink>) -> Tally {
        Tally {
            inner,
            totals: Mutex::new(HashMap::new()),
        }
    }

    /// The size announced for the transfer `name`, if it started with one.
    pub fn total(&self, name: &str) -> Option<u64> {
        self.totals.lock().ok()?.get(name).copied()
    }
}

impl ProgressSink for Tally {
    fn on_start(&self, name: &str, total: Option<u64>) {
        if let (Some(total), Ok(mut totals)) = (total, self.totals.lock()) {
            totals.insert(name.to_string(), total);
        }
        self.inner.on_start(name, total);
    }
    fn on_bytes(&self, name: &str, bytes: u64) {
        self.inner.on_bytes(name, bytes);
    }
    fn on_done(&self, name: &str) {
        self.inner.on_done(name);
    }
    fn on_write_start(&self, name: &str, total: Option<u64>) {
        self.inner.on_write_start(name, total);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tally_keeps_announced_sizes() {
        let tally = Tally::new(Arc::new(NoProgress));
        tally.on_start("k8s/kubectl", Some(42));
        tally.on_start("unknown", None);
        assert_eq!(tally.total("k8s/kubectl"), Some(42));
        assert_eq!(tally.total("unknown"), None);
    }
}
