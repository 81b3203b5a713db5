//! Our etcd health check against a real 3-member etcd cluster on loopback: healthy; one member
//! stopped (quorum kept); two stopped (quorum lost); and over mutual TLS, where a client without
//! the cluster's certificate gets no answer.

use std::time::Duration;

use cks_fixtures::etcd::EtcdCluster;
use cks_fixtures::process::wait_until;
use cks_rollout::adapters::etcd::{EtcdHealth, KnownMember, Quorum};
use cks_rollout::adapters::tls::TlsMaterial;
use cks_rollout::model::MemberHealth;

fn known(cluster: &EtcdCluster) -> Vec<KnownMember> {
    cluster
        .members
        .iter()
        .map(|m| KnownMember {
            name: m.name.clone(),
            client_url: m.client_url.clone(),
        })
        .collect()
}

fn settles_on(
    health: &EtcdHealth,
    what: &str,
    wanted: impl Fn(&Quorum, &[MemberHealth]) -> bool,
) -> Vec<MemberHealth> {
    let mut last = Vec::new();
    let result = wait_until(what, Duration::from_secs(20), || {
        let members = health.check();
        last = members.iter().map(|m| m.health).collect();
        wanted(&Quorum::of(&members), &last)
    });
    assert!(result.is_ok(), "{what}: last saw {last:?}");
    last
}

#[test]
fn quorum_is_kept_with_one_member_down_and_lost_with_two() {
    let mut cluster = EtcdCluster::start(3).expect("etcd cluster starts");
    let health = EtcdHealth::new(
        known(&cluster),
        &TlsMaterial::default(),
        Duration::from_secs(3),
    )
    .expect("checks");

    let members = health.check();
    assert_eq!(members.len(), 3, "the member list names all three");
    assert!(
        members
            .iter()
            .all(|m| m.health == MemberHealth::Healthy && !m.learner),
        "{members:?}"
    );
    let q = Quorum::of(&members);
    assert!(q.is_kept());
    assert_eq!((q.voters, q.healthy, q.needed), (3, 3, 2));

    cluster.stop_member(0).expect("stop m0");
    let seen = settles_on(&health, "m0 unknown, m1 and m2 healthy", |q, h| {
        q.is_kept() && h.iter().filter(|h| **h == MemberHealth::Healthy).count() == 2
    });
    assert_eq!(
        seen.iter().filter(|h| **h == MemberHealth::Unknown).count(),
        1
    );

    cluster.stop_member(1).expect("stop m1");
    let seen = settles_on(&health, "quorum lost", |q, _| !q.is_kept());
    // The last member answers, but not healthy: it cannot commit without a quorum.
    assert!(seen.contains(&MemberHealth::Unhealthy), "{seen:?}");
    assert!(!seen.contains(&MemberHealth::Healthy), "{seen:?}");
}

#[test]
fn mutual_tls_members_answer_only_with_the_client_certificate() {
    let cluster = EtcdCluster::start_tls(3).expect("etcd cluster with TLS starts");
    let files = cluster.tls().expect("TLS files");
    let mut identity = std::fs::read(&files.client_cert).expect("cert");
    identity.push(b'\n');
    identity.extend(std::fs::read(&files.client_key).expect("key"));
    let ca = std::fs::read(&files.ca).expect("ca");
    let with_cert = TlsMaterial {
        ca_pem: Some(ca.clone()),
        identity_pem: Some(identity),
        insecure: false,
    };
    let health =
        EtcdHealth::new(known(&cluster), &with_cert, Duration::from_secs(3)).expect("checks");
    let members = health.check();
    assert!(
        members.iter().all(|m| m.health == MemberHealth::Healthy),
        "{members:?}"
    );
    assert!(Quorum::of(&members).is_kept());

    let without = TlsMaterial {
        ca_pem: Some(ca),
        identity_pem: None,
        insecure: false,
    };
    let anonymous =
        EtcdHealth::new(known(&cluster), &without, Duration::from_secs(3)).expect("checks");
    let members = anonymous.check();
    assert!(
        members.iter().all(|m| m.health != MemberHealth::Healthy),
        "{members:?}"
    );
    assert!(!Quorum::of(&members).is_kept());
}
