//! Each attack on a build, played with real components: a pusher to the shared cache registry,
//! a hostile mirror, a damaged cache. Each ends in the correct ISO or an error naming the
//! input, never in wrong bytes or a crash.

mod cache_registry_forgeries;
mod caches_locked_and_local;
mod hostile_mirror_kubeadm;
mod poison;
