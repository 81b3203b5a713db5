//! `cks-rollout`: plan, run, cancel and watch a CKS node-settings rollout against CloudStack
//! and Kubernetes, or preview it on the simulator. See `cks-rollout --help`.

use cks_rollout::cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
