//! How a build shows its progress: bars on a terminal, plain log lines in CI and pipes.

use std::collections::HashMap;
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use cks_builder::pipeline::Observer;
use cks_builder::progress::ProgressSink;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};

/// True when progress bars make sense: stderr is a terminal and `CI` is not set.
pub fn interactive() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("CI").is_none()
}

/// A bar per transfer under one multi-bar.
pub struct Bars {
    multi: MultiProgress,
    bars: Mutex<HashMap<String, ProgressBar>>,
}

impl Bars {
    /// An empty set of bars.
    pub fn new() -> Self {
        Bars {
            multi: MultiProgress::new(),
            bars: Mutex::new(HashMap::new()),
        }
    }
}

impl ProgressSink for Bars {
    fn on_start(&self, name: &str, total: Option<u64>) {
        let bar = match total {
            Some(total) => ProgressBar::new(total).with_style(
                ProgressStyle::with_template(
                    "{msg:40} {bar:30} {bytes:>10}/{total_bytes:10} {bytes_per_sec}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            ),
            None => ProgressBar::new_spinner().with_style(
                ProgressStyle::with_template("{msg:40} {spinner} {bytes:>10}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            ),
        };
        let bar = self.multi.add(bar);
        bar.set_message(name.to_string());
        if let Ok(mut bars) = self.bars.lock()
            && let Some(old) = bars.insert(name.to_string(), bar)
        {
            old.finish_and_clear();
        }
    }

    fn on_bytes(&self, name: &str, bytes: u64) {
        if let Ok(bars) = self.bars.lock()
            && let Some(bar) = bars.get(name)
        {
            bar.inc(bytes);
        }
    }

    fn on_done(&self, name: &str) {
        if let Ok(mut bars) = self.bars.lock()
            && let Some(bar) = bars.remove(name)
        {
            bar.finish_and_clear();
        }
    }
}

impl Observer for Bars {
    fn phase(&self, name: &str) {
        let _ = self.multi.println(format!("== {name}"));
    }
}

/// Plain lines on stderr: one when a transfer finishes, and one every 10 s for long ones.
pub struct Lines {
    state: Mutex<HashMap<String, (u64, Instant)>>,
}

impl Lines {
    /// A plain-line reporter.
    pub fn new() -> Self {
        Lines {
            state: Mutex::new(HashMap::new()),
        }
    }
}

impl ProgressSink for Lines {
    fn on_start(&self, name: &str, _total: Option<u64>) {
        if let Ok(mut state) = self.state.lock() {
            state.insert(name.to_string(), (0, Instant::now()));
        }
    }

    fn on_bytes(&self, name: &str, bytes: u64) {
        if let Ok(mut state) = self.state.lock()
            && let Some((done, last)) = state.get_mut(name)
        {
            *done += bytes;
            if last.elapsed() >= Duration::from_secs(10) {
                eprintln!("cks-iso: {name}: {} so far", human(*done));
                *last = Instant::now();
            }
        }
    }

    fn on_done(&self, name: &str) {
        if let Ok(mut state) = self.state.lock()
            && let Some((done, _)) = state.remove(name)
            // Image blobs are many and named by digest; the summary counts them.
            && !name.starts_with("sha256:")
        {
            eprintln!("cks-iso: fetched {name} ({})", human(done));
        }
    }
}

impl Observer for Lines {
    fn phase(&self, name: &str) {
        eprintln!("cks-iso: == {name}");
    }
}

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
