//! A small blocking Kubernetes API client: nodes, pods, evictions and readiness, on any API
//! server of the cluster with the same credentials (see [`KubeClient::via`]).

use std::time::{Duration, Instant};

use cks_discovery::kube_node::{Node, NodeList};
use cks_pinning::answer_read::{DEFAULT_MAX_ANSWER, read_answer};
use serde_json::{Value, json};

use super::answer;
use super::error::KubeError;
use super::kubeconfig::KubeAccess;
use super::parse;
use crate::adapters::secret::Secret;
use crate::adapters::tls::http_client;
use crate::model::{EvictionOutcome, NodeStatus, Pod, ReadyzCheck};

/// A client of one API server.
#[derive(Debug, Clone)]
pub struct KubeClient {
    http: reqwest::blocking::Client,
    server: String,
    token: Option<Secret>,
    max_answer: u64,
}

/// What a finished drain did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DrainReport {
    /// Pods evicted (`namespace/name`).
    pub evicted: Vec<String>,
    /// DaemonSet and mirror pods left on the node.
    pub skipped: Vec<String>,
    /// How many evictions a budget refused before they went through.
    pub refusals: u32,
}

fn status_message(body: &str) -> String {
    serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| answer::read::<answer::Status>(v).message)
        .unwrap_or_else(|| body.chars().take(200).collect())
}

impl KubeClient {
    /// A client for `access`, with `timeout` per request.
    pub fn new(access: &KubeAccess, timeout: Duration) -> Result<Self, KubeError> {
        let http = http_client(&access.tls, timeout).map_err(KubeError::Client)?;
        Ok(KubeClient {
            http,
            server: access.server.clone(),
            token: access.token.clone(),
            max_answer: DEFAULT_MAX_ANSWER,
        })
    }

    /// The same client reading at most `bytes` of one answer (default
    /// [`DEFAULT_MAX_ANSWER`]; the root of a control node can make its API server answer
    /// anything, so no answer is read without a limit).
    pub fn with_max_answer(self, bytes: u64) -> KubeClient {
        KubeClient {
            max_answer: bytes,
            ..self
        }
    }

    /// The same credentials on another API server of the cluster (a given control node's).
    pub fn via(&self, server: &str) -> KubeClient {
        KubeClient {
            http: self.http.clone(),
            server: server.trim_end_matches('/').to_string(),
            token: self.token.clone(),
            max_answer: self.max_answer,
        }
    }

    /// The API server this client talks to.
    pub fn server(&self) -> &str {
        &self.server
    }

    fn send(
        &self,
        what: &str,
        method: reqwest::Method,
        path: &str,
        body: Option<(&str, Value)>,
    ) -> Result<(u16, String), KubeError> {
        let url = format!("{}{path}", self.server);
        let mut request = self
            .http
            .request(method, &url)
            .header("Accept", "application/json");
        if let Some(token) = &self.token {
            request = request.bearer_auth(token.expose());
        }
        if let Some((content_type, body)) = body {
            request = request
                .header("Content-Type", content_type)
                .body(body.to_string());
        }
        tracing::debug!(what, server = %self.server, "kubernetes call");
        let response = request.send().map_err(|source| KubeError::Http {
            what: what.to_string(),
            server: self.server.clone(),
            source: source.without_url(),
        })?;
        let status = response.status().as_u16();
        // Each read waits at most the request timeout; an answer that never ends is cut at the
        // limit.
        let bytes = read_answer(response, self.max_answer).map_err(|reason| KubeError::Answer {
            what: what.to_string(),
            server: self.server.clone(),
            reason,
        })?;
        Ok((status, String::from_utf8_lossy(&bytes).into_owned()))
    }

    fn json(
        &self,
        what: &str,
        method: reqwest::Method,
        path: &str,
        body: Option<(&str, Value)>,
    ) -> Result<Option<Value>, KubeError> {
        let (status, text) = self.send(what, method, path, body)?;
        match status {
            200..=299 => {
                serde_json::from_str(&text)
                    .map(Some)
                    .map_err(|e| KubeError::BadResponse {
                        what: what.to_string(),
                        detail: format!("not JSON: {e}"),
                    })
            }
            404 => Ok(None),
            _ => Err(KubeError::Status {
                what: what.to_string(),
                server: self.server.clone(),
                status,
                message: status_message(&text),
            }),
        }
    }

