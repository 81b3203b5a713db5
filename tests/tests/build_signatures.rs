//! Upstream signatures in a whole build: Kubernetes binaries signed beside their files on the
//! demo file server and images signed in the real CNCF distribution registry, all by a test
//! trust root made at run time and passed as `--trusted-root`. `require` verifies and records
//! every one (versions.txt and the SBOM derived from it) and refuses each kind of bad
//! signature naming the artifact and the reason; `warn` builds with one warning per unsigned
//! artifact and one note for the GitHub assets; `off` asks for no signature at all.

use std::path::{Path, PathBuf};

use cks_builder::pipeline::{Inputs, Request, Summary};
use cks_builder::upstream_signatures::{Mode, SignatureInputs};
use cks_e2e::{demo_inputs, run_build, start_upstream, versions_txt_of};
use cks_fixtures::demo::{DemoConfig, DemoUpstream};
use cks_fixtures::registry::{Auth, Registry};
use cks_fixtures::sigstore::{Signer, TestSigstore, push_signature};
use cks_pinning::image::ImageRef;
use cks_pinning::sbom::{Sbom, Tool};
use cks_pinning::versions_txt::VersionsTxt;
use sha2::{Digest, Sha256};

const BINARIES_IDENTITY: &str = "krel-staging@k8s-releng-prod.iam.gserviceaccount.com";
const IMAGES_IDENTITY: &str = "krel-trust@k8s-releng-prod.iam.gserviceaccount.com";
const ISSUER: &str = "https://accounts.google.com";
const BINARIES: [&str; 3] = ["kubeadm", "kubelet", "kubectl"];

/// The demo upstream with its images in the real registry, and the test trust root.
struct World {
    upstream: DemoUpstream,
    registry: Registry,
    sigstore: TestSigstore,
    dir: tempfile::TempDir,
}

impl World {
    /// Every Kubernetes binary signed (`.sig`, `.cert` and a Sigstore bundle), every
    /// registry.k8s.io image signed by the images identity except `image_signers`' overrides
    /// (`None`: left unsigned).
    async fn start(image_signers: &[(&str, Option<Signer>)]) -> World {
        let upstream = start_upstream(DemoConfig::default()).await;
        let overrides: Vec<(String, Option<Signer>)> = image_signers
            .iter()
            .map(|(name, signer)| (name.to_string(), signer.clone()))
            .collect();
        let world = tokio::task::spawn_blocking(move || {
            let registry = Registry::start(Auth::None).expect("the real docker-registry");
            let sigstore = TestSigstore::generate().expect("the test trust root");
            let dir = tempfile::tempdir().expect("temp dir");
            std::fs::write(
                dir.path().join("trusted_root.json"),
                sigstore.trusted_root_json(),
            )
            .expect("writes the trusted root");
            for reference in upstream.images() {
                let image = ImageRef::parse(&reference).expect("a reference");
                let tag = image.tag().expect("demo images are tagged").to_string();
                registry
                    .push(upstream.layout_dir(), &reference, image.repository(), &tag)
                    .expect("skopeo pushes the image");
                if image.registry() != "registry.k8s.io" {
                    continue;
                }
                let signer = match overrides.iter().find(|(name, _)| reference.contains(name)) {
                    Some((_, signer)) => signer.clone(),
                    None => Some(Signer::new(IMAGES_IDENTITY, ISSUER)),
                };
                let Some(signer) = signer else { continue };
                let digest = &upstream.digests()[&reference];
                let signed = sigstore
                    .sign_image(&image.name(), digest, &signer)
                    .expect("signs the image");
                push_signature(&registry.host(), image.repository(), digest, &signed)
                    .expect("pushes the signature");
            }
            World {
                upstream,
                registry,
                sigstore,
                dir,
            }
        })
        .await
        .expect("the setup did not panic");
        for bin in BINARIES {
            world.sign_binary(bin, &Signer::new(BINARIES_IDENTITY, ISSUER), None, true);
        }
        world
    }

    fn binary(&self, bin: &str) -> PathBuf {
        self.upstream
            .root()
            .join("dl.k8s.io/release/v1.33.13/bin/linux/amd64")
            .join(bin)
    }

