//! Where a redirect may lead: a URL of a public address may not be redirected to an internal
//! one (loopback, link-local, private, unique-local), so a server or mirror cannot make the
//! build fetch from the build host's own network (a metadata endpoint, an internal service) and
//! put the answer in the ISO. A URL asked for on an internal address (a mirror on the LAN, a
//! server on loopback) may be redirected anywhere.
//!
//! Each side is judged by its URL's host: an address as written, `localhost`, or the addresses
//! the system resolver gives for the name (internal when any is). The decision is
//! [`may_follow`]; [`policy`] applies it to every redirect of the one HTTP client.
//!
//! ```
//! use cks_builder::fetch::redirect::{AddressClass, class_of_ip, may_follow};
//! let metadata = class_of_ip("169.254.169.254".parse().expect("an address"));
//! assert_eq!(metadata, AddressClass::Internal);
//! assert!(!may_follow(AddressClass::Public, metadata));
//! assert!(may_follow(AddressClass::Internal, metadata));
//! ```

use crate::http::RedirectRefused;
use std::net::{IpAddr, ToSocketAddrs};

/// Whether an address belongs to the build host's own networks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressClass {
    /// Reachable from anywhere.
    Public,
    /// Loopback, link-local, private (RFC 1918, shared 100.64/10, IPv6 unique-local) or
    /// unspecified.
    Internal,
}

/// The most redirects one request follows (reqwest's default).
const MAX_REDIRECTS: usize = 10;

/// The class of `ip`.
pub fn class_of_ip(ip: IpAddr) -> AddressClass {
    let internal = match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || (a == 100 && (64..128).contains(&b))
        }
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => return class_of_ip(IpAddr::V4(v4)),
            None => {
                let first = v6.segments()[0];
                v6.is_loopback()
                    || v6.is_unspecified()
                    || (first & 0xfe00) == 0xfc00
                    || (first & 0xffc0) == 0xfe80
            }
        },
    };
    if internal {
        AddressClass::Internal
    } else {
        AddressClass::Public
    }
}

/// Whether a redirect from a URL of class `asked` to one of class `target` is followed: always,
/// unless it leads from a public address to an internal one.
pub fn may_follow(asked: AddressClass, target: AddressClass) -> bool {
    !(asked == AddressClass::Public && target == AddressClass::Internal)
}

/// The class of the host of `url`: an address as written, `localhost`, else what the system
/// resolver gives for the name (internal when any address is; public when it resolves to
/// none, as then nothing on this host is reached through it).
fn class_of_url(url: &reqwest::Url) -> AddressClass {
    let Some(host) = url.host_str() else {
        return AddressClass::Public;
    };
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = bare.parse::<IpAddr>() {
        return class_of_ip(ip);
    }
    let name = bare.trim_end_matches('.').to_ascii_lowercase();
    if name == "localhost" || name.ends_with(".localhost") {
        return AddressClass::Internal;
    }
    let port = url.port_or_known_default().unwrap_or(443);
    let internal = (bare, port)
        .to_socket_addrs()
        .into_iter()
        .flatten()
        .any(|addr| class_of_ip(addr.ip()) == AddressClass::Internal);
    if internal {
        AddressClass::Internal
    } else {
        AddressClass::Public
    }
}

/// The redirect policy of the builder's HTTP client: at most ten redirects, none from a public
/// address to an internal one ([`may_follow`]).
pub fn policy() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        if attempt.previous().len() > MAX_REDIRECTS {
            return attempt.error(format!("more than {MAX_REDIRECTS} redirects"));
        }
        let target = class_of_url(attempt.url());
        if target == AddressClass::Public {
            return attempt.follow();
        }
        let asked = attempt
            .previous()
            .first()
            .map_or(AddressClass::Internal, class_of_url);
        if may_follow(asked, target) {
            attempt.follow()
        } else {
            let target = attempt.url().as_str().to_string();
            attempt.error(RedirectRefused { target })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(text: &str) -> AddressClass {
        class_of_ip(text.parse().expect("an address"))
    }

    #[test]
    fn every_internal_range_is_internal_and_the_rest_public() {
        for internal in [
            "127.0.0.1",
            "127.9.9.9",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fd00::1",
            "fe80::1",
            "::ffff:10.0.0.1",
        ] {
            assert_eq!(class(internal), AddressClass::Internal, "{internal}");
        }
        for public in ["8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111"] {
            assert_eq!(class(public), AddressClass::Public, "{public}");
        }
    }

    #[test]
    fn only_public_to_internal_is_refused() {
        use AddressClass::{Internal, Public};
        assert!(may_follow(Public, Public));
        assert!(may_follow(Internal, Internal));
        assert!(may_follow(Internal, Public));
        assert!(!may_follow(Public, Internal));
    }

    #[test]
    fn a_url_is_judged_by_its_host() {
        let url = |text: &str| reqwest::Url::parse(text).expect("a URL");
        assert_eq!(
            class_of_url(&url("http://127.0.0.1:8080/a")),
            AddressClass::Internal
        );
        assert_eq!(class_of_url(&url("http://[::1]/a")), AddressClass::Internal);
        assert_eq!(
            class_of_url(&url("http://LOCALHOST./a")),
            AddressClass::Internal
        );
        assert_eq!(
            class_of_url(&url("https://203.0.113.7/a")),
            AddressClass::Public
        );
    }
}
