//! `cks-upgrade-hook`'s exit statuses, help blocks, man page and completions, and README's
//! flags, through the binary.

use std::process::{Command, Output};

#[path = "../../cli-docs/tests/support/readme_flags.rs"]
mod readme_flags;

fn hook(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cks-upgrade-hook"))
        .args(args)
        .env("CLOUDSTACK_ENDPOINT", "http://127.0.0.1:9/client/api")
        .env("CLOUDSTACK_KEY", "key")
        .env("CLOUDSTACK_SECRET", "secret")
        .env_remove("CLOUDSTACK_CONFIG")
        .output()
        .expect("cks-upgrade-hook runs")
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

const ID: &str = "3f1c2b9e-8d7a-4c4e-9f0a-1b2c3d4e5f60";

#[test]
fn a_bad_value_exits_2_and_an_unreachable_cloudstack_1() {
    for args in [
        &[
            "redeploy",
            "--cluster-id",
            "nope",
            "--ssh-key",
            "/etc/hostname",
        ][..],
        &["redeploy", "--cluster-id", ID, "--timeout", "0s"],
        &[
            "preload",
            "--cluster-id",
            ID,
            "--iso",
            "x.iso",
            "--to",
            "1.33.1",
            "--parallel",
            "0",
        ],
        &["command", "--cluster-id", ID, "--min", "6", "--max", "5"],
        &["upgrade", "--cluster-id", ID, "--to", "1.33.1"],
    ] {
        let out = hook(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert_eq!(text(&out).trim().lines().count(), 1, "{}", text(&out));
    }
    // CloudStack cannot be reached: the work failed, status 1 as for cks-iso and cks-rollout.
    let out = hook(&[
        "redeploy",
        "--cluster-id",
        ID,
        "--ssh-key",
        "/etc/hostname",
        "--known-hosts",
        "/etc/hostname",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
}

#[test]
fn help_shows_the_exit_status_table() {
    for args in [
        &["--help"][..],
        &["redeploy", "--help"],
        &["upgrade", "--help"],
    ] {
        let help = text(&hook(args));
        let table = help.split("Exit status:\n").nth(1).expect("the table");
        let codes: Vec<&str> = table
            .lines()
            .take_while(|l| !l.is_empty())
            .map(|l| l.split_whitespace().next().unwrap_or_default())
            .collect();
        assert_eq!(&codes[..3], ["0", "1", "2"], "{help}");
        assert!(
            table.contains("  2  bad command line or input value"),
            "{help}"
        );
    }
    let upgrade = text(&hook(&["upgrade", "--help"]));
    assert!(
        upgrade.contains("  3  refused before the upgrade"),
        "{upgrade}"
    );
    assert!(
        upgrade.contains("  4  the preload failed on a node"),
        "{upgrade}"
    );
}

#[test]
fn completions_and_man_print_to_stdout() {
    let script = text(&hook(&["completions", "bash"]));
    for sub in ["redeploy", "preload", "upgrade", "completions", "man"] {
        assert!(script.contains(sub), "{sub}");
    }
    let page = text(&hook(&["man"]));
    for section in [
        ".SH EXAMPLES",
        ".SH EXIT STATUS",
        ".SH ENVIRONMENT",
        ".SH FILES",
    ] {
        assert!(page.contains(section), "{section}");
    }
    assert!(!page.contains("help(1)"), "{page}");
}

#[test]
fn every_flag_the_readme_names_is_in_the_commands_help() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("README");
    let missing = readme_flags::missing_flags(
        &readme,
        "cks-upgrade-hook",
        env!("CARGO_BIN_EXE_cks-upgrade-hook"),
    );
    assert!(
        missing.is_empty(),
        "README names flags the help lacks:\n{}",
        missing.join("\n")
    );
}
