//! `cks-fleet`: upgrade and re-set every CKS cluster of a cloud in stages.

fn main() -> std::process::ExitCode {
    cks_fleet::cli::main()
}
