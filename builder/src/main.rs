//! `cks-iso`: builds the CloudStack Kubernetes Service binaries ISO.
//!
//! This file only parses the command line and reports the outcome; the work is in the library.

use clap::Parser;

use cks_builder::cli;

#[tokio::main]
async fn main() {
    // First of all, so that no moment of a command dies of Ctrl-C before it can clean up.
    let interrupt = match cli::Interrupt::listen() {
        Ok(interrupt) => interrupt,
        Err(error) => {
            eprintln!("cks-iso: error: listening for Ctrl-C: {error}");
            std::process::exit(1);
        }
    };
    let args = cli::Cli::parse();
    cli::init_logging(args.verbose);
    if let Err(error) = cli::run(args, interrupt).await {
        // Errors may quote a server's words or a URL the user gave: shown safe.
        let text = format!("{error:#}");
        let text = cks_builder::redact::passwords(&text);
        eprintln!("cks-iso: error: {}", cks_builder::redact::controls(&text));
        std::process::exit(1);
    }
}
