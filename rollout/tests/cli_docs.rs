//! `cks-rollout`'s exit statuses, help blocks, man page and completions, the simulator's text
//! output in words, and README's flags, through the binary.

use std::process::{Command, Output};

#[path = "../../cli-docs/tests/support/readme_flags.rs"]
mod readme_flags;

fn rollout(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cks-rollout"))
        .args(args)
        .env_remove("KUBECONFIG")
        .env_remove("CKS_ROLLOUT_STORE")
        .output()
        .expect("cks-rollout runs")
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

const EXAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/examples/simulate-cluster.yaml"
);
const SETTINGS: [&str; 8] = [
    "--offering",
    "worker=large",
    "--offering",
    "control=large",
    "--root-disk-size",
    "worker=40",
    "--maxunavailable",
    "2",
];

#[test]
fn the_simulator_prints_values_as_a_person_writes_them() {
    let plan = rollout(&[&["simulate", "--cluster", EXAMPLE, "plan"][..], &SETTINGS].concat());
    assert!(plan.status.success(), "{}", text(&plan));
    let plan = text(&plan);
    for says in [
        "c-1 (out of date): offering small -> large",
        "w-1 (out of date): offering small -> large, root disk 20 GB -> 40 GB",
        "batch 1: c-1 — preflight pass",
    ] {
        assert!(plan.contains(says), "{says} in\n{plan}");
    }
    let run = rollout(
        &[
            &["simulate", "--cluster", EXAMPLE, "run"][..],
            &SETTINGS,
            &["--soak", "10m"],
        ]
        .concat(),
    );
    assert!(run.status.success(), "{}", text(&run));
    let run = text(&run);
    for says in [
        "batch 1 preflight: c-1: pass",
        "batch 1 soak: 10m soak: c-1 must stay Ready",
        "1m43s batch 1 c-1 change_offering: large",
        "released: Running",
        "control: 3 node(s), offering large,",
    ] {
        assert!(run.contains(says), "{says} in\n{run}");
    }
    // No Rust debug form anywhere: no struct braces, no CamelCase step, no Some(..).
    for debug in [
        " { ",
        "Offering {",
        "OutOfDate",
        "ChangeOffering",
        "Some(",
        "600 s",
        ".0s ",
    ] {
        assert!(
            !plan.contains(debug) && !run.contains(debug),
            "{debug:?} shown"
        );
    }
}

#[test]
fn a_bad_value_exits_2_and_a_refused_call_1() {
    for args in [
        &[
            "simulate",
            "--cluster",
            EXAMPLE,
            "run",
            "--maxunavailable",
            "0",
        ][..],
        &["simulate", "--cluster", "/no/such/cluster.yaml", "plan"],
        &[
            "simulate",
            "--cluster",
            EXAMPLE,
            "run",
            "--soak",
            "ten minutes",
        ],
        &[
            "simulate",
            "--cluster",
            EXAMPLE,
            "run",
            "--affinity-groups",
            "worker=",
        ],
    ] {
        let out = rollout(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
    }
    let refused = rollout(&[
        "simulate",
        "--cluster",
        EXAMPLE,
        "run",
        "--offering",
        "worker=nope",
    ]);
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused));
}

#[test]
fn help_shows_the_exit_status_table_with_3_and_4() {
    for args in [
        &["--help"][..],
        &["run", "--help"],
        &["simulate", "run", "--help"],
    ] {
        let help = text(&rollout(args));
        let table = help.split("Exit status:\n").nth(1).expect("the table");
        let codes: Vec<&str> = table
            .lines()
            .take_while(|l| !l.is_empty())
            .map(|l| l.split_whitespace().next().unwrap_or_default())
            .collect();
        assert_eq!(&codes[..3], ["0", "1", "2"], "{help}");
        assert!(codes.contains(&"3"), "{help}");
        assert!(
            table.contains("  2  bad command line or input value"),
            "{help}"
        );
    }
    let top = text(&rollout(&["--help"]));
    assert!(
        top.contains("  4  the simulator found a broken invariant"),
        "{top}"
    );
    assert!(top.contains("  KUBECONFIG\n"), "{top}");
}

#[test]
fn completions_and_man_print_to_stdout() {
    let script = text(&rollout(&["completions", "bash"]));
    for sub in ["plan", "run", "simulate", "status", "completions", "man"] {
        assert!(script.contains(sub), "{sub}");
    }
    let page = text(&rollout(&["man"]));
    for section in [
        ".SH EXAMPLES",
        ".SH EXIT STATUS",
        ".SH ENVIRONMENT",
        ".SH FILES",
    ] {
        assert!(page.contains(section), "{section}");
    }
    assert!(!page.contains("help(1)"), "{page}");
    assert!(text(&rollout(&["man", "simulate", "run"])).contains(".TH CKS-ROLLOUT-SIMULATE-RUN"));
}

#[test]
fn every_flag_the_readme_names_is_in_the_commands_help() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("README");
    let missing =
        readme_flags::missing_flags(&readme, "cks-rollout", env!("CARGO_BIN_EXE_cks-rollout"));
    assert!(
        missing.is_empty(),
        "README names flags the help lacks:\n{}",
        missing.join("\n")
    );
}