    /// Writes `<bin>.sig` and `<bin>.cert` (and `.sigstore.json` with `bundle`) signed by
    /// `signer` of `sigstore` (the world's root when `None`) over the binary's bytes.
    fn sign_binary(&self, bin: &str, signer: &Signer, other: Option<&TestSigstore>, bundle: bool) {
        let path = self.binary(bin);
        let bytes = std::fs::read(&path).expect("the demo binary");
        let signed = other
            .unwrap_or(&self.sigstore)
            .sign_blob(&bytes, signer)
            .expect("signs");
        let side = |suffix: &str| PathBuf::from(format!("{}{suffix}", path.display()));
        std::fs::write(side(".sig"), &signed.sig_file).expect("writes .sig");
        std::fs::write(side(".cert"), &signed.cert_file).expect("writes .cert");
        let bundle_path = side(".sigstore.json");
        if bundle {
            let json = signed
                .sigstore_bundle(&Sha256::digest(&bytes))
                .expect("a bundle");
            std::fs::write(&bundle_path, json).expect("writes the bundle");
        } else {
            let _ = std::fs::remove_file(&bundle_path);
        }
    }

    /// Signs `bin` with material over other bytes.
    fn sign_other_bytes(&self, bin: &str) {
        let path = self.binary(bin);
        let signed = self
            .sigstore
            .sign_blob(b"other bytes", &Signer::new(BINARIES_IDENTITY, ISSUER))
            .expect("signs");
        std::fs::write(format!("{}.sig", path.display()), &signed.sig_file).expect("writes");
        std::fs::write(format!("{}.cert", path.display()), &signed.cert_file).expect("writes");
    }

    fn inputs(&self, out: &Path, mode: Mode) -> Inputs {
        let mut inputs = demo_inputs(&self.upstream, out, "x86_64");
        let hosts: std::collections::BTreeSet<String> = self
            .upstream
            .images()
            .iter()
            .map(|r| {
                ImageRef::parse(r)
                    .expect("a reference")
                    .registry()
                    .to_string()
            })
            .collect();
        inputs.registry_mirrors = hosts
            .iter()
            .map(|h| format!("{h}=http://{}", self.registry.host()))
            .collect();
        inputs.insecure_registries = vec![self.registry.host()];
        // Each build asks upstream for the signatures (a cache would keep the verified ones).
        inputs.cache_dir = None;
        inputs.signatures = SignatureInputs {
            mode: Some(mode),
            trusted_root: Some(self.dir.path().join("trusted_root.json")),
            ..SignatureInputs::default()
        };
        inputs
    }

    async fn build(&self, mode: Mode) -> anyhow::Result<(Summary, VersionsTxt)> {
        self.build_with(mode, None).await
    }

    async fn build_with(
        &self,
        mode: Mode,
        cache: Option<&Path>,
    ) -> anyhow::Result<(Summary, VersionsTxt)> {
        let out = tempfile::tempdir().expect("out dir");
        let mut inputs = self.inputs(out.path(), mode);
        inputs.cache_dir = cache.map(Path::to_path_buf);
        let summary = run_build(&inputs, Request::default()).await?;
        let versions =
            VersionsTxt::parse(&versions_txt_of(&summary.iso)).expect("versions.txt parses");
        Ok((summary, versions))
    }

    fn kubernetes_images(&self) -> Vec<String> {
        self.upstream
            .images()
            .into_iter()
            .filter(|r| r.starts_with("registry.k8s.io/"))
            .collect()
    }
}

