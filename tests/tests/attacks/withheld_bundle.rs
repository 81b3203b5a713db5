//! A mirror that withholds the Sigstore bundle (`.sigstore.json` answers 404) while serving a
//! good `.sig` and `.cert`: nothing then proves when the binary was signed, which cosign refuses.
//! `require` refuses it naming `allow-missing-log`, `warn` says so once, and a policy with
//! `allow-missing-log = true` accepts it.

use cks_builder::pipeline::Request;
use cks_builder::upstream_signatures::{Mode, PolicyInput};
use cks_e2e::{demo_inputs, run_build, start_upstream, versions_txt_of};
use cks_fixtures::demo::DemoConfig;
use cks_pinning::versions_txt::VersionsTxt;

#[tokio::test(flavor = "multi_thread")]
async fn a_withheld_bundle_is_refused_under_require_unless_the_policy_allows_it() {
    let upstream = start_upstream(DemoConfig::default()).await;
    let kubeadm = upstream.root().join(format!(
        "dl.k8s.io/release/v{}/bin/linux/amd64/kubeadm.sigstore.json",
        upstream.config().kubernetes
    ));
    std::fs::remove_file(&kubeadm).expect("the demo publishes a bundle beside kubeadm");
    let out = tempfile::tempdir().expect("out dir");
    let inputs = |mode: Mode, allow: bool| {
        let mut inputs = demo_inputs(&upstream, out.path(), "x86_64");
        inputs.cache_dir = None;
        inputs.signatures.mode = Some(mode);
        if allow {
            inputs.signatures.kubernetes = Some(PolicyInput {
                allow_missing_log: Some(true),
                ..PolicyInput::default()
            });
        }
        inputs
    };

    let err = run_build(&inputs(Mode::Require, false), Request::default())
        .await
        .expect_err("require refuses a signature without a log entry");
    let text = format!("{err:#}");
    assert!(text.contains("k8s/kubeadm"), "{text}");
    assert!(text.contains("no transparency-log entry"), "{text}");
    assert!(text.contains("allow-missing-log = true"), "{text}");
    assert!(!out.path().join("cks-e2e-x86_64.iso").exists());

    let summary = run_build(&inputs(Mode::Warn, false), Request::default())
        .await
        .expect("warn builds");
    let warnings: Vec<&String> = summary
        .warnings
        .iter()
        .filter(|w| w.contains("transparency-log"))
        .collect();
    assert_eq!(warnings.len(), 1, "{:?}", summary.warnings);
    assert!(warnings[0].starts_with("k8s/kubeadm: "), "{}", warnings[0]);

    let summary = run_build(&inputs(Mode::Require, true), Request::default())
        .await
        .expect("the policy allows a missing log entry");
    let versions = VersionsTxt::parse(&versions_txt_of(&summary.iso)).expect("parses");
    let kubeadm = versions
        .signatures
        .iter()
        .find(|s| s.subject == "k8s/kubeadm")
        .expect("kubeadm's signature is recorded");
    assert!(!kubeadm.log, "recorded as verified without a log entry");
}
