//! `cks-docs OUT`: writes the man pages (one per command and subcommand, `OUT/man/*.1`) and the
//! bash, zsh and fish completions (`OUT/completions/<shell>/`) of `cks-iso`, `cks-rollout`,
//! `cks-upgrade-hook` and `cks-fleet`, rendered from the clap commands their libraries expose,
//! for the Debian package. Each file is written under a temporary name and renamed when complete. The pages
//! and scripts are those `cks-iso man` and `cks-iso completions SHELL` print (the same code,
//! in `cks-cli-docs`), with each command's examples, exit statuses, environment and files.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap_complete::Shell;

fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().context("an output file has a folder")?;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let partial = path.with_extension("partial");
    std::fs::write(&partial, bytes).with_context(|| format!("writing {}", partial.display()))?;
    std::fs::rename(&partial, path).with_context(|| format!("renaming {}", path.display()))
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [out] = args.as_slice() else {
        bail!("usage: cks-docs OUT (the folder to write man/ and completions/ into)");
    };
    let out = PathBuf::from(out);
    let commands = [
        (
            "cks-iso",
            cks_builder::cli::command(),
            cks_builder::cli::PAGES,
        ),
        (
            "cks-rollout",
            cks_rollout::cli::command(),
            cks_rollout::cli::PAGES,
        ),
        (
            "cks-upgrade-hook",
            cks_upgrade_hook::cli::command(),
            cks_upgrade_hook::cli::PAGES,
        ),
        (
            "cks-fleet",
            cks_fleet::cli::command(),
            cks_fleet::cli::PAGES,
        ),
    ];
    let mut pages = 0;
    for (name, command, docs) in &commands {
        for (file, page) in cks_cli_docs::man::all_pages(command, name, docs)? {
            write(&out.join("man").join(file), &page)?;
            pages += 1;
        }
        for (shell, file) in [
            (Shell::Bash, name.to_string()),
            (Shell::Zsh, format!("_{name}")),
            (Shell::Fish, format!("{name}.fish")),
        ] {
            let script = cks_cli_docs::completions(command, name, shell);
            write(
                &out.join("completions").join(shell.to_string()).join(file),
                &script,
            )?;
        }
    }
    println!(
        "cks-docs: {pages} man pages and {} completion scripts in {}",
        commands.len() * 3,
        out.display()
    );
    Ok(())
}
