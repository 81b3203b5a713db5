//! What a kubeconfig handed out by CloudStack (`getKubernetesClusterConfig`) may carry: it is
//! data from a server, not instructions for this host. Only inline credentials (a token, or a
//! client certificate and key as `*-data`) and an inline CA (`certificate-authority-data`) for an
//! `https://` server are accepted; anything that would make this host read a local file, run a
//! program, call an auth provider, skip the server's certificate check or send credentials in
//! clear is refused, naming the field. A `--kubeconfig` the operator gives is not checked here:
//! it is theirs to trust.

use serde_norway::Value;

/// Why a fetched kubeconfig is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchedKubeconfigRefusal {
    /// The text is not a YAML mapping.
    #[error(
        "the kubeconfig from CloudStack is not a kubeconfig ({0}); pass --kubeconfig FILE to use one you trust"
    )]
    NotKubeconfig(String),
    /// A field this tool does not take from a fetched kubeconfig.
    #[error(
        "the kubeconfig from CloudStack sets `{field}` in {entry}: {why}; a kubeconfig fetched from CloudStack may carry only inline credentials (token, client-certificate-data, client-key-data) and an inline CA (certificate-authority-data) for an https:// server: pass --kubeconfig FILE to use one you trust"
    )]
    Field {
        /// Where: `cluster "name"` or `user "name"`.
        entry: String,
        /// The field.
        field: String,
        /// What it would make this host do.
        why: &'static str,
    },
}

/// The fields a fetched cluster entry may have.
const CLUSTER_FIELDS: [&str; 3] = [
    "server",
    "certificate-authority-data",
    "insecure-skip-tls-verify",
];
/// The fields a fetched user entry may have.
const USER_FIELDS: [&str; 3] = ["token", "client-certificate-data", "client-key-data"];

/// Parses `text` and checks it with [`check`].
pub fn check_fetched_kubeconfig(text: &str) -> Result<(), FetchedKubeconfigRefusal> {
    let config: Value = serde_norway::from_str(text)
        .map_err(|e| FetchedKubeconfigRefusal::NotKubeconfig(e.to_string()))?;
    check(&config)
}

/// Checks every cluster and user entry of a parsed kubeconfig (not only the current context's:
/// a context flag must not reach an entry that was never checked).
pub fn check(config: &Value) -> Result<(), FetchedKubeconfigRefusal> {
    if !config.is_mapping() {
        return Err(FetchedKubeconfigRefusal::NotKubeconfig(
            "not a YAML mapping".to_string(),
        ));
    }
    for (name, cluster) in entries(config, "clusters", "cluster") {
        check_cluster(&format!("cluster {name:?}"), cluster)?;
    }
    for (name, user) in entries(config, "users", "user") {
        check_user(&format!("user {name:?}"), user)?;
    }
    Ok(())
}

