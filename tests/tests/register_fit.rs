//! `verify --cloudstack` and `register` on a Headlamp-only ISO: it fits CloudStack 4.23, not
//! 4.22 (whose nodes apply `dashboard.yaml` under `bash -e`). `register` reads the server's
//! version from `listCapabilities` (the CloudStack fake, whose answer the real `cs` reads in the
//! cloudstack crate's tests) and refuses the misfit, naming what is missing, unless `--force`.

use std::process::Command;

use cks_fixtures::demo::DemoConfig;
use cks_fixtures::http::FileServer;

use crate::build_dashboards::{Dashboards, build};
use crate::register_iso::{cks_iso, cloud, register, stdout, the_error};

fn added(cloud: &crate::register_iso::Cloud) -> bool {
    cloud
        .world
        .calls()
        .iter()
        .any(|c| c.starts_with("addkubernetessupportedversion"))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_headlamp_only_iso_fits_4_23_and_is_refused_for_4_22() {
    let upstream = cks_e2e::start_upstream(DemoConfig::default()).await;
    let out = tempfile::tempdir().expect("out dir");
    let summary = build(&upstream, out.path(), Dashboards::Headlamp).await;
    let iso = summary.iso.clone();

    // verify: which lines, and --cloudstack.
    let verify = |line: &str| {
        Command::new(cks_iso())
            .args(["verify", "--cloudstack", line])
            .arg(&iso)
            .output()
            .expect("cks-iso verify runs")
    };
    let for_4_23 = verify("4.23");
    assert!(
        for_4_23.status.success(),
        "{}",
        String::from_utf8_lossy(&for_4_23.stderr)
    );
    let printed = stdout(&for_4_23);
    assert!(printed.lines().any(|l| l == "fits: 4.23"), "{printed}");
    assert!(
        printed
            .lines()
            .any(|l| l.starts_with("unverified on 4.23: no dashboard.yaml")),
        "{printed}"
    );
    assert!(printed.contains("not 4.22: no dashboard.yaml"), "{printed}");
    let error = the_error(&verify("4.22"));
    assert!(
        error.contains("does not fit --cloudstack 4.22: CloudStack 4.22: no dashboard.yaml"),
        "{error}"
    );

    // register against a 4.22 server: refused before anything is added.
    let name = iso
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    let files = FileServer::start(out.path()).expect("file server");
    let url = files.url(&format!("/{name}"));
    let old = cloud();
    old.world.set_cloudstack_version("4.22.1.0");
    let error = the_error(&register(&old, &iso, &url, &[]));
    assert!(
        error.contains("does not fit CloudStack 4.22.1.0 (the 4.22 line): no dashboard.yaml")
            && error.contains("--force"),
        "{error}"
    );
    assert!(
        old.world
            .calls()
            .iter()
            .any(|c| c.starts_with("listcapabilities"))
    );
    assert!(!added(&old), "nothing was added");
    assert!(old.world.kubernetes_versions().is_empty());

    // With --force it is registered, and said so.
    let forced = register(&old, &iso, &url, &["--force"]);
    assert!(
        forced.status.success(),
        "{}",
        String::from_utf8_lossy(&forced.stderr)
    );
    assert!(
        String::from_utf8_lossy(&forced.stderr).contains("registered anyway (--force)"),
        "{}",
        String::from_utf8_lossy(&forced.stderr)
    );
    assert_eq!(old.world.kubernetes_versions().len(), 1);

    // A 4.23 server takes it as it is.
    let new = cloud();
    new.world.set_cloudstack_version("4.23.0.0");
    let out = register(&new, &iso, &url, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("fits the 4.23 node contract"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(new.world.kubernetes_versions().len(), 1);
}
