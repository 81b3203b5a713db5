//! What `cks-iso --help`, `cks-iso SUBCOMMAND --help` and the man pages show beyond the flags:
//! examples (as written, copyable), exit statuses, environment and files.

use cks_cli_docs::{Page, Pages};

/// The CloudStack credentials `register` reads.
const CLOUDSTACK_ENV: [(&str, &str); 4] = [
    ("CLOUDSTACK_ENDPOINT", "the CloudStack API URL (register)"),
    ("CLOUDSTACK_KEY", "the API key (register)"),
    (
        "CLOUDSTACK_SECRET",
        "the secret key (register); never printed",
    ),
    (
        "CLOUDSTACK_CONFIG",
        "an INI file with endpoint, key and secret, instead of the three above (section [cloudstack], or the one CLOUDSTACK_REGION names)",
    ),
];

/// What a build reads from the environment.
const BUILD_ENV: [(&str, &str); 5] = [
    (
        "AUTOSCALER_VERSION",
        "the cluster-autoscaler release (--autoscaler-version beats it)",
    ),
    (
        "CCM_VERSION",
        "the cloud controller manager tag (--ccm-version beats it)",
    ),
    (
        "SOURCE_DATE_EPOCH",
        "seconds since 1970 for every timestamp of the ISO and its SBOM (reproducible builds); anything else exits 2",
    ),
    (
        "DOCKER_CONFIG",
        "the folder of docker login's config.json (default ~/.docker)",
    ),
    ("RUST_LOG", "log filter, instead of -v"),
];

/// What `release` shows: each form it is run in.
const RELEASE_EXAMPLES: &str = "\
# The newest patch of the three newest minors, for both arches; then the folder's catalog.
cks-iso release --minors 3 --arch x86_64,aarch64 --config cks.toml --output-path ./out

# What a run would do, without doing it: built, kept or rebuilt, and why.
cks-iso release --minors 1.32,1.33 --output-path ./out --dry-run

# Named minors, signed, published at a URL; a failing minor does not stop the others.
cks-iso release --minors 1.31,1.32,1.33 --output-path ./out --keep-going \\
  --base-url https://images.example/cks/ --sign-key release.key

# Each minor its own arches and tool versions.
cks-iso release --matrix release.toml --output-path ./out --json";

/// What a release reads and writes beside its inputs.
const RELEASE_FILES: [(&str, &str); 4] = [
    (
        "--output-path DIR",
        "the ISOs, each with its .sha256 sidecar, SBOM (.iso.spdx.json) and, signed, .sig; catalog.json and SHA256SUMS-X.Y",
    ),
    (
        "DIR/.cks-iso.lock",
        "held while the release writes to the folder (names its pid)",
    ),
    (
        "cks.toml",
        "the --config file: build inputs as kebab-case keys",
    ),
    (
        "~/.docker/config.json",
        "registry credentials (auths, credsStore, credHelpers) for private registries",
    ),
];

/// What a build reads and writes beside its inputs.
const BUILD_FILES: [(&str, &str); 4] = [
    (
        "OUTPUT_PATH/BUILD_NAME-ARCH.iso",
        "the ISO, with its .sha256 sidecar and its SBOM, .iso.spdx.json",
    ),
    (
        "OUTPUT_PATH/.cks-iso.lock",
        "held while a build or release writes to OUTPUT_PATH (names its pid)",
    ),
    (
        "cks.toml",
        "the --config file: build inputs as kebab-case keys",
    ),
    (
        "~/.docker/config.json",
        "registry credentials (auths, credsStore, credHelpers) for private registries",
    ),
];

/// The README's `cks-iso build` example, shown as written.
const BUILD_EXAMPLE: &str = "\
cks-iso build ./out 1.33.13 1.6.2 1.33.0 \\
  https://github.com/flannel-io/flannel/releases/download/v0.26.7/kube-flannel.yml \\
  https://raw.githubusercontent.com/kubernetes/dashboard/v2.7.0/aio/deploy/recommended.yaml \\
  cks-1.33.13 x86_64 3.5.21
