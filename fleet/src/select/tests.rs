use super::*;
use serde_json::json;

fn cluster(
    id: &str,
    name: &str,
    state: &str,
    version: &str,
    zone: &str,
    project: Option<&str>,
) -> KubernetesCluster {
    let mut v = json!({"id": id, "name": name, "state": state, "kubernetesversionid": version,
        "zoneid": zone, "zonename": format!("{zone}-name"), "account": "admin", "domainid": "d1", "domain": "ROOT"});
    if let Some(p) = project {
        v["projectid"] = json!(p);
        v["project"] = json!(format!("{p}-name"));
    }
    serde_json::from_value(v).expect("cluster")
}

fn version(id: &str, semver: &str, zone: Option<&str>) -> KubernetesVersion {
    serde_json::from_value(
        json!({"id": id, "name": format!("v{semver}"), "semanticversion": semver,
        "isostate": "Ready", "state": "Enabled", "zoneid": zone}),
    )
    .expect("version")
}

#[test]
fn filters_and_refusals_name_the_reason() {
    let versions = [
        version("old", "1.32.4", None),
        version("new", "1.33.1", Some("z1")),
    ];
    let clusters = [
        cluster("a", "prod-a", "Running", "old", "z1", None),
        cluster("b", "prod-b", "Alert", "old", "z1", Some("p1")),
        cluster("c", "prod-c", "Running", "new", "z1", None),
        cluster("d", "prod-d", "Running", "old", "z2", None),
        cluster("e", "test-e", "Running", "old", "z1", None),
    ];
    let selection = Selection {
        name: Some("prod-*".into()),
        version: Some("<=1.33.1".into()),
        ..Selection::default()
    };
    let picked = pick(&clusters, &versions, &selection, Some(&versions[1])).expect("picked");
    let ids: Vec<&str> = picked.clusters.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["a"]);
    let reasons: Vec<(&str, &str)> = picked
        .refused
        .iter()
        .map(|s| (s.id.as_str(), s.reason.as_str()))
        .collect();
    assert!(
        reasons[0].0 == "b" && reasons[0].1.contains("Alert, not Running"),
        "{reasons:?}"
    );
    assert!(
        reasons[1].0 == "c" && reasons[1].1.contains("already on 1.33.1"),
        "{reasons:?}"
    );
    assert!(
        reasons[2].0 == "d" && reasons[2].1.contains("registered in zone z1"),
        "{reasons:?}"
    );
    let by_project = Selection {
        project: Some("p1-name".into()),
        ..Selection::default()
    };
    let picked = pick(&clusters, &versions, &by_project, None).expect("picked");
    assert_eq!(picked.refused.len() + picked.clusters.len(), 1);
}

#[test]
fn a_cluster_newer_than_the_target_refuses_the_fleet_naming_it() {
    let versions = [
        version("old", "1.32.4", None),
        version("new", "1.33.1", None),
    ];
    let clusters = [cluster("a", "prod-a", "Running", "new", "z1", None)];
    let error = pick(
        &clusters,
        &versions,
        &Selection::default(),
        Some(&versions[0]),
    )
    .expect_err("downgrade")
    .to_string();
    assert!(
        error.contains("prod-a (a) runs 1.33.1, newer than the target 1.32.4"),
        "{error}"
    );
}

#[test]
fn ranges_take_bare_versions_as_exact() {
    let r = parse_range("1.32.4").expect("range");
    assert!(
        r.matches(&semver::Version::new(1, 32, 4)) && !r.matches(&semver::Version::new(1, 32, 5))
    );
    assert!(
        parse_range("<1.33")
            .expect("range")
            .matches(&semver::Version::new(1, 32, 9))
    );
    assert!(parse_range("soon").is_err());
}
