//! The update call: validate, store, and (with `rollout=true`) roll out and release.

use super::autoscaler_risk::refuse_autoscaler_risk;
use super::config::EngineConfig;
use super::note::Note;
use super::observe::{observe, observe_cloud};
use super::plan::{Plan, plan};
use super::progress::{Progress, StepKind};
use super::release::{ReleaseOutcome, release_held};
use super::request::{UpdateError, UpdateRequest};
use super::run::{RunOutcome, Runner};
use super::validate::{Validated, validate};
use super::view::{ClusterView, cluster_view};
use crate::model::{CksCluster, ClusterState, KubernetesVersion, Lease};
use crate::ports::Ports;
use serde::Serialize;

/// A finished rollout: the run and its release.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RolloutReport {
    /// The run.
    pub run: RunOutcome,
    /// The release (`None` if release itself could not run; the scanner then takes over).
    pub release: Option<ReleaseOutcome>,
    /// Why release could not run.
    pub release_error: Option<String>,
    /// Every step.
    pub events: Vec<super::progress::Event>,
    /// What the update said alongside (an accepted risk, node types that cannot be rolled out).
    pub notes: Vec<Note>,
}

/// What the update call did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum UpdateOutcome {
    /// Settings stored, nothing restarted.
    Stored {
        /// The cluster view afterwards.
        view: ClusterView,
        /// What the update said alongside.
        notes: Vec<Note>,
    },
    /// A cancel was recorded; the running rollout stops before its next batch.
    CancelRequested,
    /// A rollout ran.
    RolledOut(Box<RolloutReport>),
}

fn port(what: &'static str) -> impl Fn(crate::ports::PortError) -> UpdateError {
    move |source| UpdateError::Port { what, source }
}

fn engine_err(e: super::error::EngineError) -> UpdateError {
    match e {
        super::error::EngineError::Port { what, source } => UpdateError::Port { what, source },
        other => UpdateError::Engine(other),
    }
}

/// CloudStack's own view of the cluster and its Kubernetes version (whose node minimums apply
/// to new offerings; a version CloudStack does not list leaves only the fixed minimums).
fn cks_view(
    ports: &mut Ports<'_>,
    cluster_id: &str,
) -> Result<(CksCluster, Option<KubernetesVersion>), UpdateError> {
    let cks = ports
        .cloud
        .cks_cluster(cluster_id)
        .map_err(port("listKubernetesClusters"))?;
    let version = match &cks.kubernetes_version_id {
        Some(id) => Some(
            ports
                .cloud
                .kubernetes_version(id)
                .map_err(port("listKubernetesSupportedVersions"))?,
        ),
        None => None,
    };
    Ok((cks, version))
}

fn check_cancel(
    req: &UpdateRequest,
    ports: &mut Ports<'_>,
    cluster_id: &str,
) -> Result<UpdateOutcome, UpdateError> {
    if req.rollout || req.has_settings() || req.max_unavailable.is_some() {
        return Err(UpdateError::param(
            "cancelrollout",
            "cancelrollout=true takes no other parameter; send it alone",
        ));
    }
    let record = ports.store.load(cluster_id).map_err(port("load cluster"))?;
    if record.state != ClusterState::Updating {
        return Err(UpdateError::param(
            "cancelrollout",
            format!(
                "cluster {cluster_id} is {:?}, no rollout is running",
                record.state
            ),
        ));
    }
    // Set only while the cluster is still Updating, in one transaction: a rollout that ended
    // meanwhile is not left with a stray flag.
    if !ports
        .store
        .request_cancel(cluster_id)
        .map_err(port("set rollout.cancel"))?
    {
        return Err(UpdateError::param(
            "cancelrollout",
            format!("cluster {cluster_id} is no longer Updating, no rollout is running"),
        ));
    }
    Ok(UpdateOutcome::CancelRequested)
}

/// An update the engine accepted: the cluster as it was read, the checked settings and what
/// is said alongside.
struct Accepted {
    snap: super::observe::Snapshot,
    valid: Validated,
    notes: Vec<Note>,
}

/// Every refusal of `req` before anything changes: the cluster's state in the store and in
/// CloudStack, the autoscaler risk, then the settings themselves ([`validate`]).
fn accept(
    ports: &mut Ports<'_>,
    cluster_id: &str,
    req: &UpdateRequest,
) -> Result<Accepted, UpdateError> {
    let snap = observe_cloud(ports, cluster_id).map_err(engine_err)?;
    let state = snap.record.state;
    let wrong_state = |message: String| UpdateError::WrongState {
        cluster: cluster_id.to_string(),
        state,
        message,
    };
    if req.rollout {
        if !matches!(state, ClusterState::Running | ClusterState::Alert) {
            return Err(wrong_state(
                "rollout=true needs Running or Alert".to_string(),
            ));
        }
    } else if state.is_busy() {
        return Err(wrong_state("another operation runs on the cluster (or it is being destroyed); retry when it is done".to_string()));
    }
    let (cks, version) = cks_view(ports, cluster_id)?;
    if req.rollout && !cks.allows_rollout() {
        return Err(wrong_state(format!(
            "CloudStack reports it {}: another CloudStack operation runs on it; retry once CloudStack shows it Running or Alert",
            cks.state
        )));
    }
    let risk = autoscaler_risk(ports, &cks, req)?;
    let mut valid = validate(req, &snap, version.as_ref())?;
    stamp_vms(&mut valid.settings, &snap);
    let notes = risk.into_iter().chain(valid.notes.drain(..)).collect();
    Ok(Accepted { snap, valid, notes })
}

