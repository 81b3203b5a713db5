//! The inputs merged by precedence and resolved into typed options, and each bad input named.

use super::*;
use cks_pinning::arch::Arch;
use cks_pinning::node_contract::Target;

fn full() -> Inputs {
    Inputs {
        output_path: Some("out".into()),
        kubernetes_version: Some("1.33.13".into()),
        cni_version: Some("1.6.2".into()),
        crictl_version: Some("1.33.0".into()),
        network_yaml: Some("net.yaml".into()),
        dashboard_yaml: Some("dash.yaml".into()),
        build_name: Some("cks".into()),
        ..Inputs::default()
    }
}

#[test]
fn flags_beat_environment_beat_config() {
    let config = Inputs {
        ccm_version: Some("v1.1.0".into()),
        autoscaler_version: Some("1.33.1".into()),
        csi_version: Some("v2.0.0".into()),
        ..full()
    };
    let env = Inputs::from_env(|k| match k {
        "CCM_VERSION" => Some("v1.1.1".into()),
        "AUTOSCALER_VERSION" => Some("1.33.2".into()),
        _ => None,
    })
    .expect("valid environment");
    let flags = Inputs {
        ccm_version: Some("v1.2.0".into()),
        ..Inputs::default()
    };
    let options = flags.over(env.over(config)).resolve().expect("complete");
    assert_eq!(options.ccm_version.as_deref(), Some("v1.2.0"));
    assert_eq!(options.autoscaler_version.as_deref(), Some("1.33.2"));
    assert_eq!(options.csi_version.tag(), "v2.0.0");
}

#[test]
fn defaults_and_iso_name_follow_the_script() {
    let options = full().resolve().expect("complete");
    assert_eq!(options.arch, Arch::Amd64);
    assert_eq!(options.csi_version.tag(), "v3.0.0");
    assert_eq!(options.volume_id, "CDROM");
    assert_eq!(options.concurrency, 4);
    assert_eq!(options.iso_path(), PathBuf::from("out/cks-x86_64.iso"));
    let arm = Inputs {
        arch: Some("aarch64".into()),
        ..full()
    };
    assert_eq!(
        arm.resolve().expect("complete").iso_path(),
        PathBuf::from("out/cks-aarch64.iso")
    );
}

#[test]
fn a_missing_input_is_named_with_an_example() {
    let inputs = Inputs {
        cni_version: None,
        ..full()
    };
    let err = inputs.resolve().expect_err("CNI version is required");
    assert!(err.to_string().contains("CNI_VERSION"), "{err}");
}

#[test]
fn bad_versions_are_named() {
    for (inputs, name) in [
        (
            Inputs {
                kubernetes_version: Some("1.33".into()),
                ..full()
            },
            "KUBERNETES_VERSION",
        ),
        (
            Inputs {
                cni_version: Some("latest".into()),
                ..full()
            },
            "CNI_VERSION",
        ),
        (
            Inputs {
                crictl_version: Some("1.33.0/x".into()),
                ..full()
            },
            "CRICTL_VERSION",
        ),
        (
            Inputs {
                etcd_version: Some("3.5".into()),
                ..full()
            },
            "ETCD_VERSION",
        ),
    ] {
        let err = inputs.resolve().expect_err("bad version");
        assert!(err.to_string().contains(name), "{err}");
    }
    let ok = Inputs {
        cni_version: Some("v1.6.2".into()),
        ..full()
    };
    assert!(ok.resolve().is_ok());
}

#[test]
fn inputs_are_parsed_once_into_typed_options() {
    let inputs = Inputs {
        kubernetes_version: Some("v1.33.13".into()),
        cni_version: Some("v1.6.2".into()),
        mirrors: vec!["https://dl.k8s.io=http://127.0.0.1:8080/k8s".into()],
        ..full()
    };
    let options = inputs.resolve().expect("complete");
    assert_eq!(options.kubernetes_version.to_string(), "1.33.13");
    assert_eq!(options.cni_version.bare(), "1.6.2");
    assert_eq!(
        options
            .mirrors
            .rewrite("https://dl.k8s.io/release/v1.33.13"),
        "http://127.0.0.1:8080/k8s/release/v1.33.13"
    );
    let bad = Inputs {
        mirrors: vec!["dl.k8s.io".into()],
        ..full()
    };
    let err = bad.resolve().expect_err("not UPSTREAM=MIRROR");
    assert!(
        err.to_string().contains("--mirror") && err.to_string().contains("dl.k8s.io"),
        "{err}"
    );
}

