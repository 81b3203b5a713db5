//! Man pages from a clap command: clap_mangen's NAME, SYNOPSIS, DESCRIPTION, OPTIONS and
//! SUBCOMMANDS, then the sections a [`Page`] holds (EXAMPLES, EXIT STATUS, ENVIRONMENT,
//! FILES), the command's after-help text as NOTES, and VERSION. The `help` subcommand is left
//! out, so no page names a `*-help(1)` that is never written.

use std::io::Write;

use anyhow::{Context, Result};

use crate::exit::exit_status;
use crate::page::{Page, Pages, find};

/// The page of `name` (the program) or of its subcommand at `sub` (`build`, `simulate run`).
pub fn page(
    command: &clap::Command,
    name: &str,
    pages: Pages,
    sub: Option<&str>,
) -> Result<Vec<u8>> {
    let mut command = prepared(command, name);
    let Some(path) = sub.filter(|s| !s.trim().is_empty()) else {
        return render(&command, name, name, find(pages, ""));
    };
    let mut at = &mut command;
    let mut display = name.to_string();
    let mut invoked = name.to_string();
    for word in path.split_whitespace() {
        at = at
            .find_subcommand_mut(word)
            .filter(|s| !s.is_hide_set())
            .with_context(|| format!("{invoked} has no subcommand {word:?}"))
            .map_err(crate::bad_input)?;
        display = format!("{display}-{}", at.get_name());
        invoked = format!("{invoked} {}", at.get_name());
    }
    let words: Vec<&str> = path.split_whitespace().collect();
    render(at, &display, &invoked, find(pages, &words.join(" ")))
}

/// Every page of the program `name`: `(file name, roff)`, its own as `<name>.1` and each
/// subcommand's, at any depth, as `<name>-<sub>.1`.
pub fn all_pages(
    command: &clap::Command,
    name: &str,
    pages: Pages,
) -> Result<Vec<(String, Vec<u8>)>> {
    let command = prepared(command, name);
    let mut out = Vec::new();
    walk(&command, name, name, "", pages, &mut out)?;
    Ok(out)
}

fn walk(
    command: &clap::Command,
    display: &str,
    invoked: &str,
    path: &str,
    pages: Pages,
    out: &mut Vec<(String, Vec<u8>)>,
) -> Result<()> {
    out.push((
        format!("{display}.1"),
        render(command, display, invoked, find(pages, path))?,
    ));
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        let sub_path = if path.is_empty() {
            sub.get_name().to_string()
        } else {
            format!("{path} {}", sub.get_name())
        };
        walk(
            sub,
            &format!("{display}-{}", sub.get_name()),
            &format!("{invoked} {}", sub.get_name()),
            &sub_path,
            pages,
            out,
        )?;
    }
    Ok(())
}

/// `command` named `name`, built, without the `help` subcommand (at every level).
fn prepared(command: &clap::Command, name: &str) -> clap::Command {
    let mut command = command
        .clone()
        .bin_name(name.to_string())
        .disable_help_subcommand(true);
    command.build();
    command
}

fn render(
    command: &clap::Command,
    display: &str,
    invoked: &str,
    page: Option<&Page>,
) -> Result<Vec<u8>> {
    let named = command
        .clone()
        .display_name(display.to_string())
        .bin_name(invoked.to_string());
    let man = clap_mangen::Man::new(named.clone()).title(display.to_uppercase());
    let mut out = Vec::new();
    let failed = || format!("rendering the man page of {display}");
    man.render_title(&mut out).with_context(failed)?;
    man.render_name_section(&mut out).with_context(failed)?;
    man.render_synopsis_section(&mut out).with_context(failed)?;
    man.render_description_section(&mut out)
        .with_context(failed)?;
    if named.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut out).with_context(failed)?;
    }
    if named.get_subcommands().any(|s| !s.is_hide_set()) {
        man.render_subcommands_section(&mut out)
            .with_context(failed)?;
    }
    let page = page.copied().unwrap_or_default();
    sections(&mut out, &page).with_context(failed)?;
    if let Some(notes) = named
        .get_after_long_help()
        .or_else(|| named.get_after_help())
    {
        writeln!(out, ".SH NOTES")?;
        for line in notes.to_string().lines() {
            if line.trim().is_empty() {
                writeln!(out, ".PP")?;
            } else {
                writeln!(out, "{}", roff(line))?;
            }
        }
    }
    if named
        .get_version()
        .or_else(|| named.get_long_version())
        .is_some()
    {
        man.render_version_section(&mut out).with_context(failed)?;
    }
    Ok(out)
}

