//! What a real gate shows (its command line and last line of output, sent to the events, the
//! webhook and `lasterror`): every secret the gate port knows replaced, also where the line is
//! cut to its bounded length, and the password of a store URL known as one.

use crate::gate::{exited, started};
use cks_rollout::adapters::gate_command::{CommandHooks, REDACTED, url_password};
use cks_rollout::ports::GateStatus;

const SECRET: &str = "s3cr3t-value-of-forty-characters-0123456";

fn last_line_of(command: &str) -> (String, String) {
    let mut hooks = CommandHooks::new().with_secrets([SECRET.to_string()]);
    let run = started(&mut hooks, command);
    match exited(&mut hooks, &run) {
        GateStatus::Exited { last_line, .. } => (run.command, last_line),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_secret_in_a_gates_command_line_or_output_is_never_shown() {
    let (command, line) = last_line_of(&format!("echo \"token={SECRET}\"; exit 1"));
    assert_eq!(command, format!("echo \"token={REDACTED}\"; exit 1"));
    assert_eq!(line, format!("token={REDACTED}"));
    // Where the 300-character cut falls inside the secret, no part of it is left.
    let (_, line) = last_line_of(&format!("printf '%0290d{SECRET}\\n' 0; exit 1"));
    assert!(!line.contains("s3cr3t"), "{line}");
    // A last line longer than the kept tail may begin inside a secret: what could be its end
    // is dropped.
    let (_, line) = last_line_of(&format!("printf '{SECRET}%04070d\\n' 0; exit 1"));
    assert!(!line.contains("characters-0123456"), "{line}");
    assert!(line.starts_with("000"), "{line}");
}

#[test]
fn the_password_of_a_store_url_is_found_in_the_url_or_its_parameters() {
    assert_eq!(
        url_password("postgres://u:pw@db.example:5432/cks"),
        Some("pw".into())
    );
    assert_eq!(
        url_password("postgres://u@db.example/cks?sslmode=verify-full&password=pw2"),
        Some("pw2".into())
    );
    assert_eq!(url_password("postgres://u@db.example/cks"), None);
    assert_eq!(url_password("sqlite:/var/lib/cks.db"), None);
}