    fn found(&self, what: &str, value: Option<Value>) -> Result<Value, KubeError> {
        value.ok_or_else(|| KubeError::Status {
            what: what.to_string(),
            server: self.server.clone(),
            status: 404,
            message: "not found".to_string(),
        })
    }

    /// Every node.
    pub fn list_nodes(&self) -> Result<Vec<NodeStatus>, KubeError> {
        let what = "list nodes";
        let list = self.json(what, reqwest::Method::GET, "/api/v1/nodes", None)?;
        let list = self.found(what, list)?;
        Ok(NodeList::read(list)
            .items
            .into_iter()
            .map(parse::node)
            .collect())
    }

    /// One node, `None` if there is no such node.
    pub fn get_node(&self, name: &str) -> Result<Option<NodeStatus>, KubeError> {
        let value = self.json(
            &format!("get node {name}"),
            reqwest::Method::GET,
            &format!("/api/v1/nodes/{name}"),
            None,
        )?;
        Ok(value.map(|node| parse::node(Node::read(node))))
    }

    fn patch_node(&self, what: &str, name: &str, patch: Value) -> Result<(), KubeError> {
        let value = self.json(
            what,
            reqwest::Method::PATCH,
            &format!("/api/v1/nodes/{name}"),
            Some(("application/merge-patch+json", patch)),
        )?;
        self.found(what, value).map(|_| ())
    }

    /// Sets (`Some`) or removes (`None`) one annotation with a merge patch.
    pub fn set_annotation(
        &self,
        node: &str,
        key: &str,
        value: Option<&str>,
    ) -> Result<(), KubeError> {
        self.patch_node(
            &format!("annotate node {node}"),
            node,
            json!({ "metadata": { "annotations": { key: value } } }),
        )
    }

    /// Cordons (`true`) or uncordons (`false`) a node.
    pub fn set_unschedulable(&self, node: &str, unschedulable: bool) -> Result<(), KubeError> {
        let what = if unschedulable { "cordon" } else { "uncordon" };
        let value = if unschedulable {
            json!(true)
        } else {
            Value::Null
        };
        self.patch_node(
            &format!("{what} {node}"),
            node,
            json!({ "spec": { "unschedulable": value } }),
        )
    }

    /// The unfinished pods bound to `node`.
    pub fn list_pods(&self, node: &str) -> Result<Vec<Pod>, KubeError> {
        let what = format!("list pods on {node}");
        let list = self.json(
            &what,
            reqwest::Method::GET,
            &format!("/api/v1/pods?fieldSelector=spec.nodeName%3D{node}"),
            None,
        )?;
        let list = self.found(&what, list)?;
        Ok(answer::read::<answer::PodList>(list)
            .items
            .into_iter()
            .filter_map(parse::pod)
            .collect())
    }

    /// Asks to evict `pod`; a 429 names the blocking budget (`namespace/name`) from the answer,
    /// or else from the namespace's budgets that select the pod.
    pub fn evict(&self, pod: &Pod) -> Result<EvictionOutcome, KubeError> {
        let what = format!("evict {}/{}", pod.namespace, pod.name);
        let body = json!({
            "apiVersion": "policy/v1",
            "kind": "Eviction",
            "metadata": { "name": pod.name, "namespace": pod.namespace },
        });
        let (status, text) = self.send(
            &what,
            reqwest::Method::POST,
            &format!(
                "/api/v1/namespaces/{}/pods/{}/eviction",
                pod.namespace, pod.name
            ),
            Some(("application/json", body)),
        )?;
        match status {
            200..=299 => Ok(EvictionOutcome::Evicted),
            404 => Ok(EvictionOutcome::Gone),
            429 => {
                let status: answer::Status =
                    answer::read(serde_json::from_str(&text).unwrap_or(Value::Null));
                let budget = match parse::budget_in_status(&status) {
                    Some(name) => Some(name),
                    None => self.budget_selecting(pod)?,
                };
                Ok(EvictionOutcome::Blocked {
                    budget: budget.map(|b| format!("{}/{b}", pod.namespace)),
                    message: status_message(&text),
                })
            }
            _ => Err(KubeError::Status {
                what,
                server: self.server.clone(),
                status,
                message: status_message(&text),
            }),
        }
    }

