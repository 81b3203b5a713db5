//! `cks-iso`: builds the CloudStack Kubernetes Service binaries ISO.
//!
//! This file only parses the command line and reports the outcome; the work is in the library.

use clap::Parser;

use cks_builder::cli;

#[tokio::main]
async fn main() {
    let args = cli::Cli::parse();
    cli::init_logging(args.verbose);
    if let Err(error) = cli::run(args).await {
        eprintln!("cks-iso: error: {error:#}");
        std::process::exit(1);
    }
}
