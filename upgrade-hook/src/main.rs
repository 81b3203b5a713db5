//! `cks-upgrade-hook`: preloads a new ISO's images on a CKS cluster's nodes, upgrades the
//! cluster, and refreshes its autoscaler and cloud controller manager on the first control node.
//! The command line is in the library ([`cks_upgrade_hook::cli`]).

fn main() -> std::process::ExitCode {
    cks_upgrade_hook::cli::main()
}
