//! etcd's answers, read once into types: the member list (`/v3/cluster/member/list` through the
//! gateway, `etcdctl member list -w json` over SSH), one member's `/health`, and `etcdctl
//! endpoint health --cluster -w json`. Both forms of the member list are read by one
//! [`MemberList`]: the gateway prints the uint64 `ID` as a string, etcdctl as a number. A field
//! of another shape reads as absent rather than losing the whole answer.

use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// A member list answer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct MemberList {
    /// The members.
    pub members: Vec<Member>,
}

impl MemberList {
    /// The answer as a member list; `None` when it has no `members` list.
    pub fn read(answer: Value) -> Option<MemberList> {
        serde_json::from_value(answer).ok()
    }
}

/// One member.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Member {
    /// Its ID, a number or its decimal text.
    #[serde(rename = "ID", default, deserialize_with = "member_id")]
    pub id: Option<u64>,
    /// Its name.
    #[serde(default, deserialize_with = "text")]
    pub name: String,
    /// Its peer URLs.
    #[serde(rename = "peerURLs", default, deserialize_with = "strings")]
    pub peer_urls: Vec<String>,
    /// Its client URLs.
    #[serde(rename = "clientURLs", default, deserialize_with = "strings")]
    pub client_urls: Vec<String>,
    /// A learner (not yet voting).
    #[serde(rename = "isLearner", default, deserialize_with = "flag")]
    pub learner: bool,
}

/// One endpoint of `etcdctl endpoint health --cluster -w json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct EndpointHealth {
    /// The client URL.
    #[serde(default, deserialize_with = "text")]
    pub endpoint: String,
    /// Healthy.
    #[serde(default, deserialize_with = "flag")]
    pub health: bool,
}

impl EndpointHealth {
    /// The endpoints of an answer (none when it is not a list); those without a URL left out.
    pub fn read_all(answer: Value) -> Vec<EndpointHealth> {
        let listed: Vec<EndpointHealth> = serde_json::from_value(answer).unwrap_or_default();
        listed
            .into_iter()
            .filter(|h| !h.endpoint.is_empty())
            .collect()
    }
}

/// True when a member's `/health` answer says `"health": "true"`.
pub fn member_healthy(answer: &Value) -> bool {
    #[derive(Deserialize)]
    struct Health {
        #[serde(default)]
        health: Value,
    }
    serde_json::from_value::<Health>(answer.clone())
        .is_ok_and(|h| h.health == Value::String("true".into()))
}

fn member_id<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(s) => s.parse().ok(),
        v => v.as_u64(),
    })
}

fn text<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(s) => s,
        _ => String::new(),
    })
}

fn flag<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Ok(Value::deserialize(d)?.as_bool().unwrap_or(false))
}

fn strings<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Array(items) => items
            .into_iter()
            .filter_map(|u| match u {
                Value::String(s) => Some(s),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_gateway_and_etcdctl_forms_read_alike() {
        let member = |id: Value| {
            json!({"members": [{"ID": id, "name": "a", "peerURLs": ["https://10.0.0.1:2380"],
                                 "clientURLs": ["https://10.0.0.1:2379", 7], "isLearner": true}]})
        };
        let gateway = MemberList::read(member(json!("17000000000000000001"))).expect("a list");
        let etcdctl =
            MemberList::read(member(json!(17_000_000_000_000_000_001u64))).expect("a list");
        assert_eq!(gateway, etcdctl);
        assert_eq!(gateway.members[0].id, Some(17_000_000_000_000_000_001));
        assert_eq!(gateway.members[0].client_urls, ["https://10.0.0.1:2379"]);
        assert!(gateway.members[0].learner);
    }

    #[test]
    fn odd_shapes_read_as_absent() {
        assert_eq!(MemberList::read(json!({"header": {}})), None);
        let odd = MemberList::read(json!({"members": [{"ID": {}, "name": 3, "isLearner": "yes"}]}))
            .expect("a list");
        assert_eq!(odd.members[0], Member::default());
        assert!(EndpointHealth::read_all(json!({"not": "a list"})).is_empty());
        assert_eq!(
            EndpointHealth::read_all(json!([{"endpoint": "https://a:2379/", "health": true}, {}])),
            [EndpointHealth {
                endpoint: "https://a:2379/".into(),
                health: true
            }]
        );
        assert!(member_healthy(&json!({"health": "true"})));
        assert!(!member_healthy(&json!({"health": true})));
        assert!(!member_healthy(&json!([])));
    }
}
