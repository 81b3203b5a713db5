//! What `cks-rollout --help`, its subcommands' `--help` and the man pages show beyond the
//! flags: examples (as written, copyable), exit statuses, environment and files.

use cks_cli_docs::{ExitRow, Page, Pages};

/// The statuses every rollout command may end with, beyond the shared ones.
const EXIT: [ExitRow; 2] = [
    (
        3,
        "the rollout stopped on an error (see lasterror in status)",
    ),
    (4, "the simulator found a broken invariant"),
];

/// What the live commands read from the environment.
const ENV: [(&str, &str); 7] = [
    ("CLOUDSTACK_ENDPOINT", "the CloudStack API URL"),
    ("CLOUDSTACK_KEY", "the API key"),
    ("CLOUDSTACK_SECRET", "the secret key; never printed"),
    (
        "CLOUDSTACK_CONFIG",
        "an INI file with endpoint, key and secret, instead of the three above (section [cloudstack], or the one CLOUDSTACK_REGION names)",
    ),
    (
        "KUBECONFIG",
        "taken as --kubeconfig FILE: it replaces the kubeconfig CloudStack would give (a --kubeconfig flag beats it)",
    ),
    ("CKS_ROLLOUT_STORE", "the store URL, as --store"),
    ("PGPASSWORD", "the PostgreSQL store's password"),
];

/// What the live commands read and write.
const FILES: [(&str, &str); 2] = [
    (
        "cks-rollout.db",
        "the default store (SQLite), made once CloudStack has the cluster",
    ),
    (
        "rollout/examples/simulate-cluster.yaml",
        "the simulator's cluster description, documented (in the source tree)",
    ),
];

const LIVE_EXAMPLES: &str = "\
cks-rollout plan --cluster-id X --ssh-key K --known-hosts F --offering worker=OFFERING_ID
cks-rollout run  --cluster-id X --ssh-key K --known-hosts F --offering worker=OFFERING_ID";

/// The examples, exit statuses, environment and files of `cks-rollout` and its subcommands.
pub const PAGES: Pages = &[
    (
        "",
        Page {
            examples: "\
cks-rollout plan --cluster-id X --ssh-key K --known-hosts F --offering worker=OFFERING_ID
cks-rollout run  --cluster-id X --ssh-key K --known-hosts F --offering worker=OFFERING_ID
cks-rollout status --watch --cluster-id X --ssh-key K --known-hosts F --events events.jsonl
cks-rollout simulate --cluster rollout/examples/simulate-cluster.yaml run --offering worker=large",
            exit_status: &EXIT,
            environment: &ENV,
            files: &FILES,
        },
    ),
    (
        "plan",
        Page {
            examples: LIVE_EXAMPLES,
            exit_status: &[],
            environment: &ENV,
            files: &FILES,
        },
    ),
    (
        "run",
        Page {
            examples: LIVE_EXAMPLES,
            exit_status: &[(
                1,
                "failed: an unreachable system, or the update call refused (nothing was rolled)",
            ), EXIT[0]],
            environment: &ENV,
            files: &FILES,
        },
    ),
    (
        "simulate",
        Page {
            examples: "\
cks-rollout simulate --cluster rollout/examples/simulate-cluster.yaml plan --offering worker=large
cks-rollout simulate --cluster rollout/examples/simulate-cluster.yaml run --offering worker=large --soak 10m",
            exit_status: &EXIT,
            environment: &[],
            files: &FILES,
        },
    ),
    (
        "simulate run",
        Page {
            examples: "cks-rollout simulate --cluster rollout/examples/simulate-cluster.yaml run --offering worker=large",
            exit_status: &[(1, "the update call was refused"), EXIT[0], EXIT[1]],
            environment: &[],
            files: &[],
        },
    ),
    (
        "completions",
        Page {
            examples: "cks-rollout completions bash > ~/.local/share/bash-completion/completions/cks-rollout",
            exit_status: &[],
            environment: &[],
            files: &[],
        },
    ),
    (
        "man",
        Page {
            examples: "cks-rollout man | man -l -",
            exit_status: &[],
            environment: &[],
            files: &[],
        },
    ),
];
