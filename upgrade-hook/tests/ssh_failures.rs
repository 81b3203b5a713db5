//! `cks-upgrade-hook redeploy-autoscaler` when SSH itself fails: refused, wrong key, unknown or
//! mismatched host key, timeouts, and bad arguments; each a warning outcome with no secret shown.

use std::fs;
use std::net::TcpListener;
use std::process::Command;

use cks_fixtures::process::free_port;
use cks_fixtures::sshd::keygen;

use crate::common::*;

#[test]
fn sshd_not_running_is_connection_refused() {
    let node = Node::start();
    let port = free_port().expect("free port");
    let mut args = node.base_args(port, &node.key());
    args.extend(
        [
            "--min",
            "1",
            "--max",
            "5",
            "--insecure-host-key",
            "--strict",
        ]
        .map(String::from),
    );
    let run = hook(&args);
    assert_eq!(run.code, Some(1), "{}", run.all_output);
    assert_eq!(run.json["cause"]["kind"], "transport");
    assert_eq!(run.json["cause"]["error"]["cause"], "connection_refused");
    assert_eq!(
        run.json["cause"]["error"]["target"],
        format!("127.0.0.1:{port}")
    );
    assert_no_secret(&run, &node.secrets(&[node.key()]));

    // The same with a pinned fingerprint, where the host key is scanned first.
    let fingerprint = node.sshd.host_fingerprint().expect("fingerprint");
    let mut args = node.base_args(port, &node.key());
    args.extend(
        [
            "--min",
            "1",
            "--max",
            "5",
            "--host-key-fingerprint",
            &fingerprint,
        ]
        .map(String::from),
    );
    let run = hook(&args);
    assert_eq!(run.code, Some(0));
    assert_eq!(
        run.json["cause"]["error"]["cause"], "connection_refused",
        "{}",
        run.all_output
    );
}

#[test]
fn a_wrong_key_is_an_authentication_failure() {
    let node = Node::start();
    let wrong = node.secrets.path().join(format!("wrong-{KEY_MARKER}"));
    keygen(&wrong).expect("second key");
    let mut args = node.base_args(node.sshd.port(), &wrong);
    args.extend(["--min", "1", "--max", "5", "--strict", "--known-hosts"].map(String::from));
    args.push(
        node.sshd
            .known_hosts()
            .expect("known_hosts")
            .display()
            .to_string(),
    );
    let run = hook(&args);
    assert_eq!(run.code, Some(1), "{}", run.all_output);
    assert_eq!(run.json["cause"]["error"]["cause"], "authentication");
    assert_eq!(run.json["cause"]["error"]["user"], node.sshd.user());
    assert!(node.calls().is_empty());
    assert_no_secret(&run, &node.secrets(&[node.key(), wrong]));
}

#[test]
fn an_unknown_host_key_is_refused() {
    let node = Node::start();
    let empty = node.secrets.path().join("empty_known_hosts");
    fs::write(&empty, "").expect("empty known_hosts");
    // A known_hosts trusting some other key for this host and port.
    let other_key = node.secrets.path().join("other_host");
    keygen(&other_key).expect("other host key");
    let other_pub = fs::read_to_string(other_key.with_extension("pub")).expect("pub");
    let mut fields = other_pub.split_whitespace();
    let (kind, blob) = (fields.next().expect("type"), fields.next().expect("blob"));
    let other = node.secrets.path().join("other_known_hosts");
    fs::write(
        &other,
        format!("[127.0.0.1]:{} {kind} {blob}\n", node.sshd.port()),
    )
    .expect("write");

    let real = node.sshd.host_fingerprint().expect("fingerprint");
    let changed =
        format!("has changed and you have requested strict checking. The server sent {real}.");
    for (file, says) in [
        (&empty, "No ED25519 host key is known"),
        (&other, changed.as_str()),
    ] {
        let mut args = node.base_args(node.sshd.port(), &node.key());
        args.extend(["--min", "1", "--max", "5", "--strict", "--known-hosts"].map(String::from));
        args.push(file.display().to_string());
        let run = hook(&args);
        assert_eq!(run.code, Some(1), "{}", run.all_output);
        assert_eq!(
            run.json["cause"]["error"]["cause"], "host_key_rejected",
            "{}",
            run.all_output
        );
        let detail = run.json["cause"]["error"]["detail"]
            .as_str()
            .expect("detail");
        assert!(detail.contains(says), "{detail}");
        assert_no_secret(&run, &node.secrets(&[node.key()]));
    }
    assert!(
        node.calls().is_empty(),
        "nothing may run on an unverified host"
    );
}

