//! What `cks-fleet --help`, its subcommands' `--help` and the man pages show beyond the flags:
//! examples (as written, copyable), exit statuses, environment and files.

use cks_cli_docs::{ExitRow, Page, Pages};

/// What every command that reaches CloudStack or the store reads.
const ENV: [(&str, &str); 6] = [
    ("CLOUDSTACK_ENDPOINT", "the CloudStack API URL"),
    ("CLOUDSTACK_KEY", "the API key"),
    ("CLOUDSTACK_SECRET", "the secret key; never printed"),
    (
        "CLOUDSTACK_CONFIG",
        "an INI file with endpoint, key and secret, instead of the three above",
    ),
    ("CKS_ROLLOUT_STORE", "the store, as --store"),
    (
        "PGPASSWORD",
        "the PostgreSQL password of a postgres:// store",
    ),
];

const FILES: [(&str, &str); 3] = [
    (
        "--file FILE",
        "the fleet file (TOML): to, settings, [select], [[stage]], halt_after, gates, windows",
    ),
    (
        "cks-rollout.db",
        "the default store (SQLite) in the working directory; the fleets table beside the rollout's",
    ),
    (
        "--events FILE",
        "one JSON line per event, the clusters' rollout lines among them",
    ),
];

/// The statuses every fleet command shares beyond 0 to 2.
const EXIT: [ExitRow; 3] = [
    (3, "the fleet halted, or a cluster failed"),
    (4, "the fleet was cancelled"),
    (5, "a simulator invariant broke (simulate)"),
];

const PLAN_EXAMPLE: &str = "\
cks-fleet plan --fleet to-1.33 --to 1.33.1 --zone zone1 --version '<1.33' \\
  --stage name=canary,clusters=1,soak=30m --stage name=ten-percent,percent=10,parallelism=2,soak=30m \\
  --stage name=rest,parallelism=4,soak=30m --halt-after 2";

const RUN_EXAMPLE: &str = "\
# on each machine, the same fleet and store: the first creates the fleet, the others join it
cks-fleet run --fleet to-1.33 --file fleet.toml --store postgres://fleet@db.example/cks \\
  --iso cks-1.33.1-x86_64.iso --ssh-key ~/.ssh/cks --known-hosts ./known_hosts --events fleet.jsonl";

const STATUS_EXAMPLE: &str =
    "cks-fleet status --fleet to-1.33 --store postgres://fleet@db.example/cks --watch";

const CANCEL_EXAMPLE: &str =
    "cks-fleet cancel --fleet to-1.33 --store postgres://fleet@db.example/cks";

const SIMULATE_EXAMPLE: &str = "cks-fleet simulate --fleet-file fleet/examples/simulate-fleet.yaml";

const fn page(examples: &'static str) -> Page {
    Page {
        examples,
        exit_status: &EXIT,
        environment: &ENV,
        files: &FILES,
    }
}

/// The examples, exit statuses, environment and files of `cks-fleet` and its subcommands.
pub const PAGES: Pages = &[
    ("", page(RUN_EXAMPLE)),
    ("plan", page(PLAN_EXAMPLE)),
    ("run", page(RUN_EXAMPLE)),
    ("status", page(STATUS_EXAMPLE)),
    ("cancel", page(CANCEL_EXAMPLE)),
    (
        "simulate",
        Page {
            examples: SIMULATE_EXAMPLE,
            exit_status: &EXIT,
            environment: &[],
            files: &[],
        },
    ),
];
