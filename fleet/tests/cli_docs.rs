//! `cks-fleet`'s help, man pages and completions: the exit-status table in `--help` and the man
//! page, copyable examples, and every flag README's Fleet section names present in the help.

#[path = "../../cli-docs/tests/support/readme_flags.rs"]
mod support;

use std::process::Command;

fn fleet(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_cks-fleet"))
        .args(args)
        .output()
        .expect("cks-fleet runs");
    (
        out.status.code(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

#[test]
fn help_and_man_show_the_exit_statuses_and_completions_name_the_subcommands() {
    let (code, help) = fleet(&["run", "--help"]);
    assert_eq!(code, Some(0), "{help}");
    for row in [
        "Exit status:",
        "  3  the fleet halted, or a cluster failed",
        "  4  the fleet was cancelled",
    ] {
        assert!(help.contains(row), "{row:?} in\n{help}");
    }
    assert!(help.contains("cks-fleet run --fleet to-1.33 --file fleet.toml --store postgres://fleet@db.example/cks \\"), "{help}");
    let (code, man) = fleet(&["man", "run"]);
    assert_eq!(code, Some(0), "{man}");
    assert!(
        man.contains(".SH EXIT STATUS") && man.contains(".SH EXAMPLES"),
        "{man}"
    );
    let (code, script) = fleet(&["completions", "bash"]);
    assert_eq!(code, Some(0));
    for sub in ["plan", "run", "status", "cancel", "simulate"] {
        assert!(script.contains(sub), "{sub} in the completions");
    }
    let (code, said) = fleet(&["run", "--fleet", "f", "--no-such-flag"]);
    assert_eq!(code, Some(2), "{said}");
}

#[test]
fn every_flag_the_readme_names_is_in_the_commands_help() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("README");
    let missing = support::missing_flags(&readme, "cks-fleet", env!("CARGO_BIN_EXE_cks-fleet"));
    assert!(
        missing.is_empty(),
        "README names flags the help lacks:\n{}",
        missing.join("\n")
    );
}
