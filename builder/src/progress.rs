//! Where long operations report their progress. The library prints nothing itself; the CLI
//! chooses a terminal bar or plain log lines.

use std::sync::Arc;

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