# -> out/cks-1.33.13-x86_64.iso, its .sha256 sidecar and its SBOM, .iso.spdx.json

# One ISO for every CloudStack line: the legacy dashboard (4.20, 4.22) and Headlamp (4.23)
cks-iso build ./out 1.33.13 1.6.2 1.33.0 kube-flannel.yml 0.40.1 cks-1.33.13 \\
  --dashboard-yaml https://raw.githubusercontent.com/kubernetes/dashboard/v2.7.0/aio/deploy/recommended.yaml

# Named flags and a config file; flags beat the environment beat the config
cks-iso build --config cks.toml --kubernetes-version 1.33.13 --arch aarch64";

/// The examples, exit statuses, environment and files of `cks-iso` and its subcommands.
pub const PAGES: Pages = &[
    (
        "",
        Page {
            examples: "\
# Build the ISO (the script's arguments), then register it in CloudStack
cks-iso build ./out 1.33.13 1.6.2 1.33.0 \\
  https://github.com/flannel-io/flannel/releases/download/v0.26.7/kube-flannel.yml \\
  https://raw.githubusercontent.com/kubernetes/dashboard/v2.7.0/aio/deploy/recommended.yaml \\
  cks-1.33.13 x86_64 3.5.21
cks-iso verify out/cks-1.33.13-x86_64.iso
cks-iso register out/cks-1.33.13-x86_64.iso --url http://images.example/cks-1.33.13-x86_64.iso

# Shell completions and the man page
cks-iso completions bash > ~/.local/share/bash-completion/completions/cks-iso
cks-iso man | man -l -",
            exit_status: &[],
            environment: &[
                BUILD_ENV[0],
                BUILD_ENV[1],
                BUILD_ENV[2],
                BUILD_ENV[3],
                CLOUDSTACK_ENV[0],
                CLOUDSTACK_ENV[1],
                CLOUDSTACK_ENV[2],
                CLOUDSTACK_ENV[3],
                BUILD_ENV[4],
            ],
            files: &BUILD_FILES,
        },
    ),
    (
        "build",
        Page {
            examples: BUILD_EXAMPLE,
            exit_status: &[(
                1,
                "the build failed or was interrupted (Ctrl-C); nothing is left in OUTPUT_PATH",
            )],
            environment: &BUILD_ENV,
            files: &BUILD_FILES,
        },
    ),
    (
        "release",
        Page {
            examples: RELEASE_EXAMPLES,
            exit_status: &[(
                1,
                "a build or the catalog failed (with --keep-going, after the table)",
            )],
            environment: &BUILD_ENV,
            files: &RELEASE_FILES,
        },
    ),
    (
        "register",
        Page {
            examples: "\
export CLOUDSTACK_ENDPOINT=https://cloud.example/client/api CLOUDSTACK_KEY=... CLOUDSTACK_SECRET=...
cks-iso register out/cks-1.33.13-x86_64.iso --url http://images.example/cks-1.33.13-x86_64.iso",
            exit_status: &[],
            environment: &CLOUDSTACK_ENV,
            files: &[],
        },
    ),
    (
        "diff",
        Page {
            examples: "cks-iso diff cks-1.33.12-x86_64.iso cks-1.33.13-x86_64.iso",
            exit_status: &[
                (0, "the ISOs record the same content"),
                (1, "the ISOs differ"),
                (
                    2,
                    "trouble, as diff(1) has it: an ISO cannot be read, a bad command line, or Ctrl-C",
                ),
            ],
            environment: &[],
            files: &[],
        },
    ),
    (
        "completions",
        Page {
            examples: "\
cks-iso completions bash > ~/.local/share/bash-completion/completions/cks-iso
cks-iso completions zsh > ~/.zfunc/_cks-iso
cks-iso completions fish > ~/.config/fish/completions/cks-iso.fish",
            exit_status: &[],
            environment: &[],
            files: &[],
        },
    ),
    (
        "man",
        Page {
            examples: "\
cks-iso man | man -l -
cks-iso man build > cks-iso-build.1",
            exit_status: &[],
            environment: &[],
            files: &[],
        },
    ),
];
