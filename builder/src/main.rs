//! `cks-iso`: builds the CloudStack Kubernetes Service binaries ISO.
//!
//! This file only parses the command line and reports the outcome; the work is in the library.

use cks_builder::cli;

fn main() {
    // First of all, before the runtime exists: from here on Ctrl-C is the program's to handle,
    // so no moment of a command dies of it before it can clean up.
    let early =
        cli::Early::catch().unwrap_or_else(|error| fail(&format!("catching Ctrl-C: {error}"), 1));
    // A write past `ulimit -f` is then an error (EFBIG) the command cleans up after.
    cli::catch_file_size_signal()
        .unwrap_or_else(|error| fail(&format!("catching SIGXFSZ: {error}"), 1));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|error| fail(&format!("starting the async runtime: {error}"), 1));
    let result = runtime.block_on(async {
        let interrupt = early
            .listen()
            .map_err(|error| anyhow::anyhow!("listening for Ctrl-C: {error}"))?;
        let args = cli::parse();
        cli::init_output(&args);
        cli::run(args, interrupt).await
    });
    // Work on blocking threads that a stopped command could not cancel ends before the process
    // does, and with it the temporary directories it kept.
    runtime.shutdown_timeout(SHUTDOWN_WAIT);
    if let Err(error) = result {
        // The reader of stdout wanted no more (`| head`): a quiet end, as a filter's.
        if cli::stdout_closed(&error) {
            std::process::exit(0);
        }
        // Errors may quote a server's words or a URL the user gave: shown safe.
        fail(&cli::error_text(&error), cli::exit_status(&error));
    }
}

/// The longest wait at exit for blocking work (a kubeadm run, a file being hashed) to end.
const SHUTDOWN_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// Prints `message` as `cks-iso: error: …` (passwords left out, control characters escaped)
/// and exits with `status`.
fn fail(message: &str, status: i32) -> ! {
    let message = cks_builder::redact::passwords(message);
    eprintln!(
        "cks-iso: error: {}",
        cks_builder::redact::controls(&message)
    );
    std::process::exit(status);
}
