//! The CloudStack client against the CloudStack API fake.

mod kubernetes_versions;
