//! README's account of `cks-iso`'s command line agrees with the command line itself: one row per
//! command in "Other `cks-iso` commands", `--sign-key` on the commands that take it, and a hidden
//! flag never named without saying it is hidden.

use std::collections::BTreeMap;

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).expect("README")
}

/// The subcommands of `cks-iso`, in `--help`'s order, and the long flags each lists there.
fn visible_flags() -> Vec<(String, Vec<String>)> {
    cks_builder::cli::command()
        .get_subcommands()
        .map(|sub| {
            let flags = sub
                .get_arguments()
                .filter(|arg| !arg.is_hide_set())
                .filter_map(|arg| arg.get_long().map(str::to_string))
                .collect();
            (sub.get_name().to_string(), flags)
        })
        .collect()
}

#[test]
fn other_commands_has_one_row_per_command_but_registers_two_forms() {
    let text = readme();
    let table = text
        .split("### Other `cks-iso` commands")
        .nth(1)
        .expect("the section");
    let mut rows: BTreeMap<String, usize> = BTreeMap::new();
    for line in table.lines().skip_while(|l| !l.starts_with('|')) {
        let Some(cell) = line.strip_prefix("| `cks-iso ") else {
            if line.starts_with('|') {
                continue;
            }
            break;
        };
        let command = cell.split([' ', '`']).next().expect("a word");
        *rows.entry(command.to_string()).or_default() += 1;
    }
    let twice: Vec<_> = rows.iter().filter(|(_, n)| **n > 1).collect();
    // `register ISO` and `register --catalog` are two forms of one command.
    assert_eq!(twice, vec![(&"register".to_string(), &2)], "{rows:?}");
}

#[test]
fn sign_key_is_said_to_be_on_exactly_the_commands_that_take_it() {
    let with: Vec<String> = visible_flags()
        .into_iter()
        .filter(|(_, flags)| flags.iter().any(|f| f == "sign-key"))
        .map(|(name, _)| format!("`{name}`"))
        .collect();
    let listed = match with.as_slice() {
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
        [] => panic!("no command takes --sign-key"),
    };
    let text = readme().replace('\n', " ");
    let said = format!("`--sign-key` (on {listed})");
    assert!(text.contains(&said), "README should say {said}");
}

#[test]
fn a_hidden_alias_is_named_only_as_hidden() {
    let build = cks_builder::cli::command()
        .find_subcommand("build")
        .expect("build")
        .clone();
    let text = readme();
    let lines: Vec<&str> = text.lines().collect();
    for arg in build.get_arguments() {
        let visible: Vec<&str> = arg.get_visible_aliases().unwrap_or_default();
        let hidden = arg
            .get_all_aliases()
            .unwrap_or_default()
            .into_iter()
            .filter(|a| !visible.contains(a));
        for alias in hidden {
            let named = format!("`--{alias}`");
            let spaced = format!("`--{alias} ");
            for (at, line) in lines.iter().enumerate() {
                if !(line.contains(&named) || line.contains(&spaced)) {
                    continue;
                }
                let near = lines[at.saturating_sub(1)..(at + 2).min(lines.len())].join(" ");
                assert!(
                    near.contains("hidden"),
                    "README line {} names --{alias}, a hidden alias, as a flag: {line}",
                    at + 1
                );
            }
        }
    }
}
