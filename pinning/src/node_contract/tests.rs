use super::*;

const COMMON: [&str; 12] = [
    "k8s/kubeadm",
    "k8s/kubelet",
    "k8s/kubectl",
    "cni/cni-plugins-amd64.tgz",
    "cri-tools/crictl-linux-amd64.tar.gz",
    "kubelet.service",
    "10-kubeadm.conf",
    "network.yaml",
    "autoscaler.yaml",
    "provider.yaml",
    "docker/pause:3.10.tar",
    "versions.txt",
];

fn with(extra: &[&'static str]) -> Vec<&'static str> {
    COMMON
        .iter()
        .copied()
        .chain(extra.iter().copied())
        .collect()
}

#[test]
fn both_dashboards_fit_every_line() {
    let fits = fit(&with(&["dashboard.yaml", "headlamp.yaml"]));
    assert_eq!(fits.fitting(), Line::ALL);
    assert_eq!(fits.summary(), "fits: 4.20, 4.22, 4.23");
    assert!(fits.reasons().is_empty());
}

#[test]
fn headlamp_only_fits_4_23_and_says_why_not_4_22() {
    let fits = fit(&with(&["headlamp.yaml"]));
    assert_eq!(fits.summary(), "fits: 4.23");
    let reasons = fits.reasons().join("\n");
    assert!(
        reasons.contains("not 4.22: no dashboard.yaml: deploy-kube-system stops")
            && reasons.contains("k8s-control-node.yml:334"),
        "{reasons}"
    );
    assert!(reasons.contains("not 4.20: no dashboard.yaml"), "{reasons}");
    let unverified = &fits.get(Line::V4_23).expect("4.23").unverified;
    assert!(
        unverified[0].by.contains("upgrade-kubernetes.sh"),
        "{unverified:?}"
    );
}

#[test]
fn the_legacy_dashboard_only_fits_every_line() {
    assert_eq!(fit(&with(&["dashboard.yaml"])).fitting(), Line::ALL);
}

#[test]
fn no_dashboard_fits_no_line_and_names_the_readiness_poll() {
    let fits = fit(&with(&[]));
    assert_eq!(fits.summary(), "fits: none");
    let misfit = &fits.get(Line::V4_23).expect("4.23").misfits[0];
    assert_eq!(misfit.missing, "headlamp.yaml or dashboard.yaml");
    assert!(misfit.consequence.contains("readiness poll times out"));
}

#[test]
fn the_4_23_node_takes_headlamp_first() {
    let files = with(&["dashboard.yaml", "headlamp.yaml"]);
    let dashboard = Line::V4_23
        .contract()
        .reads
        .iter()
        .find(|r| matches!(r.need, Need::FirstOf(_)))
        .expect("the dashboard read");
    assert_eq!(dashboard.need.chosen(&files), Some("headlamp.yaml"));
}

#[test]
fn globs_match_one_component() {
    assert!(glob_match(
        "cni/cni-plugins-*64.tgz",
        "cni/cni-plugins-arm64.tgz"
    ));
    assert!(!glob_match(
        "cni/cni-plugins-*64.tgz",
        "cni/cni-plugins-x/amd64.tgz"
    ));
    assert!(!glob_match("docker/*.tar", "docker/pause.tar.gz"));
}

#[test]
fn require_fit_names_each_line_and_reason() {
    let files = with(&["headlamp.yaml"]);
    assert!(require_fit(Target::Line(Line::V4_23), &files).is_ok());
    let err = require_fit(Target::Any, &files).expect_err("4.22 needs dashboard.yaml");
    let text = err.to_string();
    assert!(
        text.starts_with(
            "the ISO would not fit --cloudstack any: CloudStack 4.20: no dashboard.yaml"
        ),
        "{text}"
    );
    assert!(
        text.contains("CloudStack 4.22: no dashboard.yaml"),
        "{text}"
    );
}

#[test]
fn targets_parse_and_print() {
    for text in ["4.20", "4.22", "4.23", "any"] {
        assert_eq!(text.parse::<Target>().expect(text).to_string(), text);
    }
    let err = "4.21".parse::<Target>().expect_err("unknown line");
    assert!(err.to_string().contains("\"4.21\""), "{err}");
    assert_eq!(Target::default(), Target::Any);
}

#[test]
fn every_read_cites_a_script() {
    for line in Line::ALL {
        let contract = line.contract();
        assert_eq!(contract.line, line);
        for read in contract.reads {
            assert!(
                read.by.contains(".yml")
                    || read.by.contains("script/")
                    || read.by.contains(".java"),
                "{line}: {read:?}"
            );
        }
    }
}
