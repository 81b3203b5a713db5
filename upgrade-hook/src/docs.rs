//! What `cks-upgrade-hook --help`, its subcommands' `--help` and the man pages show beyond the
//! flags: examples (as written, copyable), exit statuses, environment and files.

use cks_cli_docs::{ExitRow, Page, Pages};

/// The CloudStack credentials every command but `command` reads.
const ENV: [(&str, &str); 4] = [
    ("CLOUDSTACK_ENDPOINT", "the CloudStack API URL"),
    ("CLOUDSTACK_KEY", "the API key"),
    ("CLOUDSTACK_SECRET", "the secret key; never printed"),
    (
        "CLOUDSTACK_CONFIG",
        "an INI file with endpoint, key and secret, instead of the three above (section [cloudstack], or the one CLOUDSTACK_REGION names)",
    ),
];

/// What the commands read here and write on the nodes.
const FILES: [(&str, &str); 4] = [
    ("--ssh-key FILE", "the cluster's SSH private key"),
    ("--known-hosts FILE", "the host keys the nodes must present"),
    (
        "/opt/provider/provider.yaml",
        "on the nodes: the cloud controller manager manifest redeploy applies (--provider-manifest)",
    ),
    (
        "/var/tmp/cks-preload/",
        "on the nodes: where preload spools the image tarballs it sends (--spool-dir)",
    ),
];

/// The statuses of the redeploy commands.
const REDEPLOY_EXIT: [ExitRow; 2] = [
    (
        0,
        "refreshed, nothing to refresh, or (without --strict) a refresh failed and was printed as a warning",
    ),
    (1, "a refresh failed, with --strict"),
];

const REDEPLOY_EXAMPLE: &str = "\
cks-upgrade-hook redeploy --cluster-id UUID --ssh-key ~/.ssh/cks \\
  --known-hosts ./known_hosts";

const PRELOAD_EXAMPLE: &str = "\
cks-upgrade-hook preload --cluster-id UUID --iso cks-1.33.1-x86_64.iso --to 1.33.1 \\
  --ssh-key ~/.ssh/cks --known-hosts ./known_hosts";

const UPGRADE_EXAMPLE: &str = "\
cks-upgrade-hook upgrade --cluster-id UUID --to 1.33.1 --iso cks-1.33.1-x86_64.iso \\
  --ssh-key ~/.ssh/cks --known-hosts ./known_hosts";

const REDEPLOY: Page = Page {
    examples: REDEPLOY_EXAMPLE,
    exit_status: &REDEPLOY_EXIT,
    environment: &ENV,
    files: &FILES,
};

/// The examples, exit statuses, environment and files of `cks-upgrade-hook` and its
/// subcommands.
pub const PAGES: Pages = &[
    (
        "",
        Page {
            examples: "\
cks-upgrade-hook upgrade --cluster-id UUID --to 1.33.1 --iso cks-1.33.1-x86_64.iso \\
  --ssh-key ~/.ssh/cks --known-hosts ./known_hosts
cks-upgrade-hook redeploy --cluster-id UUID --ssh-key ~/.ssh/cks \\
  --known-hosts ./known_hosts",
            exit_status: &[
                (
                    0,
                    "done (redeploy: also a refresh that failed without --strict, printed as a warning)",
                ),
                (3, "upgrade only: refused before the upgrade"),
                (
                    4,
                    "upgrade only: the preload failed on a node (the upgrade was not started)",
                ),
            ],
            environment: &ENV,
            files: &FILES,
        },
    ),
    ("redeploy", REDEPLOY),
    ("redeploy-autoscaler", REDEPLOY),
    ("redeploy-provider", REDEPLOY),
    (
        "preload",
        Page {
            examples: PRELOAD_EXAMPLE,
            exit_status: &[
                (0, "every node holds every image"),
                (
                    1,
                    "a node failed: run again to finish (complete nodes are skipped, a copy cut off is resumed)",
                ),
                (
                    2,
                    "bad arguments, what cannot be found (the message names the flag that supplies it), or an ISO refused; nothing was sent",
                ),
            ],
            environment: &ENV,
            files: &FILES,
        },
    ),
    (
        "upgrade",
        Page {
            examples: UPGRADE_EXAMPLE,
            exit_status: &[
                (
                    0,
                    "upgraded (a refresh that fails afterwards is a warning unless --strict)",
                ),
                (
                    1,
                    "the upgrade failed (CloudStack's error and the cluster's state are printed) or, with --strict, a refresh failed",
                ),
                (
                    3,
                    "refused before the upgrade: the cluster not Running, the version unknown, not Ready or not newer, or --iso not the ISO CloudStack holds the checksum of, or failing verify",
                ),
                (
                    4,
                    "the preload failed on a node (the upgrade was not started)",
                ),
            ],
            environment: &ENV,
            files: &FILES,
        },
    ),
    (
        "command",
        Page {
            examples: "cks-upgrade-hook command --cluster-id UUID --min 1 --max 5",
            exit_status: &[],
            environment: &[],
            files: &[],
        },
    ),
    (
        "completions",
        Page {
            examples: "cks-upgrade-hook completions bash > ~/.local/share/bash-completion/completions/cks-upgrade-hook",
            exit_status: &[],
            environment: &[],
            files: &[],
        },
    ),
    (
        "man",
        Page {
            examples: "cks-upgrade-hook man | man -l -",
            exit_status: &[],
            environment: &[],
            files: &[],
        },
    ),
];