/// `rollout=false`: the settings stored while the cluster is still in `state`.
fn store_settings(
    ports: &mut Ports<'_>,
    cluster_id: &str,
    state: ClusterState,
    accepted: Accepted,
) -> Result<UpdateOutcome, UpdateError> {
    if !ports
        .store
        .save_settings(cluster_id, state, &accepted.valid.settings)
        .map_err(port("store settings"))?
    {
        return Err(UpdateError::Concurrent {
            cluster: cluster_id.to_string(),
            expected: state,
        });
    }
    let after = observe_cloud(ports, cluster_id).map_err(engine_err)?;
    Ok(UpdateOutcome::Stored {
        view: cluster_view(&after),
        notes: accepted.notes,
    })
}

/// The move into Updating under `lease`, the cleared cancel flag and the settings, in one
/// transaction: a cancel asked once the cluster is Updating is never erased.
fn begin(
    ports: &mut Ports<'_>,
    cluster_id: &str,
    state: ClusterState,
    lease: &Lease,
    valid: &Validated,
) -> Result<(), UpdateError> {
    match ports
        .store
        .begin_rollout(cluster_id, state, lease, &valid.settings)
    {
        Ok(true) => {
            // lasterror now speaks of this rollout only (the scanner keeps what it records).
            let _ = ports.store.set_last_error(cluster_id, None);
            Ok(())
        }
        Ok(false) => Err(UpdateError::Concurrent {
            cluster: cluster_id.to_string(),
            expected: state,
        }),
        Err(e) => {
            let message = e.to_string();
            let _ = ports.store.set_last_error(cluster_id, Some(&message));
            Err(UpdateError::StoreFailed {
                cluster: cluster_id.to_string(),
                message,
                restored: state,
            })
        }
    }
}

/// The update call.
pub fn update(
    ports: &mut Ports<'_>,
    cluster_id: &str,
    req: &UpdateRequest,
    cfg: &EngineConfig,
    progress: &mut dyn Progress,
) -> Result<UpdateOutcome, UpdateError> {
    if req.cancel_rollout {
        return check_cancel(req, ports, cluster_id);
    }
    // The controls and the knob are checked on their own first: a bad value is refused before
    // anything is asked of CloudStack or the store.
    super::validate::max_unavailable(req)?;
    if req.rollout {
        cfg.check()?;
    }
    let accepted = accept(ports, cluster_id, req)?;
    let state = accepted.snap.record.state;
    if !req.rollout {
        return store_settings(ports, cluster_id, state, accepted);
    }
    // The store stamps the heartbeat with its own clock; the runner learns it from the record
    // it reads first.
    let lease = Lease {
        owner: cfg.owner.clone(),
        heartbeat_ms: 0,
    };
    begin(ports, cluster_id, state, &lease, &accepted.valid)?;
    let mut runner = Runner::new(ports, cfg, cluster_id, lease, progress);
    let mut run = runner.execute(accepted.valid.max_unavailable);
    if run.cancelled && run.error.is_none() && !run.lost_lease {
        // A cancel is no error, but lasterror says the rollout stopped on request and what is
        // left, before any skipped nodes.
        let cancelled = cancelled_message(runner.ports, cluster_id);
        run.notes = Some(match run.notes.take() {
            Some(skipped) => format!("{cancelled}; {skipped}"),
            None => cancelled,
        });
    }
    let (release, release_error) = release_after(&mut runner, cluster_id, cfg, &mut run);
    runner.emit(
        None,
        None,
        StepKind::Release,
        match &release {
            Some(r) => format!("{:?}", r.state),
            None => release_error.clone().unwrap_or_default(),
        },
    );
    let events = runner.events().to_vec();
    Ok(UpdateOutcome::RolledOut(Box::new(RolloutReport {
        run,
        release,
        release_error,
        events,
        notes: accepted.notes,
    })))
}