#[test]
fn an_unknown_arch_is_named() {
    let inputs = Inputs {
        arch: Some("sparc".into()),
        ..full()
    };
    let err = inputs.resolve().expect_err("sparc is unknown");
    assert!(err.to_string().contains("sparc"), "{err}");
}

#[test]
fn config_files_refuse_unknown_keys() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("cks.toml");
    std::fs::write(
        &path,
        "kubernetes-version = \"1.33.13\"\nkubernetes-verison = \"x\"\n",
    )
    .expect("write config");
    let err = Inputs::from_config_file(&path).expect_err("typo refused");
    assert!(err.to_string().contains("kubernetes-verison"), "{err}");
    std::fs::write(
        &path,
        "kubernetes-version = \"1.33.13\"\nmirror = [\"a=b\"]\n",
    )
    .expect("write config");
    let inputs = Inputs::from_config_file(&path).expect("valid config");
    assert_eq!(inputs.mirrors, vec!["a=b".to_string()]);
}

#[test]
fn a_bad_source_date_epoch_is_named() {
    let err = Inputs::from_env(|k| (k == "SOURCE_DATE_EPOCH").then(|| "yesterday".into()))
        .expect_err("not a number");
    assert!(err.to_string().contains("SOURCE_DATE_EPOCH"));
}

#[test]
fn dashboards_the_lines_cannot_take_are_refused_naming_the_line_and_why() {
    let headlamp_only = Inputs {
        dashboard_yaml: None,
        headlamp_version: Some("v0.40.1".into()),
        ..full()
    };
    let options = headlamp_only
        .clone()
        .resolve()
        .expect("Headlamp alone is for 4.23 unless --cloudstack says otherwise");
    assert_eq!(options.cloudstack.to_string(), "4.23");
    let for_any = Inputs {
        cloudstack: Some("any".into()),
        ..headlamp_only.clone()
    };
    let text = for_any
        .resolve()
        .expect_err("any needs dashboard.yaml")
        .to_string();
    assert_eq!(
        text,
        "an ISO with only Headlamp 0.40.1 does not fit CloudStack 4.20, 4.22: no dashboard.yaml \
         (run the same command with -v for the node scripts that need it)"
    );
    let for_4_22 = Inputs {
        cloudstack: Some("4.22".into()),
        ..headlamp_only.clone()
    };
    let text = for_4_22.resolve().expect_err("4.22").to_string();
    assert!(
        text.contains("CloudStack 4.22: no dashboard.yaml") && !text.contains("4.20"),
        "{text}"
    );

    let for_4_23 = Inputs {
        cloudstack: Some("4.23".into()),
        ..headlamp_only
    };
    let options = for_4_23.resolve().expect("4.23 takes Headlamp alone");
    assert_eq!(options.dashboard_yaml, None);
    assert_eq!(
        options.headlamp.map(|h| h.tag()).as_deref(),
        Some("v0.40.1")
    );

    for cloudstack in [None, Some("4.23".to_string())] {
        let none = Inputs {
            dashboard_yaml: None,
            cloudstack,
            ..full()
        };
        let text = none.resolve().expect_err("no dashboard").to_string();
        assert!(
            text.starts_with("an ISO with no dashboard (neither DASHBOARD_YAML nor --headlamp)")
                && text.contains(": no dashboard.yaml (")
                || text.contains(": no headlamp.yaml or dashboard.yaml ("),
            "{text}"
        );
    }
}

#[test]
fn both_dashboards_fit_any_and_bad_values_are_named() {
    let both = Inputs {
        headlamp_version: Some("0.40.1".into()),
        ..full()
    };
    let options = both.clone().resolve().expect("both fit every line");
    assert_eq!(options.cloudstack, Target::Any);
    assert_eq!(options.dashboard_yaml.as_deref(), Some("dash.yaml"));
    for (inputs, named) in [
        (
            Inputs {
                cloudstack: Some("4.21".into()),
                ..both.clone()
            },
            "bad --cloudstack `4.21`: expected 4.20, 4.22, 4.23 or any",
        ),
        (
            Inputs {
                headlamp_version: Some("latest".into()),
                ..both
            },
            "bad --headlamp `latest`",
        ),
    ] {
        let text = inputs.resolve().expect_err(named).to_string();
        assert!(text.starts_with(named), "{text}");
    }
}

