//! Attacks played against a whole build with real components: a pusher to the shared cache
//! registry, a hostile mirror, a damaged cache, oversized or malformed input. Each ends in the
//! correct ISO or an error naming the input, never wrong bytes or a crash, under
//! `--signatures warn` and `require`.

mod cache_registry_forgeries;
mod caches_locked_and_local;
mod hostile_mirror_kubeadm;
mod mirror_password;
mod not_a_manifest;
mod poison;
mod registry_credentials;
mod sealed_local_iso;
mod withheld_bundle;
