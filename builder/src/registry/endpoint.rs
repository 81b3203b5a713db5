//! Where a registry is reached: mirrors, plain HTTP only when allowed, Docker Hub's API host.

use std::collections::BTreeMap;

use super::error::RegistryError;

/// A registry's base URL as the client contacts it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// `https` or `http`.
    pub scheme: String,
    /// `host[:port]` actually contacted.
    pub host: String,
}

impl Endpoint {
    /// `scheme://host/v2/<repository>/<kind>/<reference>`.
    pub fn url(&self, repository: &str, kind: &str, reference: &str) -> String {
        format!(
            "{}://{}/v2/{repository}/{kind}/{reference}",
            self.scheme, self.host
        )
    }
}

/// Mirrors and insecure registries, as given on the command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Endpoints {
    mirrors: BTreeMap<String, (Option<String>, String)>,
    insecure: Vec<String>,
}

impl Endpoints {
    /// Builds the table from `--registry-mirror REGISTRY=URL` and `--insecure-registry HOST` values.
    pub fn new(mirrors: &[String], insecure: &[String]) -> Result<Self, RegistryError> {
        let mut table = BTreeMap::new();
        for spec in mirrors {
            let bad = |reason: &str| RegistryError::BadMirror {
                spec: crate::redact::passwords(spec).into_owned(),
                reason: reason.to_string(),
            };
            let (registry, url) = spec.split_once('=').ok_or_else(|| bad("there is no `=`"))?;
            let (scheme, host) = match url.split_once("://") {
                Some((scheme @ ("http" | "https"), host)) => (Some(scheme.to_string()), host),
                Some(_) => return Err(bad("the URL scheme must be http or https")),
                None => (None, url),
            };
            let host = host.trim_end_matches('/');
            if registry.is_empty() || registry.contains('/') {
                return Err(bad(
                    "the registry must be a host name such as registry.k8s.io",
                ));
            }
            if host.is_empty() || host.contains('/') || host.contains('@') {
                return Err(bad(
                    "the mirror must be scheme://host[:port] with no path or user",
                ));
            }
            table.insert(registry.to_string(), (scheme, host.to_string()));
        }
        Ok(Endpoints {
            mirrors: table,
            insecure: insecure.to_vec(),
        })
    }

    /// Whether `host` was named with `--insecure-registry`.
    pub fn is_insecure(&self, host: &str) -> bool {
        self.insecure.iter().any(|h| h == host)
    }

    /// The endpoint for `registry`: its mirror if one is set, else the registry itself (Docker
    /// Hub's API lives at `registry-1.docker.io`). Plain HTTP is refused unless the contacted host
    /// or the registry was named insecure.
    pub fn resolve(&self, registry: &str) -> Result<Endpoint, RegistryError> {
        let (scheme, host) = match self.mirrors.get(registry) {
            Some((scheme, host)) => (scheme.clone(), host.clone()),
            None if registry == "docker.io" => (None, "registry-1.docker.io".to_string()),
            None => (None, registry.to_string()),
        };
        let allowed = self.is_insecure(&host) || self.is_insecure(registry);
        let scheme = match scheme {
            Some(s) if s == "http" && !allowed => {
                return Err(RegistryError::InsecureNotAllowed {
                    registry: host.clone(),
                    url: format!("http://{host}"),
                });
            }
            Some(s) => s,
            None if allowed => "http".to_string(),
            None => "https".to_string(),
        };
        Ok(Endpoint { scheme, host })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mirror_replaces_the_host_and_plain_http_needs_insecure() {
        let mirrors = vec!["registry.k8s.io=http://127.0.0.1:5000".to_string()];
        let err = Endpoints::new(&mirrors, &[])
            .expect("valid")
            .resolve("registry.k8s.io")
            .expect_err("http without insecure");
        assert!(
            err.to_string()
                .contains("--insecure-registry 127.0.0.1:5000"),
            "{err}"
        );
        let table = Endpoints::new(&mirrors, &["127.0.0.1:5000".into()]).expect("valid");
        let ep = table.resolve("registry.k8s.io").expect("allowed");
        assert_eq!(
            ep.url("pause", "manifests", "3.10"),
            "http://127.0.0.1:5000/v2/pause/manifests/3.10"
        );
        assert_eq!(table.resolve("quay.io").expect("https").scheme, "https");
        assert_eq!(
            table.resolve("docker.io").expect("hub").host,
            "registry-1.docker.io"
        );
    }

    #[test]
    fn an_insecure_registry_without_mirror_is_reached_over_http() {
        let table = Endpoints::new(&[], &["127.0.0.1:5000".into()]).expect("valid");
        assert_eq!(table.resolve("127.0.0.1:5000").expect("ok").scheme, "http");
    }

    #[test]
    fn bad_mirror_specs_are_refused() {
        for spec in [
            "registry.k8s.io",
            "=http://x",
            "a=ftp://x",
            "a=http://u:p@x",
            "a=http://x/path",
        ] {
            assert!(Endpoints::new(&[spec.to_string()], &[]).is_err(), "{spec}");
        }
    }
}