#[test]
fn limits_come_from_the_config_table_and_flags_beat_it_per_kind() {
    use cks_pinning::limits::LimitKind;
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("cks.toml");
    std::fs::write(
        &path,
        "[limit]\nmanifest = \"16MiB\"\nlayers = 2000\noci = \"8MiB\"\n",
    )
    .expect("write config");
    let config = Inputs::from_config_file(&path).expect("valid config");
    let flags = Inputs {
        limits: [("oci".to_string(), LimitInput::Text("12MiB".into()))].into(),
        ..Inputs::default()
    };
    let options = flags.over(config.over(full())).resolve().expect("complete");
    assert_eq!(options.limits.get(LimitKind::Manifest), 16 << 20);
    assert_eq!(options.limits.get(LimitKind::Layers), 2000);
    assert_eq!(options.limits.get(LimitKind::Oci), 12 << 20);
    assert_eq!(options.limits.get(LimitKind::Git), 32 << 20, "a default");
}

#[test]
fn a_bad_limit_is_named_with_the_kinds_or_the_size_form() {
    let with = |kind: &str, size: &str| Inputs {
        limits: [(kind.to_string(), LimitInput::Text(size.into()))].into(),
        ..full()
    };
    let err = with("blobs", "1MiB").resolve().expect_err("unknown kind");
    let text = err.to_string();
    assert!(
        text.contains("--limit") && text.contains("blobs") && text.contains("manifest, checksum"),
        "{text}"
    );
    let err = with("manifest", "lots").resolve().expect_err("bad size");
    assert!(err.to_string().contains("16MiB"), "{err}");
}

#[test]
fn the_min_rate_comes_from_the_config_flags_beat_it_and_a_bad_one_is_named() {
    use crate::pace::MinRate;
    assert_eq!(
        full().resolve().expect("complete").min_rate,
        MinRate::default()
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("cks.toml");
    std::fs::write(&path, "min-rate = \"8KiB/30s\"\n").expect("write config");
    let config = Inputs::from_config_file(&path).expect("valid config");
    let options = config.clone().over(full()).resolve().expect("complete");
    assert_eq!(options.min_rate.to_string(), "8KiB/30s");
    let flags = Inputs {
        min_rate: Some("0".into()),
        ..Inputs::default()
    };
    let options = flags.over(config.over(full())).resolve().expect("complete");
    assert!(options.min_rate.is_off());
    let err = Inputs {
        min_rate: Some("fast".into()),
        ..full()
    }
    .resolve()
    .expect_err("not a rule");
    let text = err.to_string();
    for part in ["--min-rate", "fast", "60KiB/60s"] {
        assert!(text.contains(part), "{part}: {text}");
    }
}

#[test]
fn a_password_in_a_recorded_url_is_refused_without_showing_it() {
    for (inputs, named) in [
        (
            Inputs {
                network_yaml: Some("https://ops:s3cret@example.com/net.yaml".into()),
                ..full()
            },
            "NETWORK_YAML",
        ),
        (
            Inputs {
                dashboard_yaml: Some("https://ops:s3cret@example.com/dash.yaml".into()),
                ..full()
            },
            "DASHBOARD_YAML",
        ),
        (
            Inputs {
                autoscaler_repo: Some("https://ops:s3cret@git.example/autoscaler".into()),
                ..full()
            },
            "--autoscaler-repo",
        ),
        (
            Inputs {
                cache_registry: Some("https://ops:s3cret@registry.example/cks".into()),
                ..full()
            },
            "--cache-registry",
        ),
    ] {
        let text = inputs.resolve().expect_err(named).to_string();
        assert!(
            text.contains(named) && text.contains("https://ops@"),
            "{text}"
        );
        assert!(!text.contains("s3cret"), "{text}");
    }
    let user_only = Inputs {
        network_yaml: Some("https://ops@example.com/net.yaml".into()),
        ..full()
    };
    assert!(
        user_only.resolve().is_ok(),
        "a user name alone is no secret"
    );
}

#[test]
fn the_config_file_takes_a_signatures_table_and_refuses_unknown_keys() {
    let inputs: Inputs = toml::from_str(
        "kubernetes-version = \"1.33.13\"\n[signatures]\nmode = \"off\"\n\
         trusted-root = \"/etc/cks/trusted_root.json\"\n\
         [signatures.registries.\"registry.k8s.io\"]\nissuer = \"https://issuer.example\"\n",
    )
    .expect("parses");
    let settings = inputs.signatures.resolve().expect("valid");
    assert_eq!(settings.mode, cks_signature::Mode::Off);
    assert_eq!(
        settings.registries["registry.k8s.io"].identity,
        cks_signature::KUBERNETES_IMAGES_IDENTITY
    );
    assert_eq!(
        settings.registries["registry.k8s.io"].issuer,
        "https://issuer.example"
    );
    let err =
        toml::from_str::<Inputs>("[signatures]\nidentity = \"x\"\n").expect_err("an unknown key");
    assert!(err.to_string().contains("identity"), "{err}");
}
