//! A hostile `--mirror` serving a kubeadm that writes a marker when it runs: with the
//! publisher's checksum left as it is, and with a checksum forged to match. Under `warn` and
//! `require`, the build fails naming kubeadm before it runs anything.

use cks_builder::pipeline::Request;
use cks_builder::upstream_signatures::Mode;
use cks_e2e::{demo_inputs, run_build, start_upstream};
use cks_fixtures::demo::DemoConfig;

use super::poison::SwappedKubeadm;

#[tokio::test(flavor = "multi_thread")]
async fn a_substituted_kubeadm_from_a_mirror_never_runs_under_warn_or_require() {
    let upstream = start_upstream(DemoConfig::default()).await;
    let scratch = tempfile::tempdir().expect("scratch");
    let marker = scratch.path().join("kubeadm-ran");
    for mode in [Mode::Warn, Mode::Require] {
        for forge_checksum in [false, true] {
            let _swapped = SwappedKubeadm::install(&upstream, &marker, forge_checksum);
            let out = tempfile::tempdir().expect("out");
            let mut inputs = demo_inputs(&upstream, out.path(), "x86_64");
            inputs.signatures.mode = Some(mode);
            let case = format!("{mode:?}, checksum forged: {forge_checksum}");
            let error = run_build(&inputs, Request::default())
                .await
                .expect_err(&case);
            let text = format!("{error:#}");
            assert!(!marker.exists(), "{case}: kubeadm ran\n{text}");
            assert!(
                text.contains("kubeadm"),
                "{case}: the error names kubeadm: {text}"
            );
            let expected = match forge_checksum {
                false => "checksum",
                true => "signature is refused",
            };
            assert!(text.contains(expected), "{case}: {text}");
            assert!(
                cks_e2e::entries(out.path()).is_empty(),
                "{case}: nothing was written"
            );
        }
    }
    // The mirror healed, the same build succeeds.
    let out = tempfile::tempdir().expect("out");
    let inputs = demo_inputs(&upstream, out.path(), "x86_64");
    run_build(&inputs, Request::default())
        .await
        .expect("the build with the true kubeadm");
    assert!(!marker.exists());
}
