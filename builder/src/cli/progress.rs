//! How a build shows its progress: bars on a terminal, plain log lines in CI and pipes.

use std::collections::HashMap;
use std::io::IsTerminal;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use cks_builder::pipeline::Observer;
use cks_builder::progress::{ProgressSink, human};
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};

/// How progress is shown: `--progress auto|plain|none` (`--quiet` is `none`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Mode {
    /// Bars on a terminal, plain lines otherwise.
    #[default]
    Auto,
    /// Plain lines on stderr, one per finished step.
    Plain,
    /// Nothing but warnings and errors.
    None,
}

static MODE: OnceLock<Mode> = OnceLock::new();

/// Sets the progress display for the rest of the process (the first call wins).
pub fn set_mode(mode: Mode) {
    let _ = MODE.set(mode);
}

/// The progress display chosen, `auto` until [`set_mode`].
pub fn mode() -> Mode {
    MODE.get().copied().unwrap_or_default()
}

/// True when progress bars make sense: `--progress auto`, stderr is a terminal and `CI` is
/// not set.
pub fn interactive() -> bool {
    mode() == Mode::Auto && std::io::stderr().is_terminal() && std::env::var_os("CI").is_none()
}

/// True when stderr may carry colours: a terminal, and `NO_COLOR` unset or empty.
pub fn colour() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// The sink and observer for a build's progress: bars, plain lines, or nothing.
pub fn reporter() -> (Arc<dyn ProgressSink>, Arc<dyn Observer>) {
    if mode() == Mode::None {
        let quiet = Arc::new(Silent);
        (quiet.clone(), quiet)
    } else if interactive() {
        let bars = Arc::new(Bars::new());
        (bars.clone(), bars)
    } else {
        let lines = Arc::new(Lines::new());
        (lines.clone(), lines)
    }
}

/// `--quiet`: no progress at all.
struct Silent;

impl ProgressSink for Silent {
    fn on_start(&self, _name: &str, _total: Option<u64>) {}
    fn on_bytes(&self, _name: &str, _bytes: u64) {}
    fn on_done(&self, _name: &str) {}
}

impl Observer for Silent {
    fn phase(&self, _name: &str) {}
}

/// One step of a command that is not a transfer (checking an ISO, comparing two, waiting for
/// CloudStack), named by the file or the thing it is about: a spinner on a terminal, a
/// plain line when it starts otherwise, nothing with `--quiet`.
pub struct Step(Option<ProgressBar>);

impl Step {
    /// Starts the step `what` (`verifying out/cks-1.33.13-x86_64.iso`).
    pub fn start(what: &str) -> Step {
        match mode() {
            Mode::None => Step(None),
            _ if interactive() => {
                let bar = ProgressBar::new_spinner().with_style(
                    ProgressStyle::with_template("{spinner} {msg} {elapsed}")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                );
                bar.set_message(what.to_string());
                bar.enable_steady_tick(Duration::from_millis(120));
                Step(Some(bar))
            }
            _ => {
                eprintln!("cks-iso: {what}");
                Step(None)
            }
        }
    }

    /// A message of the step (`ISO Downloading: 35% Downloaded`): printed above the spinner,
    /// which then shows it, or as a line of its own.
    pub fn say(&self, line: &str) {
        match &self.0 {
            Some(bar) => {
                bar.println(line);
                bar.set_message(line.to_string());
            }
            None => eprintln!("{line}"),
        }
    }
}

impl Drop for Step {
    fn drop(&mut self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

/// A bar per transfer under one multi-bar, and a spinner naming the phase.
pub struct Bars {
    multi: MultiProgress,
    bars: Mutex<HashMap<String, ProgressBar>>,
    phase: Mutex<Option<ProgressBar>>,
    /// The files the build writes (the ISO): their bars stay, full, when done.
    writing: Mutex<Vec<String>>,
}

impl Bars {
    /// An empty set of bars.
    pub fn new() -> Self {
        Bars {
            multi: MultiProgress::new(),
            bars: Mutex::new(HashMap::new()),
            phase: Mutex::new(None),
            writing: Mutex::new(Vec::new()),
        }
    }
}

/// Takes `name` out of `writing`: whether it was there.
fn take_name(writing: &Mutex<Vec<String>>, name: &str) -> bool {
    let Ok(mut writing) = writing.lock() else {
        return false;
    };
    let found = writing.iter().position(|n| n == name);
    found.map(|at| writing.remove(at)).is_some()
}

impl Drop for Bars {
    fn drop(&mut self) {
        if let Ok(mut phase) = self.phase.lock()
            && let Some(bar) = phase.take()
        {
            bar.finish_and_clear();
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
        let bar = self.multi.add(bar.with_message(name.to_string()));
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
            // A total that was an estimate (the ISO's) grows rather than overflow.
            if bar.length().is_some_and(|total| bar.position() > total) {
                bar.set_length(bar.position());
            }
        }
    }

    fn on_done(&self, name: &str) {
        let written = take_name(&self.writing, name);
        if let Ok(mut bars) = self.bars.lock()
            && let Some(bar) = bars.remove(name)
        {
            if written {
                // The ISO's bar stays, at its real size (its total was an estimate).
                bar.set_length(bar.position());
                bar.finish();
            } else {
                bar.finish_and_clear();
            }
        }
    }

    fn on_write_start(&self, name: &str, total: Option<u64>) {
        if let Ok(mut writing) = self.writing.lock() {
            writing.push(name.to_string());
        }
        self.on_start(name, total);
    }
}

impl Observer for Bars {
    fn phase(&self, name: &str) {
        let _ = self.multi.println(format!("== {name}"));
        let spinner = self.multi.add(
            ProgressBar::new_spinner().with_style(
                ProgressStyle::with_template("{spinner} {msg} {elapsed}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            ),
        );
        spinner.set_message(name.to_string());
        spinner.enable_steady_tick(Duration::from_millis(120));
        if let Ok(mut phase) = self.phase.lock()
            && let Some(old) = phase.replace(spinner)
        {
            old.finish_and_clear();
        }
    }
}

/// Plain lines on stderr: one when a transfer finishes, and one every 10 s for long ones; a
/// file the build writes (the ISO) gets a line when it starts too.
pub struct Lines {
    state: Mutex<HashMap<String, (u64, Instant)>>,
    /// The files being written rather than fetched.
    writing: Mutex<Vec<String>>,
}

impl Lines {
    /// A plain-line reporter.
    pub fn new() -> Self {
        Lines {
            state: Mutex::new(HashMap::new()),
            writing: Mutex::new(Vec::new()),
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
        let written = take_name(&self.writing, name);
        if let Ok(mut state) = self.state.lock()
            && let Some((done, _)) = state.remove(name)
            // Image blobs are many and named by digest; the summary counts them.
            && !name.starts_with("sha256:")
        {
            let did = if written { "wrote" } else { "fetched" };
            eprintln!("cks-iso: {did} {name} ({})", human(done));
        }
    }

    fn on_write_start(&self, name: &str, total: Option<u64>) {
        if let Ok(mut writing) = self.writing.lock() {
            writing.push(name.to_string());
        }
        let about = total
            .map(|t| format!(" (about {})", human(t)))
            .unwrap_or_default();
        eprintln!("cks-iso: writing {name}{about}");
        self.on_start(name, total);
    }
}

impl Observer for Lines {
    fn phase(&self, name: &str) {
        eprintln!("cks-iso: == {name}");
    }
}

/// The last part of `path` (`cks-1.33.13-x86_64.iso`), or the whole path when it has none.
pub fn file_name(path: &std::path::Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}