fn signature_warnings(summary: &Summary) -> Vec<&String> {
    summary
        .warnings
        .iter()
        .filter(|w| w.contains("sign"))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn require_records_every_signature_warn_names_the_unsigned_and_off_asks_for_none() {
    let world = World::start(&[]).await;

    // require: everything verifies and is recorded with its identity and issuer.
    let (summary, versions) = world.build(Mode::Require).await.expect("a signed build");
    assert!(
        signature_warnings(&summary).is_empty(),
        "{:?}",
        summary.warnings
    );
    let line = |subject: &str| {
        versions
            .signatures
            .iter()
            .find(|s| s.subject == subject)
            .unwrap_or_else(|| panic!("no signature line for {subject}: {:?}", versions.signatures))
    };
    for bin in BINARIES {
        let entry = line(&format!("k8s/{bin}"));
        assert_eq!(entry.identity, BINARIES_IDENTITY);
        assert_eq!(entry.issuer, ISSUER);
        // Each has a Sigstore bundle, whose log entry proves the signing time.
        assert!(entry.log, "{bin}");
    }
    let images = world.kubernetes_images();
    assert!(images.len() >= 5, "{images:?}");
    for image in versions
        .images
        .iter()
        .filter(|i| i.registry() == "registry.k8s.io")
    {
        let entry = line(&image.to_string());
        assert_eq!(entry.identity, IMAGES_IDENTITY);
        assert_eq!(entry.issuer, ISSUER);
        assert!(entry.log, "image signatures carry a Rekor bundle");
    }
    assert_eq!(versions.signatures.len(), BINARIES.len() + images.len());
    // The GitHub release assets are named once, as a note.
    let github: Vec<&String> = summary
        .notes
        .iter()
        .filter(|n| n.contains("not cosign-signed"))
        .collect();
    assert_eq!(github.len(), 1, "{:?}", summary.notes);
    for asset in ["cni/", "cri-tools/", "etcd/"] {
        assert!(github[0].contains(asset), "{}", github[0]);
    }
    assert!(!github[0].contains(".yaml"), "{}", github[0]);
    // The SBOM is derived from the same record: each signature is its package's annotation.
    let tool = Tool {
        name: "cks-iso".into(),
        version: "0".into(),
        commit: None,
    };
    let sbom = Sbom::new(&versions, "cks-e2e-x86_64.iso", tool)
        .render()
        .expect("the SBOM renders");
    assert!(
        sbom.contains(&format!(
            "cosign keyless signature verified: identity {BINARIES_IDENTITY}, issuer {ISSUER}, transparency-log entry checked"
        )),
        "{sbom}"
    );
    assert!(sbom.contains(&format!("identity {IMAGES_IDENTITY}, issuer {ISSUER}")));

    // warn: an unsigned binary builds, with one warning naming it.
    for suffix in [".sig", ".sigstore.json"] {
        std::fs::remove_file(format!("{}{suffix}", world.binary("kubelet").display())).expect("rm");
    }
    let (summary, versions) = world.build(Mode::Warn).await.expect("warn builds");
    let warnings = signature_warnings(&summary);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].starts_with("k8s/kubelet: "), "{}", warnings[0]);
    assert!(warnings[0].contains("it is not signed"), "{}", warnings[0]);
    assert!(
        warnings[0].contains("kubelet.sig is not there"),
        "{}",
        warnings[0]
    );
    assert_eq!(
        summary
            .notes
            .iter()
            .filter(|n| n.contains("not cosign-signed"))
            .count(),
        1
    );
    assert!(
        versions
            .signatures
            .iter()
            .all(|s| s.subject != "k8s/kubelet")
    );

    // require: the same missing .sig fails the build, naming the file.
    let err = world.build(Mode::Require).await.expect_err("refused");
    let text = format!("{err:#}");
    assert!(
        text.contains("k8s/kubelet: signature required but it is not signed"),
        "{text}"
    );
    assert!(text.contains("kubelet.sig is not there"), "{text}");

    // off: no signature file is asked for, nothing is recorded.
    world.upstream.file_server().reset_counts();
    let (summary, versions) = world.build(Mode::Off).await.expect("off builds");
    let asked: Vec<String> = world
        .upstream
        .file_server()
        .requested_paths()
        .into_iter()
        .map(|(path, _)| path)
        .filter(|p| p.ends_with(".sig") || p.ends_with(".cert") || p.ends_with(".sigstore.json"))
        .collect();
    assert!(asked.is_empty(), "{asked:?}");
    assert!(versions.signatures.is_empty());
    assert!(summary.notes.is_empty(), "{:?}", summary.notes);
    assert!(signature_warnings(&summary).is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn each_bad_file_signature_is_refused_naming_the_file_and_the_reason() {
    let world = World::start(&[]).await;
    let other_root = TestSigstore::generate().expect("another root");
    let expired = Signer {
        signed_at: Signer::new(BINARIES_IDENTITY, ISSUER).not_after + 60,
        ..Signer::new(BINARIES_IDENTITY, ISSUER)
    };
    type Break<'a> = Box<dyn Fn(&World) + 'a>;
    let cases: Vec<(&str, Break, &str)> = vec![
        (
            "another identity",
            Box::new(|w: &World| {
                w.sign_binary(
                    "kubelet",
                    &Signer::new("someone@example.org", ISSUER),
                    None,
                    false,
                )
            }),
            "the certificate is for someone@example.org, not for the expected identity krel-staging@k8s-releng-prod.iam.gserviceaccount.com",
        ),
        (
            "another issuer",
            Box::new(|w: &World| {
                w.sign_binary(
                    "kubelet",
                    &Signer::new(BINARIES_IDENTITY, "https://issuer.example"),
                    None,
                    false,
                )
            }),
            "issued for OIDC issuer https://issuer.example, not for the expected https://accounts.google.com",
        ),
        (
            "other bytes",
            Box::new(|w: &World| w.sign_other_bytes("kubelet")),
            "the signature is not over these bytes",
        ),
        (
            "another root",
            Box::new(|w: &World| {
                w.sign_binary(
                    "kubelet",
                    &Signer::new(BINARIES_IDENTITY, ISSUER),
                    Some(&other_root),
                    false,
                )
            }),
            "does not chain to a Fulcio root of the trusted root",
        ),
        (
            "expired at signing time",
            Box::new(|w: &World| w.sign_binary("kubelet", &expired, None, true)),
            "the certificate was not valid at the signing time",
        ),
    ];
    for (name, break_it, reason) in cases {
        break_it(&world);
        let err = world.build(Mode::Require).await.expect_err(name);
        let text = format!("{err:#}");
        assert!(
            text.contains("1 artifact(s) failed signature verification"),
            "{name}: {text}"
        );
        assert!(
            text.contains("k8s/kubelet: signature required but its signature is refused"),
            "{name}: {text}"
        );
        assert!(text.contains(reason), "{name}: {text}");
        // Under warn the same signature is one warning and the build goes on.
        let (summary, _) = world.build(Mode::Warn).await.expect(name);
        let warnings = signature_warnings(&summary);
        assert_eq!(warnings.len(), 1, "{name}: {warnings:?}");
        assert!(warnings[0].contains(reason), "{name}: {}", warnings[0]);
    }

    // A refused signature kept in the content cache is asked of upstream again, which has
    // replaced it by a good one; a verified one is then taken from the cache.
    let cache = world.dir.path().join("cache");
    world.sign_binary(
        "kubelet",
        &Signer::new("someone@example.org", ISSUER),
        None,
        false,
    );
    let (summary, _) = world
        .build_with(Mode::Warn, Some(&cache))
        .await
        .expect("warn");
    assert_eq!(
        signature_warnings(&summary).len(),
        1,
        "{:?}",
        summary.warnings
    );
    world.sign_binary(
        "kubelet",
        &Signer::new(BINARIES_IDENTITY, ISSUER),
        None,
        true,
    );
    let (_, versions) = world
        .build_with(Mode::Require, Some(&cache))
        .await
        .expect("the fixed signature is fetched again");
    assert!(
        versions
            .signatures
            .iter()
            .any(|s| s.subject == "k8s/kubelet")
    );
    world.upstream.file_server().reset_counts();
    world
        .build_with(Mode::Require, Some(&cache))
        .await
        .expect("from the cache");
    let asked = world.upstream.file_server().requested_paths();
    assert!(
        asked
            .iter()
            .all(|(p, _)| !p.ends_with(".sig") && !p.ends_with(".cert")),
        "verified material comes from the cache: {asked:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unsigned_image_and_one_signed_by_another_identity_are_named() {
    let world = World::start(&[
        ("/pause:", None),
        (
            "/coredns/coredns:",
            Some(Signer::new("someone@example.org", ISSUER)),
        ),
    ])
    .await;
    let (summary, versions) = world.build(Mode::Warn).await.expect("warn builds");
    let warnings = signature_warnings(&summary);
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    let pause = warnings
        .iter()
        .find(|w| w.starts_with("registry.k8s.io/pause:"))
        .unwrap_or_else(|| panic!("{warnings:?}"));
    assert!(pause.contains("it is not signed"), "{pause}");
    assert!(pause.contains(".sig tag"), "{pause}");
    let coredns = warnings
        .iter()
        .find(|w| w.starts_with("registry.k8s.io/coredns/coredns:"))
        .unwrap_or_else(|| panic!("{warnings:?}"));
    assert!(
        coredns.contains("not for the expected identity krel-trust@"),
        "{coredns}"
    );
    assert_eq!(
        versions.signatures.len(),
        BINARIES.len() + world.kubernetes_images().len() - 2
    );

    let err = world.build(Mode::Require).await.expect_err("refused");
    let text = format!("{err:#}");
    assert!(text.contains("2 artifact(s) failed"), "{text}");
    assert!(text.contains("registry.k8s.io/pause:"), "{text}");
    assert!(text.contains("registry.k8s.io/coredns/coredns:"), "{text}");
}
