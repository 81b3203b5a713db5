//! A blob whose transfer from the real registry breaks at 90 % resumes with `Range` from the
//! bytes already hashed: the registry sends about 1.1× the blob, not 1.9×.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use cks_builder::progress::NoProgress;
use cks_builder::registry::{Arch, ImageRequest, PullOptions, pull_images};
use cks_builder::retry::RetryPolicy;
use cks_fixtures::oci::LayoutDir;
use cks_fixtures::registry::{Auth, Registry};

const ORIGIN: &str = "registry.example.com";
const LAYER: u64 = 2_000_000;

/// A loopback TCP proxy to the registry that, the first time a request names `needle`, closes
/// the connection after `cut` bytes of the answer; it counts the bytes it forwards after
/// requests naming `needle`.
struct CutProxy {
    port: u16,
    forwarded: Arc<AtomicU64>,
    ranged: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
}

impl CutProxy {
    fn start(target: std::net::SocketAddr, needle: String, cut: u64) -> CutProxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind proxy");
        let port = listener.local_addr().expect("addr").port();
        let forwarded = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let cut_done = Arc::new(AtomicBool::new(false));
        let ranged = Arc::new(AtomicBool::new(false));
        let (count, stopping, saw_range) = (forwarded.clone(), stop.clone(), ranged.clone());
        std::thread::spawn(move || {
            for client in listener.incoming() {
                if stopping.load(Ordering::Relaxed) {
                    break;
                }
                let Ok(client) = client else { break };
                let Ok(upstream) = TcpStream::connect(target) else {
                    continue;
                };
                let asked = Arc::new(AtomicBool::new(false));
                let (mut c_read, mut u_write) = (
                    client.try_clone().expect("clone"),
                    upstream.try_clone().expect("clone"),
                );
                let (flag, needle, saw_range) = (asked.clone(), needle.clone(), saw_range.clone());
                std::thread::spawn(move || {
                    let mut buf = [0u8; 16 * 1024];
                    while let Ok(n) = c_read.read(&mut buf) {
                        if n == 0 {
                            break;
                        }
                        let text = String::from_utf8_lossy(&buf[..n]).to_ascii_lowercase();
                        if text.contains(&needle) {
                            flag.store(true, Ordering::SeqCst);
                            if text.contains("\r\nrange: bytes=") {
                                saw_range.store(true, Ordering::SeqCst);
                            }
                        }
                        if u_write.write_all(&buf[..n]).is_err() {
                            break;
                        }
                    }
                    let _ = u_write.shutdown(Shutdown::Write);
                });
                let (count, cut_done) = (count.clone(), cut_done.clone());
                let (mut u_read, mut c_write) = (upstream, client);
                std::thread::spawn(move || {
                    let mut buf = [0u8; 16 * 1024];
                    let mut sent_for_needle = 0u64;
                    let mut cutting = false;
                    while let Ok(n) = u_read.read(&mut buf) {
                        if n == 0 {
                            break;
                        }
                        let mut n = n;
                        if asked.load(Ordering::SeqCst) {
                            if !cutting && !cut_done.swap(true, Ordering::SeqCst) {
                                cutting = true;
                            }
                            if cutting && sent_for_needle + n as u64 >= cut {
                                n = (cut - sent_for_needle) as usize;
                                let _ = c_write.write_all(&buf[..n]);
                                count.fetch_add(n as u64, Ordering::SeqCst);
                                break;
                            }
                            sent_for_needle += n as u64;
                            count.fetch_add(n as u64, Ordering::SeqCst);
                        }
                        if c_write.write_all(&buf[..n]).is_err() {
                            break;
                        }
                    }
                    let _ = c_write.shutdown(Shutdown::Both);
                    let _ = u_read.shutdown(Shutdown::Both);
                });
            }
        });
        CutProxy {
            port,
            forwarded,
            ranged,
            stop,
        }
    }

    fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }
}

impl Drop for CutProxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blob_broken_at_90_percent_resumes_from_the_registry_with_range() {
    let work = tempfile::tempdir().expect("temp dir");
    let mut layout = LayoutDir::create(&work.path().join("layout")).expect("layout");
    let layer = layout.add_random_layer(LAYER, 15).expect("layer");
    let image = layout
        .add_image("linux/amd64", std::slice::from_ref(&layer))
        .expect("image");
    layout.tag("big", &image.manifest);
    layout.finish().expect("layout");
    let registry = Registry::start(Auth::None).expect("docker-registry starts");
    registry
        .push(layout.path(), "big", "test/big", "1.0")
        .expect("skopeo push");

    let size = layer.blob.size;
    let proxy = CutProxy::start(
        registry.addr(),
        format!("/blobs/{}", layer.blob.digest).to_ascii_lowercase(),
        size * 9 / 10,
    );
    let mut options = PullOptions::new(Arch::Amd64);
    options.mirrors = vec![format!("{ORIGIN}=http://{}", proxy.host())];
    options.insecure = vec![proxy.host()];
    options.retry = RetryPolicy::immediate(2);
    let out = work.path().join("out");
    let request = ImageRequest {
        reference: cks_pinning::image::ImageRef::parse(&format!("{ORIGIN}/test/big:1.0"))
            .expect("reference"),
        tarball_name: "big.tar".to_string(),
    };
    let report = pull_images(&[request], &out, &options, &NoProgress)
        .await
        .expect("pulled after the broken transfer");
    assert_eq!(report.images[0].digest, image.manifest.digest);
    let forwarded = proxy.forwarded.load(Ordering::SeqCst);
    let ratio = forwarded as f64 / size as f64;
    assert!(
        (1.0..=1.1).contains(&ratio),
        "the registry sent {ratio:.3}x the blob ({forwarded} of {size} bytes, headers included)"
    );
    assert!(
        proxy.ranged.load(Ordering::SeqCst),
        "the retry asked for the rest with Range"
    );
}
