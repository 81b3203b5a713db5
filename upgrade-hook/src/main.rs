//! `cks-upgrade-hook`: redeploys the cluster autoscaler on a CKS cluster's first control node
//! after an upgrade, or prints the command that would do it. The command line is in the library
//! ([`cks_upgrade_hook::cli`]).

fn main() -> std::process::ExitCode {
    cks_upgrade_hook::cli::main()
}
