//! The client follows no redirect: a signed request answered with a redirect to another host is
//! an error naming the location, and the other host never sees the request.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use cks_cloudstack::{CloudStackClient, CloudStackConfig, CloudStackError, Secret};

/// A loopback server answering every request with `answer` (status line and headers), counting
/// the requests and keeping the last request's body.
struct Raw {
    port: u16,
    hits: Arc<AtomicUsize>,
    body: Arc<Mutex<String>>,
}

impl Raw {
    fn start(ip: &str, answer: impl Fn() -> String + Send + 'static) -> Raw {
        let listener = TcpListener::bind((ip, 0)).expect("binds");
        let port = listener.local_addr().expect("address").port();
        let hits = Arc::new(AtomicUsize::new(0));
        let body = Arc::new(Mutex::new(String::new()));
        let (h, b) = (hits.clone(), body.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                h.fetch_add(1, Ordering::SeqCst);
                let text = read_request(&stream);
                *b.lock().expect("lock") = text;
                let mut stream = stream;
                let _ = stream.write_all(answer().as_bytes());
            }
        });
        Raw { port, hits, body }
    }
}

fn read_request(stream: &TcpStream) -> String {
    let mut reader = BufReader::new(stream);
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0u8; length.min(1 << 20)];
    let _ = std::io::Read::read_exact(&mut reader, &mut body);
    String::from_utf8_lossy(&body).into_owned()
}

#[test]
fn a_redirect_to_another_host_is_refused_naming_the_location_and_never_followed() {
    // The "other host": 127.0.0.2 (any loopback address); it would replay what it receives.
    let elsewhere = Raw::start("127.0.0.2", || {
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}".to_string()
    });
    let target = format!("http://127.0.0.2:{}/client/api", elsewhere.port);
    let location = target.clone();
    let redirecting = Raw::start("127.0.0.1", move || {
        format!(
            "HTTP/1.1 307 Temporary Redirect\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )
    });
    let config = CloudStackConfig::new(
        format!("http://127.0.0.1:{}/client/api", redirecting.port),
        Secret::new("redirect-key"),
        Secret::new("redirect-secret"),
    );
    let client = CloudStackClient::new(config).expect("client");
    let e = client
        .call("getKubernetesClusterConfig", &[("id", "k1".to_string())])
        .expect_err("a redirect is an error");
    assert!(
        matches!(&e, CloudStackError::Redirect { status: 307, location, .. } if *location == target),
        "{e:?}"
    );
    let line = e.to_string();
    assert!(
        line.contains(&target)
            && line.contains("not followed")
            && !line.contains("redirect-secret"),
        "{line}"
    );
    assert_eq!(redirecting.hits.load(Ordering::SeqCst), 1);
    assert!(
        redirecting
            .body
            .lock()
            .expect("lock")
            .contains("signature="),
        "the first host got the signed request"
    );
    assert_eq!(
        elsewhere.hits.load(Ordering::SeqCst),
        0,
        "the signed request never reached the redirect's host"
    );
}
