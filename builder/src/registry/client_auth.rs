//! Answering a registry's `401`: the credentials for an endpoint, basic values, bearer tokens
//! from the token server, and the one-shot sender the cache registry's pushes use.

use reqwest::Response;
use reqwest::StatusCode;
use reqwest::header::{AUTHORIZATION, WWW_AUTHENTICATE};

use super::auth::{
    Challenge, Credentials, basic_value, parse_challenge, realm_may_have_credentials,
};
use super::client::{RegistryClient, header};
use super::endpoint::Endpoint;
use super::error::RegistryError;
use crate::artifact::RemoteName;
use crate::http::HttpError;

impl RegistryClient {
    /// The credentials of the host actually contacted: those given for `registry.k8s.io` never
    /// go to a mirror of it on another host (the mirror's own entry, if any, is used there).
    pub(super) fn credentials_for(&self, endpoint: &Endpoint) -> Option<&Credentials> {
        self.credentials.get(&[&endpoint.host])
    }

    pub(super) fn unauthorized(
        &self,
        name: &RemoteName,
        endpoint: &Endpoint,
        had: bool,
    ) -> RegistryError {
        RegistryError::Unauthorized {
            image: name.full.clone(),
            registry: endpoint.host.clone(),
            had_credentials: had,
        }
    }

    /// Sends the request `build` makes (called again after answering one 401 challenge, with
    /// basic credentials or a `pull,push` token) to `name`'s registry, once: the cache registry's
    /// pushes, whose failures are skipped rather than retried.
    pub(crate) async fn send_push(
        &self,
        name: &RemoteName,
        build: impl Fn(&reqwest::Client) -> reqwest::RequestBuilder,
    ) -> Result<Response, RegistryError> {
        let endpoint = self.endpoints.resolve(&name.registry)?;
        let key = (endpoint.host.clone(), format!("{}:push", name.repository));
        let mut answered = false;
        loop {
            let mut request = build(&self.http);
            if let Some(value) = self.auth_cache.lock().await.get(&key).cloned() {
                request = request.header(AUTHORIZATION, value);
            }
            let response = request.send().await.map_err(|source| RegistryError::Http {
                image: name.full.clone(),
                source: HttpError::from_reqwest(&endpoint.host, &source),
            })?;
            if response.status() != StatusCode::UNAUTHORIZED || answered {
                return Ok(response);
            }
            let credentials = self.credentials_for(&endpoint);
            let challenge = header(response.headers(), WWW_AUTHENTICATE.as_str())
                .and_then(|h| parse_challenge(&h));
            let value = match (challenge, credentials) {
                (Some(Challenge::Basic), Some(c)) => basic_value(c),
                (Some(Challenge::Bearer { realm, service, .. }), c) => {
                    self.token(name, &endpoint, &realm, service.as_deref(), c, "pull,push")
                        .await?
                }
                _ => return Ok(response),
            };
            self.auth_cache.lock().await.insert(key.clone(), value);
            answered = true;
        }
    }

    /// Asks the token server for a token for `actions` (`pull`, `pull,push`) on `name`'s
    /// repository (GET, with basic auth when there are credentials and the realm may have them:
    /// see [`realm_may_have_credentials`]; otherwise anonymously).
    pub(super) async fn token(
        &self,
        name: &RemoteName,
        endpoint: &Endpoint,
        realm: &str,
        service: Option<&str>,
        credentials: Option<&Credentials>,
        actions: &str,
    ) -> Result<String, RegistryError> {
        let token_error = |reason: String| RegistryError::Token {
            image: name.full.clone(),
            realm: realm.to_string(),
            reason,
        };
        let mut url = reqwest::Url::parse(realm)
            .map_err(|e| token_error(format!("the realm is not a URL: {e}")))?;
        if !url.username().is_empty() || url.password().is_some() {
            return Err(token_error("the realm carries user info".into()));
        }
        {
            let mut query = url.query_pairs_mut();
            if let Some(service) = service {
                query.append_pair("service", service);
            }
            query.append_pair(
                "scope",
                &format!("repository:{}:{actions}", name.repository),
            );
        }
        let credentials = credentials.filter(|_| realm_may_have_credentials(endpoint, &url));
        let mut request = self.http.get(url);
        if let Some(c) = credentials {
            request = request.basic_auth(&c.username, Some(&c.password));
        }
        let response = request
            .send()
            .await
            .map_err(|e| token_error(e.without_url().to_string()))?;
        let status = response.status();
        if status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN {
            return Err(RegistryError::Unauthorized {
                image: name.full.clone(),
                registry: name.registry.clone(),
                had_credentials: credentials.is_some(),
            });
        }
        if !status.is_success() {
            return Err(token_error(format!("it answered {status}")));
        }
        #[derive(serde::Deserialize)]
        struct TokenAnswer {
            #[serde(default)]
            token: Option<String>,
            #[serde(default)]
            access_token: Option<String>,
        }
        let kind = cks_pinning::limits::LimitKind::Answer;
        let limit = self.limits.get(kind);
        let body = crate::http::read_bounded(response, realm, kind, limit, self.pace)
            .await
            .map_err(|e| token_error(e.to_string()))?;
        let answer: TokenAnswer = serde_json::from_slice(&body)
            .map_err(|e| token_error(format!("the answer is not token JSON: {e}")))?;
        let token = answer
            .token
            .or(answer.access_token)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| token_error("the answer holds no token".into()))?;
        Ok(format!("Bearer {token}"))
    }
}
