//! Registry credentials go only where they were given: never to a mirror of the registry on
//! another host (a plain-HTTP one included), never to a token realm on another host; and a
//! registry's error text reaches the user with its control characters escaped. The real
//! distribution registry with the fixtures' token server, whose log shows who asked for a token,
//! and a hostile registry written here.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;

use cks_builder::registry::{
    CredentialStore, Credentials, Endpoints, RegistryClient, RegistryError, RemoteName,
};
use cks_builder::retry::RetryPolicy;
use cks_fixtures::registry::{Auth, PASSWORD, Registry, USER};
use cks_fixtures::token_server::TokenServer;

fn credentials_for(host: &str) -> CredentialStore {
    let mut store = CredentialStore::default();
    store.insert(
        host,
        Credentials {
            username: USER.into(),
            password: PASSWORD.into(),
        },
    );
    store
}

/// Asks `registry` (through `mirrors`) for a manifest; the answer does not matter here.
async fn ask(
    image: &str,
    mirrors: &[String],
    insecure: &[String],
    credentials: CredentialStore,
) -> Result<(), RegistryError> {
    let endpoints = Endpoints::new(mirrors, insecure).expect("valid endpoints");
    let client =
        RegistryClient::new(endpoints, credentials, RetryPolicy::immediate(0)).expect("a client");
    let name = RemoteName::parse(&format!("{image}:3.10")).expect("a reference");
    client.manifest(&name, "3.10").await.map(|_| ())
}

/// A registry that answers every request with `status`, `headers` and `body`.
fn hostile_registry(status: &'static str, headers: String, body: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("binds");
    let host = listener.local_addr().expect("address").to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().expect("clone"));
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line.trim() != "" {
                line.clear();
            }
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\n{headers}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    host
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn credentials_for_a_registry_never_go_to_its_mirror_on_another_host() {
    let registry = tokio::task::spawn_blocking(|| Registry::start(Auth::Token))
        .await
        .expect("started")
        .expect("the real docker-registry");
    let mirror = registry.host();
    let tokens = registry.token_server().expect("a token server");

    // Credentials for registry.k8s.io, and a plain-HTTP mirror of it on another host.
    let _ = ask(
        "registry.k8s.io/pause",
        &[format!("registry.k8s.io=http://{mirror}")],
        std::slice::from_ref(&mirror),
        credentials_for("registry.k8s.io"),
    )
    .await;
    let asked = tokens.requests();
    assert!(!asked.is_empty(), "the mirror asked for a token");
    assert!(
        asked.iter().all(|r| r.ends_with(" user=")),
        "the mirror's token server was given a user: {asked:?}"
    );

    // Credentials given for the mirror itself are its own to receive (the log sees them).
    let _ = ask(
        "registry.k8s.io/pause",
        &[format!("registry.k8s.io=http://{mirror}")],
        std::slice::from_ref(&mirror),
        credentials_for(&mirror),
    )
    .await;
    let asked = tokens.requests();
    assert!(
        asked.iter().any(|r| r.ends_with(&format!(" user={USER}"))),
        "{asked:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn basic_credentials_never_go_to_a_token_realm_on_another_host() {
    let tokens = tokio::task::spawn_blocking(|| TokenServer::start(false))
        .await
        .expect("started")
        .expect("the token server");
    let port = tokens.realm().rsplit(':').next().map(str::to_string);
    let realm = format!("http://localhost:{}", port.expect("a port"));
    let host = hostile_registry(
        "401 Unauthorized",
        format!("WWW-Authenticate: Bearer realm=\"{realm}\",service=\"elsewhere\"\r\n"),
        "{}",
    );
    let err = ask(
        &format!("{host}/pause"),
        &[],
        std::slice::from_ref(&host),
        credentials_for(&host),
    )
    .await
    .expect_err("the hostile registry refuses every token");
    assert!(!err.to_string().contains(PASSWORD), "{err}");
    let asked = tokens.requests();
    assert!(!asked.is_empty(), "the realm was asked for a token");
    assert!(
        asked.iter().all(|r| r.ends_with(" user=")),
        "credentials went to a realm on another host: {asked:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn control_characters_in_a_registry_error_are_escaped() {
    let host = hostile_registry(
        "403 Forbidden",
        String::new(),
        r#"{"errors":[{"code":"DENIED","message":"\u001b]0;owned\u0007\u001b[2J\rall is well"}]}"#,
    );
    let err = ask(
        &format!("{host}/pause"),
        &[],
        std::slice::from_ref(&host),
        CredentialStore::default(),
    )
    .await
    .expect_err("403");
    let text = format!("{err:#}");
    assert!(text.contains("DENIED"), "{text}");
    assert!(
        !text.chars().any(|c| c.is_control() && c != '\n'),
        "a control character reached the message: {text:?}"
    );
    assert!(text.contains("\\u{1b}]0;owned\\u{7}"), "{text}");
}
