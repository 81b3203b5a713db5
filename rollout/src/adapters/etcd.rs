//! etcd health: each member's `/health` (over TLS with the cluster's client certificate when
//! given), the member list from `/v3/cluster/member/list`, and whether a quorum of voting
//! members is healthy.

use std::time::Duration;

use cks_pinning::answer_read::{DEFAULT_MAX_ANSWER, read_answer};
use serde_json::Value;

use super::etcd_answer::{MemberList, member_healthy};
use super::tls::{TlsMaterial, http_client};
use crate::model::{EtcdMember, MemberHealth};
use crate::ports::{self, PortError, PortResult};

/// What can go wrong setting up the health checks.
#[derive(Debug, thiserror::Error)]
pub enum EtcdError {
    /// The HTTP client could not be built (a bad certificate or key).
    #[error("building the etcd HTTP client: {0}; check the etcd CA, client certificate and key")]
    Client(reqwest::Error),
    /// No member is known.
    #[error("no etcd member to check: give at least one member's client URL")]
    NoMembers,
}

/// A member to check when the member list cannot be read: its name and client URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownMember {
    /// Member name.
    pub name: String,
    /// Client URL, `https://10.0.0.5:2379`.
    pub client_url: String,
}

/// The quorum verdict over a member list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quorum {
    /// Voting members.
    pub voters: usize,
    /// Healthy voting members.
    pub healthy: usize,
    /// floor(voters/2)+1.
    pub needed: usize,
}

impl Quorum {
    /// The verdict for `members` (learners do not vote; unknown health counts as unhealthy).
    pub fn of(members: &[EtcdMember]) -> Self {
        let voters: Vec<&EtcdMember> = members.iter().filter(|m| !m.learner).collect();
        let healthy = voters
            .iter()
            .filter(|m| m.health == MemberHealth::Healthy)
            .count();
        Quorum {
            voters: voters.len(),
            healthy,
            needed: voters.len() / 2 + 1,
        }
    }

    /// Whether the healthy voters are a quorum.
    pub fn is_kept(&self) -> bool {
        self.voters > 0 && self.healthy >= self.needed
    }
}

/// Health checks of one etcd cluster.
#[derive(Debug, Clone)]
pub struct EtcdHealth {
    http: reqwest::blocking::Client,
    known: Vec<KnownMember>,
    max_answer: u64,
}

impl EtcdHealth {
    /// Checks for the cluster `known` belongs to, each request waiting at most `timeout`.
    pub fn new(
        known: Vec<KnownMember>,
        tls: &TlsMaterial,
        timeout: Duration,
    ) -> Result<Self, EtcdError> {
        if known.is_empty() {
            return Err(EtcdError::NoMembers);
        }
        let http = http_client(tls, timeout).map_err(EtcdError::Client)?;
        Ok(EtcdHealth {
            http,
            known,
            max_answer: DEFAULT_MAX_ANSWER,
        })
    }

    /// The same checks reading at most `bytes` of one answer (default [`DEFAULT_MAX_ANSWER`]).
    pub fn with_max_answer(self, bytes: u64) -> EtcdHealth {
        EtcdHealth {
            max_answer: bytes,
            ..self
        }
    }

    /// The JSON answer of `request`, at most the answer limit read; why there is none.
    fn answer(&self, request: reqwest::blocking::RequestBuilder) -> Result<Value, Unanswered> {
        let response = request.send().map_err(|_| Unanswered::NoAnswer)?;
        let bytes = read_answer(response, self.max_answer).map_err(|_| Unanswered::Unreadable)?;
        serde_json::from_slice(&bytes).map_err(|_| Unanswered::Unreadable)
    }

    /// One member's `/health`: healthy for `{"health":"true"}`, unhealthy for any other answer,
    /// unknown when it does not answer.
    pub fn member_health(&self, client_url: &str) -> MemberHealth {
        let url = format!("{}/health", client_url.trim_end_matches('/'));
        let body = match self.answer(self.http.get(url)) {
            Ok(body) => body,
            Err(Unanswered::NoAnswer) => return MemberHealth::Unknown,
            Err(Unanswered::Unreadable) => return MemberHealth::Unhealthy,
        };
        if member_healthy(&body) {
            MemberHealth::Healthy
        } else {
            MemberHealth::Unhealthy
        }
    }

    /// The member list as the first answering member reports it, health not yet filled in.
    /// `None` when no known member answers.
    pub fn member_list(&self) -> Option<Vec<ListedMember>> {
        self.known.iter().find_map(|m| {
            let url = format!(
                "{}/v3/cluster/member/list",
                m.client_url.trim_end_matches('/')
            );
            let body = self.answer(self.http.post(url).body("{}")).ok()?;
            let list = MemberList::read(body)?;
            Some(
                list.members
                    .into_iter()
                    .filter_map(|m| {
                        Some(ListedMember {
                            client_url: m.client_urls.first()?.clone(),
                            name: m.name,
                            id: m.id,
                            peer_urls: m.peer_urls,
                            learner: m.learner,
                        })
                    })
                    .collect(),
            )
        })
    }

    /// Every member with its health: from the member list when it can be read (so members
    /// added since, and learners, count), else the known members. A known member missing from
    /// the list is still reported, as unknown when it does not answer.
    pub fn check(&self) -> Vec<EtcdMember> {
        let mut listed: Vec<ListedMember> = self.member_list().unwrap_or_default();
        for known in &self.known {
            if !listed
                .iter()
                .any(|m| m.name == known.name || m.client_url == known.client_url)
            {
                listed.push(ListedMember {
                    name: known.name.clone(),
                    id: None,
                    client_url: known.client_url.clone(),
                    peer_urls: vec![],
                    learner: false,
                });
            }
        }
        listed
            .into_iter()
            .map(|m| EtcdMember {
                health: self.member_health(&m.client_url),
                name: m.name,
                id: m.id,
                client_url: m.client_url,
                peer_urls: m.peer_urls,
                learner: m.learner,
            })
            .collect()
    }
}

/// Why an etcd request gave no JSON.
enum Unanswered {
    /// No answer arrived.
    NoAnswer,
    /// An answer that is too large, stalled, broke off or is not JSON.
    Unreadable,
}

/// One entry of etcd's member list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedMember {
    /// Member name.
    pub name: String,
    /// Member ID.
    pub id: Option<u64>,
    /// First client URL.
    pub client_url: String,
    /// Peer URLs.
    pub peer_urls: Vec<String>,
    /// True for a learner.
    pub learner: bool,
}

impl ports::Etcd for EtcdHealth {
    fn members(&mut self) -> PortResult<Vec<EtcdMember>> {
        let members = self.check();
        if members.is_empty() {
            return Err(PortError::unavailable("etcd: no member known"));
        }
        Ok(members)
    }
}
