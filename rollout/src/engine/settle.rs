//! Nodes an earlier run left annotated: uncordoned once they came back (Ready with a new boot
//! ID), or once it is clear they never went down.

use super::observe::Snapshot;
use super::plan::came_back;
use super::progress::StepKind;
use super::run::Runner;

impl Runner<'_, '_> {
    /// Uncordon annotated nodes that came back: Ready with a boot ID other than the annotated
    /// one (the one rule, [`came_back`]).
    pub(super) fn settle(&mut self, snap: &Snapshot) {
        let ep = snap.endpoint_avoiding(&[]);
        let names: Vec<String> = snap
            .nodes
            .iter()
            .filter(|n| came_back(n))
            .map(|n| n.name.clone())
            .collect();
        for name in names {
            if self.uncordon_ours(&ep, &name, 0).is_ok() {
                self.emit(
                    None,
                    Some(&name),
                    StepKind::Settle,
                    "came back after an earlier run",
                );
            }
        }
    }

    /// Annotated nodes Ready with the annotated boot ID on a Running VM that is up to date (or
    /// of a type that cannot lose a node): an earlier run may have started them again before
    /// their kubelet posted, or never stopped them. Wait (at most [`super::config::BOOT_WAIT`]) for a
    /// new boot ID: with one and Ready, they came back; still Ready with the old one after the
    /// wait (far beyond the node grace period), the kubelet of that boot kept posting, so they
    /// never went down. Either way they are uncordoned; the others stay unfinished work. True
    /// when one was uncordoned (look again before planning).
    pub(super) fn settle_unsure(&mut self, snap: &Snapshot) -> bool {
        let mut unsure: Vec<(String, String)> = snap
            .nodes
            .iter()
            .filter(|n| n.is_ready())
            .filter_map(|n| Some((n, n.rollout_boot_id()?)))
            .filter(|(n, old)| n.boot_id == *old)
            .filter(|(n, _)| {
                snap.vm_by_node(&n.name).is_some_and(|vm| {
                    vm.state == crate::model::VmState::Running
                        && (super::safety::cannot_lose_a_node(&snap.record, vm.node_type)
                            || !snap.out_of_date(vm))
                })
            })
            .map(|(n, old)| (n.name.clone(), old.to_string()))
            .collect();
        if unsure.is_empty() {
            return false;
        }
        let ep = snap.endpoint_avoiding(&[]);
        let until = self.ports.clock.now() + super::config::BOOT_WAIT;
        let mut settled = false;
        while !unsure.is_empty() {
            let mut still = Vec::new();
            let over = self.ports.clock.now() >= until;
            for (name, old) in unsure {
                let node = match self.ports.kube.get_node(&ep, &name) {
                    Ok(Some(node)) => node,
                    _ => {
                        still.push((name, old));
                        continue;
                    }
                };
                let why = if node.boot_id != old && node.is_ready() {
                    "came back after an earlier run"
                } else if node.boot_id != old || !node.is_ready() {
                    // It went down: unfinished work, finished by its batch.
                    continue;
                } else if over {
                    "never went down: Ready with its boot ID all through the wait"
                } else {
                    still.push((name, old));
                    continue;
                };
                if self.uncordon_ours(&ep, &name, 0).is_ok() {
                    settled = true;
                    self.emit(None, Some(&name), StepKind::Settle, why);
                }
            }
            unsure = still;
            if unsure.is_empty() || over {
                break;
            }
            if self.pause().is_err() {
                break;
            }
        }
        settled
    }
}
