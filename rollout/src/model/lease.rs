//! The lease rules, written once for every store: who may act on an `Updating` cluster, judged
//! on the record and the store's own clock inside the store's transaction.

use super::cluster::ClusterRecord;
use super::cluster::ClusterState;
use super::cluster::Lease;
use std::time::Duration;

fn fresh(held: &Lease, timeout: Duration, now_ms: u64) -> bool {
    u128::from(now_ms.saturating_sub(held.heartbeat_ms)) < timeout.as_millis()
}

impl ClusterRecord {
    /// `lease` still holds this `Updating` cluster: same owner, the heartbeat it last wrote,
    /// renewed less than `timeout` ago by the store's clock `now_ms`.
    pub fn held_by(&self, lease: &Lease, timeout: Duration, now_ms: u64) -> bool {
        self.state == ClusterState::Updating
            && self.lease.as_ref().is_some_and(|held| {
                held.owner == lease.owner
                    && held.heartbeat_ms == lease.heartbeat_ms
                    && fresh(held, timeout, now_ms)
            })
    }

    /// Renews `lease` to `now_ms` if [`ClusterRecord::held_by`] it; the new heartbeat, or
    /// `None` when the lease is lost.
    pub fn renew_held(&mut self, lease: &Lease, timeout: Duration, now_ms: u64) -> Option<u64> {
        if !self.held_by(lease, timeout, now_ms) {
            return None;
        }
        // A clock that went back never moves the heartbeat back (it must change to count).
        let beat = now_ms.max(lease.heartbeat_ms + 1);
        self.lease = Some(Lease {
            owner: lease.owner.clone(),
            heartbeat_ms: beat,
        });
        Some(beat)
    }

    /// Ends the rollout `lease` holds: the state becomes `new` and the lease is cleared;
    /// `false` (nothing changed) when the lease is no longer held.
    pub fn end_held(
        &mut self,
        lease: &Lease,
        timeout: Duration,
        now_ms: u64,
        new: ClusterState,
    ) -> bool {
        if !self.held_by(lease, timeout, now_ms) {
            return false;
        }
        self.state = new;
        self.lease = None;
        true
    }

    /// The scanner's take-over: if the cluster is `Updating` with exactly the lease `seen`
    /// (same owner and heartbeat) and that heartbeat is at least `timeout` old by `now_ms`
    /// (or there is no lease), move it to `Alert` and clear the lease.
    pub fn expire_lease(&mut self, seen: Option<&Lease>, timeout: Duration, now_ms: u64) -> bool {
        if self.state != ClusterState::Updating || self.lease.as_ref() != seen {
            return false;
        }
        if let Some(held) = &self.lease
            && fresh(held, timeout, now_ms)
        {
            return false;
        }
        self.state = ClusterState::Alert;
        self.lease = None;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn updating(owner: &str, beat: u64) -> ClusterRecord {
        ClusterRecord {
            lease: Some(Lease {
                owner: owner.into(),
                heartbeat_ms: beat,
            }),
            ..ClusterRecord::sample("k1", ClusterState::Updating)
        }
    }

    fn lease(owner: &str, beat: u64) -> Lease {
        Lease {
            owner: owner.into(),
            heartbeat_ms: beat,
        }
    }

    #[test]
    fn a_renewal_needs_the_owner_its_own_heartbeat_and_a_fresh_one() {
        let t = Duration::from_secs(10);
        let mut r = updating("a", 1_000);
        assert_eq!(r.renew_held(&lease("a", 1_000), t, 5_000), Some(5_000));
        assert_eq!(
            r.renew_held(&lease("a", 1_000), t, 6_000),
            None,
            "stale copy"
        );
        assert_eq!(r.renew_held(&lease("b", 5_000), t, 6_000), None, "not ours");
        assert_eq!(r.renew_held(&lease("a", 5_000), t, 15_000), None, "expired");
        let mut alert = r.clone();
        alert.state = ClusterState::Alert;
        assert_eq!(alert.renew_held(&lease("a", 5_000), t, 6_000), None);
    }

    #[test]
    fn the_scanner_takes_over_only_the_lease_it_saw_once_expired() {
        let t = Duration::from_secs(10);
        let mut r = updating("a", 1_000);
        let seen = r.lease.clone();
        assert!(!r.expire_lease(seen.as_ref(), t, 10_999), "still fresh");
        assert!(
            !r.expire_lease(Some(&lease("a", 900)), t, 20_000),
            "renewed since"
        );
        assert!(r.expire_lease(seen.as_ref(), t, 11_000));
        assert_eq!((r.state, r.lease), (ClusterState::Alert, None));
    }
}
