//! Pulling from the real registry behind htpasswd basic auth and behind a bearer-token server.

use crate::pull_common::pushed;
use base64::Engine as _;
use cks_builder::registry::{Arch, CredentialStore, Credentials, RegistryError};
use cks_fixtures::registry::{Auth, PASSWORD, USER};

fn credentials(host: &str) -> CredentialStore {
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn basic_auth_needs_credentials_and_says_so_without_them() {
    let set = pushed(Auth::Basic, &["multi"]);
    let err = set
        .pull(&["multi"], &set.out("none"), &set.options(Arch::Amd64))
        .await
        .expect_err("no credentials");
    assert!(
        matches!(
            err,
            RegistryError::Unauthorized {
                had_credentials: false,
                ..
            }
        ),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(
        text.contains("401 Unauthorized") && text.contains("no credentials"),
        "{text}"
    );

    // Credentials from a docker config.json, keyed by the mirror's host.
    let auth = base64::engine::general_purpose::STANDARD.encode(format!("{USER}:{PASSWORD}"));
    let config = set.out("config.json");
    std::fs::write(
        &config,
        format!(
            r#"{{"auths":{{"{}":{{"auth":"{auth}"}}}}}}"#,
            set.registry.host()
        ),
    )
    .expect("write config");
    let mut options = set.options(Arch::Amd64);
    options.credentials = CredentialStore::from_docker_config(&config).expect("config");
    let report = set
        .pull(&["multi"], &set.out("ok"), &options)
        .await
        .expect("pull with credentials");
    assert_eq!(report.images[0].digest, set.images.multi.digest);
    assert!(!format!("{report:?}").contains(PASSWORD));

    let mut wrong = set.options(Arch::Amd64);
    wrong.credentials.insert(
        &set.registry.host(),
        Credentials {
            username: USER.into(),
            password: "wrong-secret".into(),
        },
    );
    let err = set
        .pull(&["multi"], &set.out("wrong"), &wrong)
        .await
        .expect_err("refused");
    let text = err.to_string();
    assert!(
        text.contains("refused") && !text.contains("wrong-secret"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anonymous_bearer_tokens_come_from_the_www_authenticate_challenge() {
    let set = pushed(Auth::Token, &["multi", "shared-a"]);
    let report = set
        .pull(
            &["multi", "shared-a"],
            &set.out("anon"),
            &set.options(Arch::Amd64),
        )
        .await
        .expect("anonymous token pull");
    assert_eq!(report.images[0].digest, set.images.multi.digest);
    assert_eq!(report.images[1].digest, set.images.shared_a.manifest.digest);
    let requests = set
        .registry
        .token_server()
        .expect("token server")
        .requests();
    assert!(
        requests
            .iter()
            .any(|r| r == "GET scope=repository:test/multi:pull user="),
        "{requests:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_token_registry_gives_tokens_only_for_credentials() {
    let set = pushed(Auth::TokenPrivate, &["amd64-only"]);
    let err = set
        .pull(&["amd64-only"], &set.out("none"), &set.options(Arch::Amd64))
        .await
        .expect_err("no credentials");
    assert!(err.to_string().contains("401 Unauthorized"), "{err}");
    let mut options = set.options(Arch::Amd64);
    options.credentials = credentials(&set.registry.host());
    let report = set
        .pull(&["amd64-only"], &set.out("ok"), &options)
        .await
        .expect("pull");
    assert_eq!(
        report.images[0].digest,
        set.images.amd64_only.manifest.digest
    );
    let requests = set
        .registry
        .token_server()
        .expect("token server")
        .requests();
    assert!(
        requests.iter().all(|r| !r.contains(PASSWORD)),
        "{requests:?}"
    );
    assert!(
        requests
            .iter()
            .any(|r| r.ends_with(&format!("user={USER}"))),
        "{requests:?}"
    );
}
