//! Redeploys the cluster autoscaler from the new ISO after a CKS cluster upgrade.
//!
//! One command builder serves both callers (enabling autoscaling and the post-upgrade redeploy);
//! the remote side is reached through a small runner trait whose real implementation is SSH.
