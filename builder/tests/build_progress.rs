//! What a build shows while it works: a bar naming each image (not its digest) on a terminal,
//! plain lines through a pipe with `--progress plain`, nothing with `--quiet`, and no colour
//! escape in a pipe or under `NO_COLOR`.

use std::path::Path;
use std::process::{Command, Output};

use cks_fixtures::demo::run::{build_args, with_flag};
use cks_fixtures::demo::{DemoConfig, DemoUpstream};
use cks_pinning::arch::Arch;

/// `cks-iso` with `args` through a pipe (not a terminal).
fn piped(args: &[String], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cks-iso"));
    command.args(args).env_remove("CI").env_remove("NO_COLOR");
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("cks-iso runs")
}

/// `cks-iso` with `args` on a pseudo-terminal (`script`), 160 columns wide: what the
/// terminal was sent, stdout and stderr together.
fn on_a_terminal(args: &[String], env: &[(&str, &str)]) -> (bool, String) {
    let quoted: Vec<String> = std::iter::once(env!("CARGO_BIN_EXE_cks-iso").to_string())
        .chain(args.iter().cloned())
        .map(|a| format!("'{}'", a.replace('\'', r"'\''")))
        .collect();
    let line = format!("stty cols 160 rows 40; exec {}", quoted.join(" "));
    let mut command = Command::new("script");
    command
        .args(["-q", "-e", "-c", &line, "/dev/null"])
        .env_remove("CI")
        .env_remove("NO_COLOR")
        .env("TERM", "xterm-256color");
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().expect("script runs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

fn demo_build(upstream: &DemoUpstream, out: &Path) -> Vec<String> {
    build_args(upstream, out, Arch::Amd64)
}

/// A build refused before its plan for want of `dashboard.yaml`, `-vv`: the refusal's details
/// are a debug log line of ours.
fn refused_with_debug_logs(upstream: &DemoUpstream, out: &Path) -> Vec<String> {
    let args = with_flag(demo_build(upstream, out), "--dashboard-yaml", None);
    let mut args = with_flag(args, "--cloudstack", Some("4.22"));
    args.push("-vv".to_string());
    args
}

/// A Select Graphic Rendition escape (a colour or a style), `ESC [ ... m`.
fn has_colour(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.windows(2).enumerate().any(|(at, pair)| {
        pair == b"\x1b["
            && bytes[at + 2..]
                .iter()
                .find(|b| !(b.is_ascii_digit() || **b == b';'))
                == Some(&b'm')
    })
}

#[test]
fn a_build_on_a_terminal_shows_a_bar_naming_an_image() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let (ok, screen) = on_a_terminal(&demo_build(&upstream, out.path()), &[]);
    assert!(ok, "{screen}");
    // Some image's bar was drawn (which ones depends on the terminal's refresh), named by
    // the image and its tag, never by a digest.
    let named = screen.split(['\r', '\n']).any(|line| {
        line.contains(" layer ")
            && ["registry.k8s.io/", "ghcr.io/", "docker.io/"]
                .iter()
                .any(|registry| line.contains(registry))
    });
    assert!(named, "{screen}");
    // The summary's `sha256: <hex>` is the only sha256 shown: no bar is a digest.
    let digests = screen
        .match_indices("sha256:")
        .filter(|(at, _)| !screen[at + 7..].starts_with(' '))
        .count();
    assert_eq!(digests, 0, "{screen}");
    assert!(screen.contains("pack cks-demo-"), "{screen}");
}

#[test]
fn progress_plain_through_a_pipe_is_plain_lines_naming_images() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let mut args = demo_build(&upstream, out.path());
    args.extend(["--progress".to_string(), "plain".to_string()]);
    let output = piped(&args, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains('\x1b'), "{stderr}");
    assert!(!stderr.contains('\r'), "{stderr}");
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with("cks-iso: fetched registry.k8s.io/pause:")),
        "{stderr}"
    );
    assert!(stderr.contains("cks-iso: == pack cks-demo-"), "{stderr}");
    // The ISO's own lines: when its writing starts, with the size to expect, and when done.
    let iso = "cks-demo-1.33.13-x86_64.iso";
    let line = |start: &str| {
        stderr
            .lines()
            .any(|l| l.starts_with(&format!("cks-iso: {start} {iso} (")) && l.ends_with("iB)"))
    };
    assert!(line("writing") && line("wrote"), "{stderr}");
}

#[test]
fn the_pack_on_a_terminal_is_a_bar_of_the_iso_bytes() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let (ok, screen) = on_a_terminal(&demo_build(&upstream, out.path()), &[]);
    assert!(ok, "{screen}");
    // A bar line names the ISO file and counts its bytes, `<done>/<total>`.
    let iso = "cks-demo-1.33.13-x86_64.iso";
    let bar = screen.split(['\r', '\n']).any(|line| {
        line.find(iso).is_some_and(|at| {
            let rest = &line[at + iso.len()..];
            rest.contains("iB/") || rest.contains(" B/")
        })
    });
    assert!(bar, "{screen}");
}

#[test]
fn quiet_shows_no_progress() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let mut args = demo_build(&upstream, out.path());
    args.push("--quiet".to_string());
    let output = piped(&args, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("cks-iso: fetched"), "{stderr}");
    assert!(!stderr.contains("== "), "{stderr}");
}

#[test]
fn debug_logs_into_a_pipe_carry_no_ansi_escape_and_only_our_crates() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let args = refused_with_debug_logs(&upstream, out.path());
    let output = piped(&args, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(!stderr.contains('\x1b'), "{stderr}");
    assert!(
        stderr.contains("DEBUG cks_builder") && stderr.contains("deploy-kube-system"),
        "{stderr}"
    );
    for noisy in ["hyper", "reqwest", "h2::", "rustls"] {
        assert!(!stderr.contains(noisy), "{noisy} at -vv:\n{stderr}");
    }
}

#[test]
fn no_color_leaves_colours_out_on_a_terminal() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let args = refused_with_debug_logs(&upstream, out.path());
    let (_, coloured) = on_a_terminal(&args, &[]);
    assert!(has_colour(&coloured), "a terminal gets colours: {coloured}");
    let (_, plain) = on_a_terminal(&args, &[("NO_COLOR", "1")]);
    assert!(plain.contains("deploy-kube-system"), "{plain}");
    assert!(!has_colour(&plain), "{plain}");
}
