//! The CloudStack API client: signed POST requests, JSON answers, async jobs polled with
//! `queryAsyncJobResult` until done or the job timeout. The calls themselves live with what
//! they are about (a cluster's VMs and offerings in [`crate::vms`], the cluster in
//! [`crate::cluster`], ISOs and versions in [`crate::kubernetes`]).

use std::time::{SystemTime, UNIX_EPOCH};

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::config::{CloudStackConfig, ConfigWarning};
use crate::error::CloudStackError;
use crate::sign;

/// A blocking CloudStack API client.
#[derive(Debug, Clone)]
pub struct CloudStackClient {
    config: CloudStackConfig,
    http: reqwest::blocking::Client,
}

impl CloudStackClient {
    /// A client for `config`.
    pub fn new(config: CloudStackConfig) -> Result<Self, CloudStackError> {
        // A redirect would carry the signed request, valid for the signature's lifetime, to
        // whatever host the answer names: none is followed (see [`CloudStackError::Redirect`]).
        let http = reqwest::blocking::Client::builder()
            .timeout(config.request_timeout)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| CloudStackError::Client(e.without_url()))?;
        Ok(CloudStackClient { config, http })
    }

    /// The configuration in use.
    pub fn config(&self) -> &CloudStackConfig {
        &self.config
    }

    /// What the caller should tell the user about this client's configuration (see
    /// [`CloudStackConfig::warnings`]).
    pub fn warnings(&self) -> Vec<ConfigWarning> {
        self.config.warnings()
    }

    fn signed_body(&self, command: &str, params: &[(&str, String)]) -> String {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let expires = now + self.config.request_signature_lifetime.as_secs() as i64;
        let mut all: Vec<(String, String)> = params
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        all.push(("command".into(), command.into()));
        all.push(("apiKey".into(), self.config.api_key.expose().into()));
        all.push(("response".into(), "json".into()));
        all.push(("signatureVersion".into(), "3".into()));
        all.push(("expires".into(), sign::format_expires(expires)));
        let signature = sign::request_signature(&all, self.config.secret_key.expose());
        all.push(("signature".into(), signature));
        all.iter()
            .map(|(k, v)| format!("{}={}", sign::encode(k), sign::encode(v)))
            .collect::<Vec<_>>()
            .join("&")
    }

    /// Sends `command` and returns what the server put under `<command>response`. The keys
    /// travel in the POST body, never in the URL, and errors never carry the URL or body.
    pub fn call(&self, command: &str, params: &[(&str, String)]) -> Result<Value, CloudStackError> {
        tracing::debug!(command, "cloudstack call");
        let response = self
            .http
            .post(&self.config.endpoint)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body(self.signed_body(command, params))
            .send()
            .map_err(|e| CloudStackError::Http {
                command: command.to_string(),
                source: e.without_url(),
            })?;
        let status = response.status().as_u16();
        if response.status().is_redirection() {
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .map(|v| {
                    String::from_utf8_lossy(v.as_bytes())
                        .chars()
                        .take(200)
                        .collect()
                })
                .unwrap_or_else(|| "(no Location header)".to_string());
            return Err(CloudStackError::Redirect {
                command: command.to_string(),
                status,
                location,
            });
        }
        // Each read waits at most the request timeout, so an answer that stops arriving ends
        // there; one that never ends is cut at the answer limit.
        let bytes = cks_pinning::answer_read::read_answer(response, self.config.max_answer_size)
            .map_err(|reason| CloudStackError::Answer {
                command: command.to_string(),
                reason,
            })?;
        let body: Value =
            serde_json::from_slice(&bytes).map_err(|e| CloudStackError::BadResponse {
                command: command.to_string(),
                detail: format!(
                    "HTTP {status}, not JSON ({e}): {}",
                    String::from_utf8_lossy(&bytes[..bytes.len().min(200)])
                ),
            })?;
        drop(bytes);
        let key = format!("{}response", command.to_lowercase());
        let inner = body
            .get(&key)
            .cloned()
            .or_else(|| body.as_object().and_then(|o| o.values().next().cloned()))
            .unwrap_or(Value::Null);
        if status != 200 || inner.get("errorcode").is_some() {
            return Err(CloudStackError::Api {
                command: command.to_string(),
                status,
                code: inner
                    .get("errorcode")
                    .and_then(Value::as_u64)
                    .unwrap_or(u64::from(status)),
                text: inner
                    .get("errortext")
                    .and_then(Value::as_str)
                    .unwrap_or("no error text")
                    .to_string(),
            });
        }
        Ok(inner)
    }

    /// Sends an async `command` and polls its job to completion; returns the job's `jobresult`.
    pub fn call_async(
        &self,
        command: &str,
        params: &[(&str, String)],
    ) -> Result<Value, CloudStackError> {
        let started = self.call(command, params)?;
        let job = started
            .get("jobid")
            .and_then(Value::as_str)
            .ok_or_else(|| CloudStackError::BadResponse {
                command: command.to_string(),
                detail: "an async command answered without a jobid".to_string(),
            })?
            .to_string();
        self.wait_for_job(command, &job)
    }

    /// Every item of a list command, page by page at the server's own page size: the first
    /// request sends no `pagesize`, so CloudStack answers up to its `default.page.size` items
    /// (an operator may have lowered it; a larger `pagesize` is refused with 431); when that
    /// page holds fewer than `count`, its length is the server's page size and the rest is
    /// read with `page` 2, 3, ... at that size, until `count` items or a short page.
    pub fn list<T: DeserializeOwned>(
        &self,
        command: &str,
        key: &str,
        params: &[(&str, String)],
    ) -> Result<Vec<T>, CloudStackError> {
        let fetch = |paging: Option<(usize, usize)>| -> Result<(Vec<T>, usize), CloudStackError> {
            let mut paged: Vec<(&str, String)> = params.to_vec();
            if let Some((page, size)) = paging {
                paged.push(("page", page.to_string()));
                paged.push(("pagesize", size.to_string()));
            }
            let answer = self.call(command, &paged)?;
            let batch = answer.get(key).cloned().unwrap_or(Value::Array(Vec::new()));
            let batch: Vec<T> =
                serde_json::from_value(batch).map_err(|e| CloudStackError::BadResponse {
                    command: command.to_string(),
                    detail: format!("unexpected `{key}` list: {e}"),
                })?;
            let count = answer.get("count").and_then(Value::as_u64).unwrap_or(0) as usize;
            Ok((batch, count))
        };
        let (mut items, count) = fetch(None)?;
        let size = items.len();
        if size == 0 || size >= count {
            return Ok(items);
        }
        // Every page but the last is full; `count` bounds how many pages are asked for.
        for page in 2..=count.div_ceil(size) {
            let (batch, _) = fetch(Some((page, size)))?;
            let got = batch.len();
            items.extend(batch);
            if got < size || items.len() >= count {
                break;
            }
        }
        Ok(items)
    }

    pub(crate) fn one<T: DeserializeOwned>(
        command: &str,
        result: Value,
        key: &str,
    ) -> Result<T, CloudStackError> {
        let value = result
            .get(key)
            .cloned()
            .ok_or_else(|| CloudStackError::BadResponse {
                command: command.to_string(),
                detail: format!("the result has no `{key}`"),
            })?;
        serde_json::from_value(value).map_err(|e| CloudStackError::BadResponse {
            command: command.to_string(),
            detail: format!("unexpected `{key}`: {e}"),
        })
    }
}