    /// The first PodDisruptionBudget in the pod's namespace whose `matchLabels` select it.
    fn budget_selecting(&self, pod: &Pod) -> Result<Option<String>, KubeError> {
        let path = format!("/api/v1/namespaces/{}/pods/{}", pod.namespace, pod.name);
        let Some(found) = self.json("get pod", reqwest::Method::GET, &path, None)? else {
            return Ok(None);
        };
        let labels = answer::read::<answer::Pod>(found).metadata.labels;
        let path = format!(
            "/apis/policy/v1/namespaces/{}/poddisruptionbudgets",
            pod.namespace
        );
        let Some(budgets) = self.json("list budgets", reqwest::Method::GET, &path, None)? else {
            return Ok(None);
        };
        Ok(answer::read::<answer::BudgetList>(budgets)
            .items
            .into_iter()
            .find_map(|b| {
                let wanted = b.spec.selector.match_labels?;
                let selects = wanted.iter().all(|(k, v)| labels.get(k) == Some(v));
                Some(b.metadata.name).filter(|name| selects && !name.is_empty())
            }))
    }

    /// `/readyz` or `/readyz/etcd`: `true` for 200, `false` for any other answer.
    pub fn readyz(&self, check: ReadyzCheck) -> Result<bool, KubeError> {
        let path = match check {
            ReadyzCheck::All => "/readyz",
            ReadyzCheck::Etcd => "/readyz/etcd",
        };
        let (status, _) = self.send(path, reqwest::Method::GET, path, None)?;
        Ok(status == 200)
    }

    /// Evicts every pod on `node` except DaemonSet and mirror pods, retrying refused evictions
    /// every `retry` until `timeout`; then waits for the evicted pods to be gone. The error of a
    /// drain a budget never allowed names the pod and the budget.
    pub fn drain(
        &self,
        node: &str,
        timeout: Duration,
        retry: Duration,
    ) -> Result<DrainReport, KubeError> {
        let start = Instant::now();
        let mut report = DrainReport::default();
        let pods = self.list_pods(node)?;
        for pod in pods {
            let id = format!("{}/{}", pod.namespace, pod.name);
            if pod.daemonset || pod.mirror {
                report.skipped.push(id);
                continue;
            }
            loop {
                match self.evict(&pod)? {
                    EvictionOutcome::Evicted | EvictionOutcome::Gone => {
                        report.evicted.push(id.clone());
                        break;
                    }
                    EvictionOutcome::Blocked { budget, message } => {
                        report.refusals += 1;
                        if start.elapsed() + retry > timeout {
                            return Err(KubeError::DrainBlocked {
                                node: node.to_string(),
                                pod: id,
                                budget,
                                message,
                                waited: start.elapsed(),
                            });
                        }
                        std::thread::sleep(retry);
                    }
                }
            }
        }
        for id in &report.evicted {
            let path = match id.split_once('/') {
                Some((ns, name)) => format!("/api/v1/namespaces/{ns}/pods/{name}"),
                None => continue,
            };
            while self
                .json("wait for pod deletion", reqwest::Method::GET, &path, None)?
                .is_some_and(|p| answer::read::<answer::Pod>(p).spec.node_name == node)
            {
                if start.elapsed() > timeout {
                    return Err(KubeError::DrainBlocked {
                        node: node.to_string(),
                        pod: id.clone(),
                        budget: None,
                        message: "the pod was evicted but is still there".to_string(),
                        waited: start.elapsed(),
                    });
                }
                std::thread::sleep(retry);
            }
        }
        Ok(report)
    }
}
