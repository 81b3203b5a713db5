//! `cks-docs OUT`: writes the man pages (one per command and subcommand, `OUT/man/*.1`) and the
//! bash, zsh and fish completions (`OUT/completions/<shell>/`) of `cks-iso`, `cks-rollout` and
//! `cks-upgrade-hook`, rendered from the clap commands their libraries expose, for the Debian
//! package. Each file is written under a temporary name and renamed when complete.

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

/// Man pages of `command` (`<name>.1`, run as `invoked`) and, as `<name>-<sub>.1`, of each
/// subcommand.
fn man_pages(command: &clap::Command, name: &str, invoked: &str, dir: &Path) -> Result<usize> {
    let mut out = Vec::new();
    let named = command
        .clone()
        .display_name(name.to_string())
        .bin_name(invoked.to_string());
    clap_mangen::Man::new(named)
        .title(name.to_uppercase())
        .render(&mut out)
        .with_context(|| format!("rendering the man page of {name}"))?;
    write(&dir.join(format!("{name}.1")), &out)?;
    let mut pages = 1;
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        if sub.get_name() == "help" {
            continue;
        }
        let sub_name = format!("{name}-{}", sub.get_name());
        let sub_invoked = format!("{invoked} {}", sub.get_name());
        pages += man_pages(sub, &sub_name, &sub_invoked, dir)?;
    }
    Ok(pages)
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [out] = args.as_slice() else {
        bail!("usage: cks-docs OUT (the folder to write man/ and completions/ into)");
    };
    let out = PathBuf::from(out);
    let commands = [
        ("cks-iso", cks_builder::cli::command()),
        ("cks-rollout", cks_rollout::cli::command()),
        ("cks-upgrade-hook", cks_upgrade_hook::cli::command()),
    ];
    let mut pages = 0;
    for (name, command) in &commands {
        let mut command = command.clone().bin_name(*name);
        command.build();
        pages += man_pages(&command, name, name, &out.join("man"))?;
        for (shell, file) in [
            (Shell::Bash, name.to_string()),
            (Shell::Zsh, format!("_{name}")),
            (Shell::Fish, format!("{name}.fish")),
        ] {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut command.clone(), *name, &mut script);
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
