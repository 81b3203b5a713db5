//! What `cks-iso`, `cks-rollout` and `cks-upgrade-hook` say about themselves beyond their flags,
//! written once for the three: the exit-status table they share ([`exit`]), each command's
//! examples, environment and files ([`Page`]), shown verbatim in `--help` and rendered as
//! sections of the man pages ([`man`]), the `completions` and `man` subcommands that print
//! the completion scripts and man pages the Debian package ships, and SIGXFSZ caught before
//! anything is written ([`catch_file_size_signal`]).
//!
//! ```
//! use cks_cli_docs::{Page, Pages};
//!
//! const PAGES: Pages = &[(
//!     "",
//!     Page {
//!         examples: "tool run --fast",
//!         exit_status: &[(3, "the run stopped")],
//!         environment: &[("TOOL_HOME", "where the tool keeps its state")],
//!         files: &[],
//!     },
//! )];
//! let command = cks_cli_docs::decorate(clap::Command::new("tool"), PAGES);
//! let help = command.clone().render_long_help().to_string();
//! assert!(help.contains("  tool run --fast"));
//! assert!(help.contains("  2  bad command line or input value"));
//! let page = cks_cli_docs::man::page(&command, "tool", PAGES, None).expect("renders");
//! assert!(String::from_utf8_lossy(&page).contains(".SH EXIT STATUS"));
//! ```

pub mod exit;
mod file_size;
pub mod man;
mod page;

pub use exit::{BadInput, ExitRow, bad_input, exit_status, is_bad_input};
pub use file_size::catch_file_size_signal;
pub use page::{Page, Pages, decorate, help_block};

/// `completions SHELL`: prints the shell completion script.
#[derive(Debug, Clone, clap::Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// `man [COMMAND]`: prints the man page (roff).
#[derive(Debug, Clone, clap::Args)]
pub struct ManArgs {
    /// A subcommand whose page to print (`build`, or `simulate run` as two words); the
    /// program's own page without it.
    #[arg(value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// The completion script of `command` for `shell`, the program named `name`.
pub fn completions(command: &clap::Command, name: &str, shell: clap_complete::Shell) -> Vec<u8> {
    let mut script = Vec::new();
    let mut command = command.clone().bin_name(name.to_string());
    clap_complete::generate(shell, &mut command, name.to_string(), &mut script);
    script
}

/// Runs `completions SHELL`: the script on stdout.
pub fn print_completions(
    command: &clap::Command,
    name: &str,
    args: &CompletionsArgs,
) -> std::io::Result<()> {
    use std::io::Write;
    std::io::stdout().write_all(&completions(command, name, args.shell))
}

/// Runs `man [COMMAND]`: the roff page on stdout.
pub fn print_man(
    command: &clap::Command,
    name: &str,
    pages: Pages,
    args: &ManArgs,
) -> anyhow::Result<()> {
    use std::io::Write;
    let sub = (!args.command.is_empty()).then(|| args.command.join(" "));
    let page = man::page(command, name, pages, sub.as_deref())?;
    std::io::stdout().write_all(&page)?;
    Ok(())
}
