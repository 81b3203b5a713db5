//! `plan`, `run` and `simulate`.

use std::path::Path;
use std::time::Instant;

use cks_cloudstack::{CloudStackClient, CloudStackConfig};
use cks_rollout::events::webhook::Webhook;

use super::args::{PlanArgs, StoreArgs, WorkerArgs};
use super::events::Sinks;
use super::status::{ended, open};
use super::{Ended, Failure, bad, plan as planning};
use crate::adapters::commands::{CommandOps, Tools, beside_me};
use crate::adapters::gates::CommandGates;
use crate::sim::Simulation;
use crate::worker::{Step, Summary, Worker, WorkerPorts};

/// The CloudStack client from the environment, and the secrets it knows.
fn client(max_answer_size: u64) -> Result<(CloudStackClient, Vec<String>), Failure> {
    let mut config = CloudStackConfig::from_env().map_err(|e| {
        bad(format!("CloudStack: {e}; set CLOUDSTACK_ENDPOINT, CLOUDSTACK_KEY and CLOUDSTACK_SECRET, or CLOUDSTACK_CONFIG"))
    })?;
    config.max_answer_size = max_answer_size;
    for warning in config.warnings() {
        eprintln!("cks-fleet: warning: {warning}");
    }
    let secrets = vec![
        config.api_key.expose().to_string(),
        config.secret_key.expose().to_string(),
    ];
    let client = CloudStackClient::new(config)
        .map_err(|e| Failure::Run(format!("the CloudStack client: {e}")))?;
    Ok((client, secrets))
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// `plan`.
pub fn plan(fleet: &str, args: &PlanArgs, json: bool) -> Result<Ended, Failure> {
    let (client, _) = client(args.max_answer_size)?;
    let (record, dropped) = planning::plan(fleet, args, &client, now_ms())?;
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&record.plan).map_err(|e| Failure::Run(e.to_string()))?
        );
    } else {
        print!("{}", planning::render(&record, &dropped));
    }
    Ok(Ended::Done)
}

/// The arguments each one-cluster tool gets from this worker's.
fn tools(w: &WorkerArgs, store: &str) -> Tools {
    let mut upgrade_args = Vec::new();
    let mut rollout_args = vec!["--store".to_string(), store.to_string()];
    if let Some(key) = &w.ssh_key {
        for args in [&mut upgrade_args, &mut rollout_args] {
            args.extend(["--ssh-key".to_string(), key.display().to_string()]);
        }
    }
    if let Some(hosts) = &w.known_hosts {
        for args in [&mut upgrade_args, &mut rollout_args] {
            args.extend(["--known-hosts".to_string(), hosts.display().to_string()]);
        }
    }
    if let Some(user) = &w.ssh_user {
        upgrade_args.extend(["--ssh-user".to_string(), user.clone()]);
        rollout_args.extend(["--ssh-user".to_string(), user.clone()]);
    }
    let mut run_only_args = Vec::new();
    if let Some(events) = &w.events {
        run_only_args.extend(["--events".to_string(), events.display().to_string()]);
    }
    if let Some(hook) = &w.webhook {
        run_only_args.extend(["--webhook".to_string(), hook.clone()]);
    }
    upgrade_args.extend(w.upgrade_args.iter().cloned());
    run_only_args.extend(w.rollout_args.iter().cloned());
    let mut upgrade_only_args = Vec::new();
    if let Some(iso) = &w.iso {
        upgrade_only_args.extend(["--iso".to_string(), iso.display().to_string()]);
    }
    if w.no_preload {
        upgrade_only_args.push("--no-preload".to_string());
    }
    Tools {
        upgrade_hook: w
            .upgrade_hook
            .clone()
            .unwrap_or_else(|| beside_me("cks-upgrade-hook")),
        rollout: w
            .rollout
            .clone()
            .unwrap_or_else(|| beside_me("cks-rollout")),
        upgrade_args,
        upgrade_only_args,
        rollout_args,
        run_only_args,
    }
}

