//! Files removed on every exit of the command: on return (their owners' `Drop`), on
//! `std::process::exit` (a closed stdout) and on SIGINT, SIGTERM and SIGHUP, which would
//! otherwise end the process without running any destructor. The cluster-admin kubeconfig
//! fetched from CloudStack is kept in such a file.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

static FILES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static HANDLER: Once = Once::new();

/// Installs the signal handler (once): a thread that, on SIGINT, SIGTERM or SIGHUP, removes the
/// registered files and then ends the process as the signal's default action would.
pub fn install() {
    HANDLER.call_once(
        || match signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
            Ok(mut signals) => {
                std::thread::spawn(move || {
                    if let Some(signal) = signals.forever().next() {
                        remove_all();
                        let _ = signal_hook::low_level::emulate_default_handler(signal);
                        std::process::exit(128 + signal);
                    }
                });
            }
            Err(e) => tracing::debug!("no signal handler for the temporary files: {e}"),
        },
    );
}

/// Catches SIGXFSZ (into a flag nobody reads, the safe equivalent of ignoring it): a write past
/// the file size limit (`ulimit -f`) then fails with EFBIG, an error the command reports and
/// cleans up after, instead of the signal ending the process with no destructor run. The catch
/// every binary sets ([`cks_cli_docs::catch_file_size_signal`]), logged when it cannot be set.
pub fn catch_file_size_signal() {
    if let Err(e) = cks_cli_docs::catch_file_size_signal() {
        tracing::debug!("SIGXFSZ not caught: {e}");
    }
}

/// Removes `path` on any exit, signals included (its owner still removes it on drop).
pub fn remove_on_exit(path: &Path) {
    install();
    if let Ok(mut files) = FILES.lock() {
        files.push(path.to_path_buf());
    }
}

/// Removes every registered file now (those already gone are skipped).
pub fn remove_all() {
    let files = match FILES.lock() {
        Ok(mut files) => std::mem::take(&mut *files),
        Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
    };
    for path in files {
        let _ = std::fs::remove_file(path);
    }
}
