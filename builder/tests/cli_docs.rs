//! `cks-iso`'s exit statuses, help blocks, man page and completions, through the binary.

use std::process::{Command, Output};

fn cks_iso(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cks-iso"))
        .args(args)
        .env_remove("SOURCE_DATE_EPOCH")
        .output()
        .expect("cks-iso runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_bad_input_value_exits_2_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out_path = dir.path().join("out");
    let out_path = out_path.to_str().expect("utf-8");
    let script = |k8s: &'static str, arch: &'static str| {
        vec![
            "build", out_path, k8s, "1.6.2", "1.33.0", "n.yaml", "d.yaml", "cks", arch,
        ]
    };
    for (args, env, says) in [
        (vec!["build"], None, "missing OUTPUT_PATH"),
        (script("1.x", "x86_64"), None, "KUBERNETES_VERSION"),
        (script("1.33.13", "sparc"), None, "ARCH"),
        (
            script("1.33.13", "x86_64"),
            Some("yesterday"),
            "SOURCE_DATE_EPOCH",
        ),
        (
            [script("1.33.13", "x86_64"), vec!["--limit", "answer=1zz"]].concat(),
            None,
            "--limit",
        ),
    ] {
        let mut command = Command::new(env!("CARGO_BIN_EXE_cks-iso"));
        command.args(&args).env_remove("SOURCE_DATE_EPOCH");
        if let Some(value) = env {
            command.env("SOURCE_DATE_EPOCH", value);
        }
        let out = command.output().expect("cks-iso runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(stderr.contains(says), "{says} in {stderr}");
        assert!(
            !dir.path().join("out").exists(),
            "{args:?} left OUTPUT_PATH"
        );
    }
}

#[test]
fn help_shows_the_exit_status_table() {
    for args in [&["--help"][..], &["build", "--help"], &["verify", "--help"]] {
        let out = cks_iso(args);
        assert!(out.status.success(), "{args:?}");
        let help = stdout(&out);
        let table = help.split("Exit status:\n").nth(1).expect("the table");
        let codes: Vec<&str> = table
            .lines()
            .take_while(|l| !l.is_empty())
            .map(|l| l.split_whitespace().next().unwrap_or_default())
            .collect();
        assert_eq!(codes, ["0", "1", "2"], "{help}");
        assert!(
            table.contains("  2  bad command line or input value"),
            "{help}"
        );
    }
}

#[test]
fn completions_bash_is_a_script_naming_the_subcommands() {
    let out = cks_iso(&["completions", "bash"]);
    assert!(out.status.success());
    let script = stdout(&out);
    assert!(script.contains("complete -F"), "{script}");
    for sub in [
        "build",
        "release",
        "verify",
        "register",
        "catalog",
        "completions",
        "man",
    ] {
        assert!(script.contains(sub), "{sub}");
    }
    assert_eq!(cks_iso(&["completions", "tcsh"]).status.code(), Some(2));
}

#[test]
fn man_has_examples_exit_status_environment_and_files() {
    let out = cks_iso(&["man"]);
    assert!(out.status.success());
    let page = stdout(&out);
    for section in [
        ".SH EXAMPLES",
        ".SH EXIT STATUS",
        ".SH ENVIRONMENT",
        ".SH FILES",
        "cks\\-iso\\-build(1)",
    ] {
        assert!(page.contains(section), "{section} in\n{page}");
    }
    assert!(!page.contains("cks\\-iso\\-help(1)"), "{page}");
    let build = stdout(&cks_iso(&["man", "build"]));
    assert!(build.contains(".TH CKS-ISO-BUILD"), "{build}");
    assert!(build.contains("SOURCE_DATE_EPOCH"), "{build}");
    assert_eq!(cks_iso(&["man", "nope"]).status.code(), Some(2));
}

#[test]
fn the_build_help_example_is_the_readmes_as_written() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("README");
    let section = readme
        .split("### `cks-iso build`")
        .nth(1)
        .expect("the build section");
    let block: Vec<&str> = section
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("its first example")
        .lines()
        .collect();
    assert!(block.len() > 3, "{block:?}");
    let help = stdout(&cks_iso(&["build", "--help"]));
    let shown: Vec<String> = block.iter().map(|line| format!("  {line}")).collect();
    let lines: Vec<&str> = help.lines().collect();
    assert!(
        lines.windows(shown.len()).any(|w| w == shown.as_slice()),
        "README's example\n{}\nnot in\n{help}",
        shown.join("\n")
    );
}
