//! The selection cut into stages, in order: a stage with `clusters` takes that many, one with
//! `percent` that share of the whole selection (rounded up, at least one), one with neither the
//! rest. Clusters left over with no stage to take them are refused; a stage left with no cluster
//! is dropped, and said so.

use super::file::{StageSpec, StagesError};
use crate::model::PlannedStage;

/// The stages for `clusters` (ids, in the order they start), each stage's gates after
/// `gates`; the planned stages and the names of the stages dropped as empty.
pub fn split(
    clusters: &[String],
    specs: &[StageSpec],
    halt_after: u32,
    gates: &[String],
) -> Result<(Vec<PlannedStage>, Vec<String>), StagesError> {
    if clusters.is_empty() {
        return Err(StagesError(
            "the selection is empty: no cluster matches; `cks-fleet plan` lists what each filter kept".into(),
        ));
    }
    let default = [StageSpec::default()];
    let specs = if specs.is_empty() {
        &default[..]
    } else {
        specs
    };
    let total = clusters.len();
    let mut at = 0;
    let (mut stages, mut dropped) = (Vec::new(), Vec::new());
    for (i, spec) in specs.iter().enumerate() {
        let name = spec
            .name
            .clone()
            .unwrap_or_else(|| format!("stage-{}", i + 1));
        let left = total - at;
        let take = match (spec.clusters, spec.percent) {
            (Some(n), _) => (n as usize).min(left),
            (None, Some(p)) => (total * p as usize).div_ceil(100).max(1).min(left),
            (None, None) => left,
        };
        if take == 0 {
            dropped.push(name);
            continue;
        }
        let soak_ms = match &spec.soak {
            Some(text) => cks_rollout::cli::duration::parse(text)
                .map_err(|e| StagesError(format!("stage {name:?}: soak: {e}")))?
                .as_millis() as u64,
            None => 0,
        };
        stages.push(PlannedStage {
            name,
            clusters: clusters[at..at + take].to_vec(),
            parallelism: spec.parallelism.unwrap_or(1).max(1),
            soak_ms,
            gates: gates.iter().chain(&spec.gates).cloned().collect(),
            halt_after: spec.halt_after.unwrap_or(halt_after).max(1),
        });
        at += take;
    }
    if at < total {
        return Err(StagesError(format!(
            "{} of the {total} selected clusters fall in no stage: end the stages with one that has neither clusters nor percent (it takes the rest)",
            total - at
        )));
    }
    Ok((stages, dropped))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(n: usize) -> Vec<String> {
        (1..=n).map(|i| format!("c{i}")).collect()
    }

    fn stage(clusters: Option<u32>, percent: Option<u32>) -> StageSpec {
        StageSpec {
            clusters,
            percent,
            ..StageSpec::default()
        }
    }

    #[test]
    fn canary_ten_percent_and_the_rest() {
        let specs = [
            stage(Some(1), None),
            stage(None, Some(10)),
            stage(None, None),
        ];
        let (stages, dropped) = split(&ids(30), &specs, 2, &[]).expect("split");
        let sizes: Vec<usize> = stages.iter().map(|s| s.clusters.len()).collect();
        assert_eq!(sizes, [1, 3, 26]);
        assert!(dropped.is_empty());
        assert_eq!(stages[0].clusters, ["c1"]);
        assert!(
            stages
                .iter()
                .all(|s| s.halt_after == 2 && s.parallelism == 1)
        );
    }

    #[test]
    fn leftovers_are_refused_and_empty_stages_dropped() {
        let error = split(&ids(5), &[stage(Some(2), None)], 1, &[]).expect_err("leftovers");
        assert!(
            error
                .0
                .contains("3 of the 5 selected clusters fall in no stage"),
            "{error}"
        );
        let specs = [
            stage(Some(1), None),
            stage(None, Some(10)),
            stage(None, None),
        ];
        let (stages, dropped) = split(&ids(1), &specs, 1, &[]).expect("split");
        assert_eq!(stages.len(), 1);
        assert_eq!(dropped, ["stage-2", "stage-3"]);
        assert!(split(&[], &specs, 1, &[]).is_err());
    }
}