#[test]
fn the_pinned_fingerprint_is_checked() {
    let node = Node::start();
    let right = node.sshd.host_fingerprint().expect("fingerprint");
    let mut args = node.base_args(node.sshd.port(), &node.key());
    args.extend(
        [
            "--min",
            "1",
            "--max",
            "5",
            "--strict",
            "--host-key-fingerprint",
            &right,
        ]
        .map(String::from),
    );
    let ok = hook(&args);
    assert_eq!(ok.code, Some(0), "{}", ok.all_output);
    assert_eq!(ok.json["outcome"], "redeployed");
    assert_eq!(node.calls().len(), 3);

    let wrong = "SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    let mut args = node.base_args(node.sshd.port(), &node.key());
    args.extend(
        [
            "--min",
            "1",
            "--max",
            "5",
            "--strict",
            "--host-key-fingerprint",
            wrong,
        ]
        .map(String::from),
    );
    let refused = hook(&args);
    assert_eq!(refused.code, Some(1), "{}", refused.all_output);
    assert_eq!(refused.json["cause"]["error"]["cause"], "host_key_rejected");
    let detail = refused.json["cause"]["error"]["detail"]
        .as_str()
        .expect("detail");
    assert!(
        detail.contains(wrong) && detail.contains(&right),
        "{detail}"
    );
    assert_eq!(node.calls().len(), 3, "nothing more ran after the refusal");
}

#[test]
fn a_command_that_hangs_past_the_timeout_is_stopped() {
    let node = Node::start();
    node.set("autoscale.hang", "");
    let args = with(
        node.args(),
        &["--timeout", "2s", "--rollout-timeout", "1s", "--strict"],
    );
    let run = hook(&args);
    assert_eq!(run.code, Some(1), "{}", run.all_output);
    assert_eq!(run.json["step"], "redeploy");
    assert_eq!(run.json["cause"]["error"]["cause"], "command_timeout");
    assert_eq!(run.json["cause"]["error"]["after_secs"], 2);
    assert_no_secret(&run, &node.secrets(&[node.key()]));
}

#[test]
fn a_server_that_never_answers_hits_the_connect_timeout() {
    let node = Node::start();
    let silent = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = silent.local_addr().expect("addr").port();
    let mut args = node.base_args(port, &node.key());
    args.extend(
        [
            "--min",
            "1",
            "--max",
            "5",
            "--insecure-host-key",
            "--connect-timeout",
            "1s",
        ]
        .map(String::from),
    );
    let run = hook(&args);
    assert_eq!(run.code, Some(0), "{}", run.all_output);
    assert_eq!(
        run.json["cause"]["error"]["cause"], "connect_timeout",
        "{}",
        run.all_output
    );

    // With a pinned fingerprint the host key scan is what times out.
    let fingerprint = node.sshd.host_fingerprint().expect("fingerprint");
    let mut args = node.base_args(port, &node.key());
    args.extend(
        [
            "--min",
            "1",
            "--max",
            "5",
            "--connect-timeout",
            "1s",
            "--host-key-fingerprint",
            &fingerprint,
        ]
        .map(String::from),
    );
    let run = hook(&args);
    assert_eq!(
        run.json["cause"]["error"]["cause"], "connect_timeout",
        "{}",
        run.all_output
    );
    drop(silent);
}

#[test]
fn bad_arguments_exit_2_with_a_clear_message() {
    let node = Node::start();
    let mut args = node.args();
    let id = args.iter().position(|a| a == ID).expect("id arg");
    args[id] = "not-a-uuid".to_string();
    let output = Command::new(env!("CARGO_BIN_EXE_cks-upgrade-hook"))
        .args(&args)
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--cluster-id") && stderr.contains("not a UUID"),
        "{stderr}"
    );

    let mut args = node.args();
    let min = args.iter().position(|a| a == "--min").expect("--min") + 1;
    args[min] = "6".to_string();
    let output = Command::new(env!("CARGO_BIN_EXE_cks-upgrade-hook"))
        .args(&args)
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("minimum size 6 is above the maximum 5"),
        "{stderr}"
    );
    assert!(node.calls().is_empty());
}

#[test]
fn any_host_key_is_accepted_only_with_insecure_host_key() {
    let node = Node::start();
    let mut args = node.base_args(node.sshd.port(), &node.key());
    args.extend(
        [
            "--min",
            "1",
            "--max",
            "5",
            "--strict",
            "--insecure-host-key",
        ]
        .map(String::from),
    );
    let output = Command::new(env!("CARGO_BIN_EXE_cks-upgrade-hook"))
        .args(&args)
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("\"outcome\": \"redeployed\""), "{stdout}");
    assert!(stderr.contains("warning: --insecure-host-key"), "{stderr}");
}
