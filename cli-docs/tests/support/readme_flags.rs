//! Test support shared by the three binaries' test suites (included by path): every `--flag`
//! README names in the sections about a binary exists in that command's `--help`.
//!
//! A section is a `###` heading naming the binary, with its `####` subsections. A flag in a
//! code span or example line that starts with `BINARY SUBCOMMAND` belongs to that subcommand;
//! a flag in a code span of its own (`--mirror URL`) to any subcommand the section names (or
//! the program's own options). Spans and lines of other programs (`ctr`, `kubectl`, `cargo`)
//! are left out, and so is a line that says the flag it names is hidden.

use std::collections::BTreeMap;
use std::process::Command;

/// The flags of `exe ARGS... --help`: those its option lines define, not those its prose names.
fn defined_flags(exe: &str, args: &[&str]) -> Option<(Vec<String>, Vec<String>)> {
    let out = Command::new(exe)
        .args(args)
        .arg("--help")
        .output()
        .expect("the binary runs");
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let mut flags = Vec::new();
    let mut subcommands = Vec::new();
    let mut in_commands = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if line.starts_with("Commands:") {
            in_commands = true;
            continue;
        }
        if in_commands {
            match trimmed.split_whitespace().next() {
                Some(name) if line.starts_with("  ") => subcommands.push(name.to_string()),
                _ => in_commands = false,
            }
        }
        if trimmed.starts_with('-') {
            let head = trimmed.split("  ").next().unwrap_or_default();
            flags.extend(flag_words(head));
        }
    }
    Some((flags, subcommands))
}

/// Every `--word` in `text`.
fn flag_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("--") {
        let after = &rest[at + 2..];
        let len = after
            .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'))
            .unwrap_or(after.len());
        let word = after[..len].trim_end_matches('-');
        let starts_word = at == 0 || !rest[..at].ends_with(|c: char| c.is_alphanumeric());
        if starts_word && word.starts_with(|c: char| c.is_ascii_lowercase()) {
            out.push(format!("--{word}"));
        }
        rest = &after[len.max(1).min(after.len())..];
        if after.is_empty() {
            break;
        }
    }
    out
}

/// The sections of README about `binary`: heading and body.
fn sections(readme: &str, binary: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in readme.lines() {
        if line.starts_with("## ") || line.starts_with("### ") {
            out.extend(current.take());
            if line.starts_with("### ") && line.contains(&format!("{binary}`"))
                || line.starts_with("### ") && line.contains(&format!("{binary} "))
            {
                current = Some((line.to_string(), String::new()));
            }
            continue;
        }
        if let Some((_, body)) = current.as_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    out.extend(current);
    out
}

/// Where README puts a flag: a subcommand, or the section as a whole.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Owner {
    Command(String),
    Section,
}

/// The (owner, flag) pairs of one section, and the subcommands it names.
fn named(body: &str, binary: &str) -> (Vec<(Owner, String)>, Vec<String>) {
    let mut pairs = Vec::new();
    let mut commands = Vec::new();
    let mut owner_of = |text: &str, pairs: &mut Vec<(Owner, String)>, own: bool| {
        let text = text.trim().trim_start_matches("- ").trim_start();
        if let Some(rest) = text.strip_prefix(binary).filter(|r| r.starts_with(' ')) {
            let sub = rest.split_whitespace().next().unwrap_or_default();
            if !sub.starts_with('-') && !sub.is_empty() {
                for sub in sub.split('|') {
                    commands.push(sub.to_string());
                }
                let owner = Owner::Command(sub.to_string());
                pairs.extend(flag_words(rest).into_iter().map(|f| (owner.clone(), f)));
                return;
            }
            pairs.extend(flag_words(rest).into_iter().map(|f| (Owner::Section, f)));
        } else if own && text.starts_with("--") {
            pairs.extend(flag_words(text).into_iter().map(|f| (Owner::Section, f)));
        }
    };
    let mut fence: Option<String> = None;
    let mut continued: Option<String> = None;
    for line in body.lines() {
        if let Some(lang) = line.trim_start().strip_prefix("```") {
            fence = match fence {
                Some(_) => None,
                None => Some(lang.to_string()),
            };
            continue;
        }
        match fence.as_deref() {
            Some("sh" | "" | "yaml" | "yml") => {
                let code = line.split(" #").next().unwrap_or_default();
                let code = if code.trim_start().starts_with('#') {
                    ""
                } else {
                    code
                };
                let whole = match continued.take() {
                    Some(before) => format!("{before} {code}"),
                    None => code.to_string(),
                };
                if whole.trim_end().ends_with('\\') {
                    continued = Some(whole.trim_end().trim_end_matches('\\').to_string());
                } else {
                    owner_of(&whole, &mut pairs, false);
                }
            }
            Some(_) => {}
            // A line that says a flag is hidden names one `--help` does not list.
            None if line.contains("hidden") => {}
            None => {
                for (i, span) in line.split('`').enumerate() {
                    if i % 2 == 1 {
                        owner_of(&span.replace("\\|", "|"), &mut pairs, true);
                    }
                }
            }
        }
    }
    (pairs, commands)
}

/// The problems: each flag README names for `binary` (run as `exe`) that its command's help
/// lacks, as `heading: --flag (command)`.
pub fn missing_flags(readme: &str, binary: &str, exe: &str) -> Vec<String> {
    let top = defined_flags(exe, &[]).expect("--help runs").0;
    let mut helps: BTreeMap<String, Option<Vec<String>>> = BTreeMap::new();
    let mut help_of = |sub: &str| -> Option<Vec<String>> {
        helps
            .entry(sub.to_string())
            .or_insert_with(|| {
                let (mut flags, subs) = defined_flags(exe, &[sub])?;
                for inner in subs {
                    if let Some((more, _)) = defined_flags(exe, &[sub, inner.as_str()]) {
                        flags.extend(more);
                    }
                }
                Some(flags)
            })
            .clone()
    };
    let mut problems = Vec::new();
    for (heading, body) in sections(readme, binary) {
        let (pairs, commands) = named(&body, binary);
        let mut section_flags = top.clone();
        for command in &commands {
            section_flags.extend(help_of(command).unwrap_or_default());
        }
        for (owner, flag) in pairs {
            let known = match &owner {
                Owner::Command(sub) => match help_of(sub) {
                    Some(flags) => flags.contains(&flag) || top.contains(&flag),
                    // Not a subcommand (`cks-iso build ...` with no subcommand word): the section's.
                    None => section_flags.contains(&flag),
                },
                Owner::Section => section_flags.contains(&flag),
            };
            if !known {
                problems.push(format!("{heading}: {flag} ({owner:?})"));
            }
        }
    }
    problems.sort();
    problems.dedup();
    problems
}