/// `run`: creates the fleet when the store has none of that name, else joins it; works until
/// it ends; prints the summary.
pub fn run(
    store: &StoreArgs,
    args: &PlanArgs,
    w: &WorkerArgs,
    json: bool,
) -> Result<Ended, Failure> {
    if w.iso.is_none() && !w.no_preload && args.to.is_some() {
        return Err(bad("--to needs --iso FILE (the new ISO, preloaded on every node and checked against CloudStack's checksum) or --no-preload".into()));
    }
    let (client, secrets) = client(args.max_answer_size)?;
    // A store file not there yet holds no fleet: plan before creating it, so a refused plan
    // leaves nothing behind.
    let url: cks_rollout::adapters::store::StoreUrl = store
        .store
        .parse()
        .map_err(|e| bad(format!("--store: {e}")))?;
    let early = if url.is_missing() {
        Some(planning::plan(&store.fleet, args, &client, now_ms())?)
    } else {
        None
    };
    let mut table = open(store, true)?;
    let known = table.ids().map_err(|e| Failure::Run(e.to_string()))?;
    if !known.contains(&store.fleet) {
        let now = table.now_ms().map_err(|e| Failure::Run(e.to_string()))?;
        let (record, dropped) = match early {
            Some(planned) => planned,
            None => planning::plan(&store.fleet, args, &client, now)?,
        };
        if table
            .create(&record)
            .map_err(|e| Failure::Run(e.to_string()))?
        {
            eprint!("{}", planning::render(&record, &dropped));
        }
    } else {
        eprintln!(
            "fleet {}: joining it; its plan is the one in the store",
            store.fleet
        );
    }
    let name = w.worker.clone().unwrap_or_else(|| {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
        format!("{}-{}", host.trim(), std::process::id())
    });
    let webhook = match &w.webhook {
        Some(url) => {
            Some(Webhook::start(url, &store.fleet).map_err(|e| bad(format!("--webhook: {e}")))?)
        }
        None => None,
    };
    let file = match &w.events {
        Some(path) => Some((
            path.clone(),
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| bad(format!("--events {}: {e}", path.display())))?,
        )),
        None => None,
    };
    let mut sinks = Sinks {
        fleet: store.fleet.clone(),
        file,
        webhook,
        error: None,
        print: !json,
    };
    let mut ops = CommandOps::new(client, tools(w, &store.store));
    let mut gates = CommandGates::new(secrets);
    let mut clock = cks_rollout::adapters::clock::SystemClock;
    // One worker state machine per slot: this process acts on up to --concurrency clusters at
    // once, each slot a lease owner of its own; the stage's parallelism bounds the fleet.
    let mut slots: Vec<(Worker, Instant)> = (1..=w.concurrency.max(1))
        .map(|i| {
            (
                Worker::new(&format!("{name}/{i}"), &store.fleet, w.poll_interval),
                Instant::now(),
            )
        })
        .collect();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        let _ = signal_hook::flag::register(signal, stop.clone());
    }
    while !slots.is_empty() {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            eprintln!(
                "cks-fleet: stopped by a signal; the clusters this worker held are taken over by another worker once its lease lapses"
            );
            return Err(Failure::Run("interrupted".into()));
        }
        let Some(i) = (0..slots.len()).min_by_key(|i| slots[*i].1) else {
            break;
        };
        let wait = slots[i].1.saturating_duration_since(Instant::now());
        if !wait.is_zero() {
            std::thread::sleep(wait.min(w.poll_interval));
            continue;
        }
        let step = {
            let mut ports = WorkerPorts {
                store: table.as_mut(),
                ops: &mut ops,
                gates: &mut gates,
                clock: &mut clock,
                events: &mut sinks,
            };
            slots[i].0.step(&mut ports)
        };
        match step {
            Step::Again => slots[i].1 = Instant::now(),
            Step::Sleep(d) => slots[i].1 = Instant::now() + d.min(w.poll_interval),
            Step::Finished => {
                slots.swap_remove(i);
            }
        }
    }
    if let Some(hook) = sinks.webhook.take()
        && let Some(warning) = hook.finish()
    {
        eprintln!("cks-fleet: warning: {warning}");
    }
    if let Some(e) = &sinks.error {
        eprintln!("cks-fleet: warning: {e}");
    }
    let record = table
        .get(&store.fleet)
        .map_err(|e| Failure::Run(e.to_string()))?;
    print_summary(&Summary::of(&record), json)?;
    Ok(ended(&record))
}

fn print_summary(summary: &Summary, json: bool) -> Result<(), Failure> {
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(summary).map_err(|e| Failure::Run(e.to_string()))?
        );
        return Ok(());
    }
    println!("{:<12} {:<24} {:<12} DETAIL", "STAGE", "CLUSTER", "RESULT");
    for c in &summary.clusters {
        let result = serde_json::to_value(&c.ending)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        println!(
            "{:<12} {:<24} {:<12} {}",
            c.stage.as_deref().unwrap_or("-"),
            c.name,
            result,
            cks_pinning::terminal::one_line(&c.detail)
        );
    }
    if let Some(why) = &summary.halted {
        println!("halted: {}", cks_pinning::terminal::one_line(why));
    }
    if summary.cancelled {
        println!("cancelled");
    }
    Ok(())
}

/// `simulate`.
pub fn simulate(path: &Path, json: bool) -> Result<Ended, Failure> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| bad(format!("--fleet-file {}: {e}", path.display())))?;
    let spec = serde_norway::from_str(&text)
        .map_err(|e| bad(format!("--fleet-file {}: {e}", path.display())))?;
    let out =
        Simulation::new(&spec).map_err(|e| bad(format!("--fleet-file {}: {e}", path.display())))?;
    let out = out.run();
    print_summary(&out.summary, json)?;
    eprintln!(
        "simulated {} minutes in {} steps; {} takeover(s)",
        out.minutes, out.steps, out.record.takeovers
    );
    for v in &out.violations {
        eprintln!("cks-fleet: {v}");
    }
    if !out.violations.is_empty() {
        return Ok(Ended::Invariant);
    }
    Ok(ended(&out.record))
}
