//! A command's examples, exit statuses, environment and files, and how `--help` shows them:
//! after the flags, in a block clap prints as written (never re-wrapped), so a multi-line
//! example stays one copyable command at any terminal width.

use crate::exit::{ExitRow, exit_status};

/// What a command's `--help` and man page say beyond its flags.
#[derive(Debug, Clone, Copy, Default)]
pub struct Page {
    /// Example commands, shown as written (comment lines begin with `#`).
    pub examples: &'static str,
    /// The command's own exit statuses, added to (or, for 0 to 2, rewording) the shared ones.
    pub exit_status: &'static [ExitRow],
    /// Environment variables the command reads, and what for.
    pub environment: &'static [(&'static str, &'static str)],
    /// Files the command reads or writes, and what they are.
    pub files: &'static [(&'static str, &'static str)],
}

/// The pages of a program: `""` for the program itself, else a subcommand's path (`build`,
/// `simulate run`).
pub type Pages = &'static [(&'static str, Page)];

/// The page of the (sub)command at `path` (`""` for the program), if it has one.
pub(crate) fn find(pages: Pages, path: &str) -> Option<&'static Page> {
    pages.iter().find(|(p, _)| *p == path).map(|(_, page)| page)
}

/// clap's own help layout, as its default template has it.
const CLAP_TEMPLATE: &str = "\
{before-help}{about-with-newline}
{usage-heading} {usage}

{all-args}{after-help}";

/// The block `--help` shows after the flags: `Examples:`, `Exit status:`, `Environment:` and
/// `Files:`, each entry indented by two spaces.
pub fn help_block(page: &Page) -> String {
    let mut out = String::new();
    if !page.examples.is_empty() {
        out.push_str("Examples:\n");
        for line in page.examples.lines() {
            if line.is_empty() {
                out.push('\n');
            } else {
                out.push_str(&format!("  {line}\n"));
            }
        }
        out.push('\n');
    }
    out.push_str("Exit status:\n");
    for (code, meaning) in exit_status(page.exit_status) {
        out.push_str(&format!("  {code}  {meaning}\n"));
    }
    for (title, rows) in [("Environment", page.environment), ("Files", page.files)] {
        if rows.is_empty() {
            continue;
        }
        out.push_str(&format!("\n{title}:\n"));
        for (name, meaning) in rows {
            out.push_str(&format!("  {name}\n      {meaning}\n"));
        }
    }
    out
}

/// `command` with each page's block shown by `--help` (and `-h`) of its (sub)command; a
/// subcommand without a page shows the shared exit statuses. The block is part of the help
/// template, which clap prints as written: only the flags' help is wrapped to the terminal.
pub fn decorate(command: clap::Command, pages: Pages) -> clap::Command {
    decorate_at(command, pages, "")
}

fn decorate_at(command: clap::Command, pages: Pages, path: &str) -> clap::Command {
    let page = find(pages, path).copied().unwrap_or_default();
    // clap prints an unknown tag such as `{y}` back as written; a `{` without its `}` would
    // drop the text after it, so the blocks hold none (the tests show each block whole).
    let template = format!("{CLAP_TEMPLATE}\n\n{}", help_block(&page));
    let names: Vec<String> = command
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    let mut command = command.help_template(template);
    for name in names {
        let sub_path = if path.is_empty() {
            name.clone()
        } else {
            format!("{path} {name}")
        };
        command = command.mut_subcommand(&name, |sub| decorate_at(sub, pages, &sub_path));
    }
    command
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGES: Pages = &[
        (
            "",
            Page {
                examples: "tool go \\\n  --a-very-long-flag-name-that-would-be-wrapped-by-clap=\
                           https://example.org/a/very/long/path/that/goes/on/and/on/and/on.yaml \\\n  --x {y}",
                exit_status: &[(3, "stopped")],
                environment: &[("HOME", "the home")],
                files: &[],
            },
        ),
        (
            "sub",
            Page {
                examples: "tool sub",
                ..EMPTY
            },
        ),
    ];
    const EMPTY: Page = Page {
        examples: "",
        exit_status: &[],
        environment: &[],
        files: &[],
    };

    fn command() -> clap::Command {
        decorate(
            clap::Command::new("tool")
                .term_width(40)
                .arg(
                    clap::Arg::new("flag")
                        .long("flag")
                        .help("a flag whose help is long enough to be wrapped at forty columns"),
                )
                .subcommand(clap::Command::new("sub"))
                .subcommand(clap::Command::new("other")),
            PAGES,
        )
    }

    #[test]
    fn examples_are_shown_as_written_at_any_width() {
        let help = command().render_long_help().to_string();
        for line in PAGES[0].1.examples.lines() {
            assert!(
                help.contains(&format!("\n  {line}\n")),
                "{line:?} in {help}"
            );
        }
        assert!(help.contains("  3  stopped"), "{help}");
        assert!(help.contains("  HOME\n"), "{help}");
    }

    #[test]
    fn every_subcommand_shows_the_exit_statuses() {
        let mut command = command();
        let sub = command.find_subcommand_mut("sub").expect("sub");
        let help = sub.render_long_help().to_string();
        assert!(help.contains("  tool sub\n"), "{help}");
        let other = command.find_subcommand_mut("other").expect("other");
        let help = other.render_long_help().to_string();
        assert!(help.contains("  2  bad command line"), "{help}");
        assert!(!help.contains("Examples:"), "{help}");
    }
}
