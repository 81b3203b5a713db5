//! A second engine process on the same cluster record (`scan`, then `run`), started by a
//! scheduled fault in the middle of the first one's step.

use super::world::World;
use crate::engine::NoProgress;
use crate::ports::Ports;
use std::cell::RefCell;

/// Run the second engine if a fault asked for it: the scanner, then the update call, with its
/// own owner, on `ports` (over the same world).
pub fn run_due(world: &RefCell<World>, ports: &mut Ports<'_>) {
    let second = {
        let mut w = world.borrow_mut();
        if !w.engines.due || w.engines.current != 0 || w.crashed {
            return;
        }
        w.engines.due = false;
        let Some(second) = w.engines.second.clone() else {
            return;
        };
        w.engines.current = 1;
        let line = format!("#{} second engine: scan, then run", w.step);
        w.trace.push(line);
        second
    };
    let (req, cfg) = second;
    let id = world.borrow().record.id.clone();
    let scan = crate::engine::scan(ports, &id, cfg.lease_timeout);
    let run = crate::engine::update(ports, &id, &req, &cfg, &mut NoProgress);
    let mut w = world.borrow_mut();
    let line = format!(
        "#{} second engine done: scan {:?}; run {}",
        w.step,
        scan.map_err(|e| e.to_string()),
        match &run {
            Ok(crate::engine::UpdateOutcome::RolledOut(r)) => format!(
                "rolled out, error {:?}",
                r.run.error.as_ref().map(|e| e.to_string())
            ),
            Ok(other) => format!("{other:?}"),
            Err(e) => format!("refused: {e}"),
        }
    );
    w.trace.push(line);
    w.engines.current = 0;
}