/// Release after `run`: only under a lease the store confirms now (its state change checks it
/// again in the same transaction); else why it was left to the owner or the scanner.
fn release_after(
    runner: &mut Runner<'_, '_>,
    cluster_id: &str,
    cfg: &EngineConfig,
    run: &mut RunOutcome,
) -> (Option<ReleaseOutcome>, Option<String>) {
    let held = if run.lost_lease {
        Err(None)
    } else {
        runner.hold().map_err(|e| {
            run.lost_lease = true;
            Some(e)
        })
    };
    match held {
        Err(lost) => (
            None,
            Some(match lost {
                Some(e) => format!("{e}; release is left to the cluster's owner or the scanner"),
                None => "another engine owns the cluster now; it releases it".to_string(),
            }),
        ),
        Ok(()) => {
            let error = run.error.as_ref().map(ToString::to_string);
            let lease = runner.lease().clone();
            match release_held(
                runner.ports,
                cluster_id,
                Some((&lease, cfg.lease_timeout)),
                error.as_deref(),
                run.notes.as_deref(),
            ) {
                Ok(r) => (Some(r), None),
                Err(e) => (None, Some(e.to_string())),
            }
        }
    }
}

/// Records with each type's settings the VMs it has now, so the nodes created later are named.
fn stamp_vms(settings: &mut crate::model::TypeSettings, snap: &super::observe::Snapshot) {
    for (t, s) in settings.iter_mut() {
        s.vms_when_stored = Some(snap.vms_of(*t).map(|vm| vm.id.clone()).collect());
    }
}

/// `lasterror` of a rollout a cancel stopped: said so, with what is left per type.
fn cancelled_message(ports: &mut Ports<'_>, cluster_id: &str) -> String {
    let said = "rollout cancelled on request";
    match observe_cloud(ports, cluster_id) {
        Ok(snap) => {
            let v = cluster_view(&snap);
            format!(
                "{said}; still out of date: control {}, worker {}, etcd {}",
                v.controlnodesoutofdate, v.workernodesoutofdate, v.etcdnodesoutofdate
            )
        }
        Err(e) => format!("{said}; the nodes still out of date could not be counted: {e}"),
    }
}

/// `req` as the rollout it would be (`rollout=true`, no cancel).
fn as_rollout(req: &UpdateRequest) -> UpdateRequest {
    let mut as_rollout = req.clone();
    as_rollout.rollout = true;
    as_rollout.cancel_rollout = false;
    as_rollout
}

/// What `update(req)` with `rollout=true` would do, without acting, with its notes.
pub fn plan_update(
    ports: &mut Ports<'_>,
    cluster_id: &str,
    req: &UpdateRequest,
) -> Result<Plan, UpdateError> {
    let mut snap = observe(ports, cluster_id).map_err(engine_err)?;
    let as_rollout = as_rollout(req);
    let (cks, version) = cks_view(ports, cluster_id)?;
    let risk = autoscaler_risk(ports, &cks, &as_rollout)?;
    let valid = validate(&as_rollout, &snap, version.as_ref())?;
    snap.set_settings(valid.settings);
    let mut planned = plan(&snap, valid.max_unavailable);
    planned.notes = risk.into_iter().chain(valid.notes).collect();
    Ok(planned)
}

/// The refusals of `req` that what CloudStack and discovery report decide, before any other
/// check (the autoscaler risk, node types that cannot be rolled out), or the notes the update
/// would carry: for a caller that checks them before it reaches the rest of the cluster. The
/// update call and the plan make the same checks.
pub fn check_update(
    ports: &mut Ports<'_>,
    cluster_id: &str,
    req: &UpdateRequest,
) -> Result<Vec<Note>, UpdateError> {
    let snap = observe_cloud(ports, cluster_id).map_err(engine_err)?;
    let cks = ports
        .cloud
        .cks_cluster(cluster_id)
        .map_err(port("listKubernetesClusters"))?;
    let risk = autoscaler_risk(ports, &cks, req)?;
    let blocked = super::validate::refuse_unmatched(req, &snap)?;
    Ok(risk.into_iter().chain(blocked).collect())
}

/// The cluster view now (with the capacity warnings when the Kubernetes nodes can be read).
pub fn view(ports: &mut Ports<'_>, cluster_id: &str) -> Result<ClusterView, UpdateError> {
    let mut snap = observe_cloud(ports, cluster_id).map_err(engine_err)?;
    if let Ok(nodes) = ports.kube.list_nodes(&snap.endpoint_avoiding(&[])) {
        snap.nodes = nodes;
        snap.nodes_known = true;
    }
    Ok(cluster_view(&snap))
}

/// The autoscaler risk of `req` on the cluster CloudStack reports as `cks`
/// ([`refuse_autoscaler_risk`]).
fn autoscaler_risk(
    ports: &mut Ports<'_>,
    cks: &CksCluster,
    req: &UpdateRequest,
) -> Result<Option<Note>, UpdateError> {
    Ok(refuse_autoscaler_risk(
        ports.cloud,
        cks,
        &req.node_offerings,
        req.accept_autoscaler_risk,
    )?)
}