/// EXAMPLES (as written, never filled), EXIT STATUS, ENVIRONMENT and FILES.
fn sections(out: &mut Vec<u8>, page: &Page) -> std::io::Result<()> {
    if !page.examples.is_empty() {
        writeln!(out, ".SH EXAMPLES")?;
        writeln!(out, ".nf")?;
        for line in page.examples.lines() {
            writeln!(out, "{}", roff(line))?;
        }
        writeln!(out, ".fi")?;
    }
    writeln!(out, ".SH EXIT STATUS")?;
    for (code, meaning) in exit_status(page.exit_status) {
        writeln!(out, ".TP\n\\fB{code}\\fR\n{}", roff(meaning))?;
    }
    for (title, rows) in [("ENVIRONMENT", page.environment), ("FILES", page.files)] {
        if rows.is_empty() {
            continue;
        }
        writeln!(out, ".SH {title}")?;
        for (name, meaning) in rows {
            writeln!(out, ".TP\n\\fB{}\\fR\n{}", roff(name), roff(meaning))?;
        }
    }
    Ok(())
}

/// One line of text for roff: backslashes and minus signs kept as typed (so an example pasted
/// from the rendered page runs), and a line beginning with `.` or `'` not taken as a request.
fn roff(line: &str) -> String {
    let text = line.replace('\\', "\\e").replace('-', "\\-");
    if text.starts_with('.') || text.starts_with('\'') {
        format!("\\&{text}")
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGES: Pages = &[(
        "run",
        Page {
            examples: "tool run \\\n  --fast\n.hidden",
            exit_status: &[(3, "stopped")],
            environment: &[("TOOL_HOME", "state")],
            files: &[("/etc/tool.toml", "settings")],
        },
    )];

    fn command() -> clap::Command {
        clap::Command::new("tool").version("1").subcommand(
            clap::Command::new("run")
                .about("runs")
                .arg(clap::Arg::new("fast").long("fast")),
        )
    }

    #[test]
    fn a_subcommand_page_has_every_section_and_no_help_page_reference() {
        let text = String::from_utf8(page(&command(), "tool", PAGES, Some("run")).expect("page"))
            .expect("utf8");
        for section in [
            ".SH EXAMPLES",
            ".SH EXIT STATUS",
            ".SH ENVIRONMENT",
            ".SH FILES",
            ".SH OPTIONS",
        ] {
            assert!(text.contains(section), "{section} in {text}");
        }
        assert!(
            text.contains(".nf\ntool run \\e\n  \\-\\-fast\n\\&.hidden\n.fi"),
            "{text}"
        );
        assert!(text.contains("\\fB3\\fR\nstopped"), "{text}");
        let top =
            String::from_utf8(page(&command(), "tool", PAGES, None).expect("page")).expect("utf8");
        assert!(top.contains("tool\\-run(1)"), "{top}");
        assert!(!top.contains("help(1)"), "{top}");
    }

    #[test]
    fn every_page_is_named_for_its_command() {
        let names: Vec<String> = all_pages(&command(), "tool", PAGES)
            .expect("pages")
            .into_iter()
            .map(|(name, _)| name)
            .collect();
        assert_eq!(names, ["tool.1", "tool-run.1"]);
        assert!(page(&command(), "tool", PAGES, Some("nope")).is_err());
    }
}