/// `(name, body)` of each entry of the list `list`, the body under `key`.
fn entries<'a>(config: &'a Value, list: &str, key: &str) -> Vec<(String, &'a Value)> {
    config
        .get(list)
        .and_then(Value::as_sequence)
        .map(|items| {
            items
                .iter()
                .map(|item| {
                    let name = item
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string();
                    (name, item.get(key).unwrap_or(&Value::Null))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn refuse(entry: &str, field: &str, why: &'static str) -> FetchedKubeconfigRefusal {
    FetchedKubeconfigRefusal::Field {
        entry: entry.to_string(),
        field: field.to_string(),
        why,
    }
}

/// The field names of a mapping (a null body has none).
fn fields(body: &Value) -> Vec<String> {
    body.as_mapping()
        .map(|m| {
            m.keys()
                .map(|k| k.as_str().map_or_else(|| format!("{k:?}"), str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn check_cluster(entry: &str, body: &Value) -> Result<(), FetchedKubeconfigRefusal> {
    for field in fields(body) {
        let why = match field.as_str() {
            "certificate-authority" => "a CA file path on this host",
            "proxy-url" => "a proxy the credentials would be sent through",
            f if CLUSTER_FIELDS.contains(&f) => continue,
            _ => "not an inline credential or CA",
        };
        return Err(refuse(entry, &field, why));
    }
    if body
        .get("insecure-skip-tls-verify")
        .is_some_and(|v| v.as_bool() != Some(false))
    {
        return Err(refuse(
            entry,
            "insecure-skip-tls-verify",
            "the API server's certificate would not be checked",
        ));
    }
    let server = body.get("server").and_then(Value::as_str).unwrap_or("");
    if !server
        .get(..8)
        .is_some_and(|s| s.eq_ignore_ascii_case("https://"))
    {
        return Err(refuse(
            entry,
            "server",
            "not an https:// URL, so the credentials would travel in clear",
        ));
    }
    if body
        .get("certificate-authority-data")
        .and_then(Value::as_str)
        .is_none_or(|ca| ca.trim().is_empty())
    {
        return Err(refuse(
            entry,
            "certificate-authority-data",
            "missing, so the API server could not be checked against the cluster's own CA",
        ));
    }
    Ok(())
}

fn check_user(entry: &str, body: &Value) -> Result<(), FetchedKubeconfigRefusal> {
    for field in fields(body) {
        let why = match field.as_str() {
            "tokenFile" => "a token file on this host would be read and sent",
            "exec" => "a program would be run on this host",
            "auth-provider" => "an auth provider would be called",
            "client-certificate" => "a client certificate file path on this host",
            "client-key" => "a client key file path on this host",
            f if USER_FIELDS.contains(&f) => continue,
            _ => "not an inline credential",
        };
        return Err(refuse(entry, &field, why));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const CA: &str = "LS0tLS1CRUdJTg==";

    fn config(cluster: &str, user: &str) -> String {
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: k1\n  cluster:\n{cluster}users:\n- name: admin\n  user:\n{user}contexts:\n- name: k1\n  context:\n    cluster: k1\n    user: admin\ncurrent-context: k1\n"
        )
    }

    fn good_cluster() -> String {
        format!("    server: https://10.1.1.10:6443\n    certificate-authority-data: {CA}\n")
    }

    fn refused_field(text: &str) -> String {
        match check_fetched_kubeconfig(text) {
            Err(FetchedKubeconfigRefusal::Field { field, .. }) => field,
            other => panic!("expected a refused field, got {other:?}"),
        }
    }

    #[test]
    fn inline_credentials_and_an_inline_ca_are_accepted() {
        let user = "    client-certificate-data: QQ==\n    client-key-data: Qg==\n    token: t\n";
        check_fetched_kubeconfig(&config(&good_cluster(), user)).expect("accepted");
        let no_user = "    {}\n";
        check_fetched_kubeconfig(&config(&good_cluster(), no_user)).expect("accepted");
        let explicit = format!("{}    insecure-skip-tls-verify: false\n", good_cluster());
        check_fetched_kubeconfig(&config(&explicit, no_user)).expect("accepted");
    }

    #[test]
    fn every_way_out_of_the_data_is_refused_naming_its_field() {
        let user_cases = [
            ("    tokenFile: /root/.secret\n", "tokenFile"),
            (
                "    exec:\n      command: /bin/sh\n      apiVersion: client.authentication.k8s.io/v1\n",
                "exec",
            ),
            ("    auth-provider:\n      name: oidc\n", "auth-provider"),
            (
                "    client-certificate: /etc/cert.pem\n",
                "client-certificate",
            ),
            ("    client-key: /etc/key.pem\n", "client-key"),
            ("    username: a\n", "username"),
        ];
        for (user, field) in user_cases {
            assert_eq!(refused_field(&config(&good_cluster(), user)), field);
        }
        let cluster_cases = [
            (
                "    server: https://10.1.1.10:6443\n    certificate-authority: /etc/ca.pem\n",
                "certificate-authority",
            ),
            (
                &format!("{}    insecure-skip-tls-verify: true\n", good_cluster()),
                "insecure-skip-tls-verify",
            ),
            (
                &format!(
                    "    server: http://10.1.1.10:8080\n    certificate-authority-data: {CA}\n"
                ),
                "server",
            ),
            (
                "    server: https://10.1.1.10:6443\n",
                "certificate-authority-data",
            ),
            (
                &format!("{}    proxy-url: http://proxy:3128\n", good_cluster()),
                "proxy-url",
            ),
        ];
        for (cluster, field) in cluster_cases {
            assert_eq!(
                refused_field(&config(cluster, "    {}\n")),
                field,
                "{cluster}"
            );
        }
    }

    #[test]
    fn an_entry_outside_the_current_context_is_checked_too() {
        let text = config(&good_cluster(), "    token: t\n");
        let text = text.replace(
            "contexts:",
            "- name: other\n  user:\n    tokenFile: /etc/shadow\ncontexts:",
        );
        let e = check_fetched_kubeconfig(&text).expect_err("refused");
        let line = e.to_string();
        assert!(
            line.contains("`tokenFile` in user \"other\"") && line.contains("--kubeconfig FILE"),
            "{line}"
        );
    }

    #[test]
    fn text_that_is_not_a_mapping_is_refused() {
        assert!(matches!(
            check_fetched_kubeconfig("- a\n- b\n"),
            Err(FetchedKubeconfigRefusal::NotKubeconfig(_))
        ));
    }
}
