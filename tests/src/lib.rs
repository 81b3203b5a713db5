//! End-to-end tests of cks-iso against real third-party components (the CNCF distribution
//! registry, containerd, xorriso, git, sshd, etcd). The tests live in `tests/`; this library holds
//! what they share.
