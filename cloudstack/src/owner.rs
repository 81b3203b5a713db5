//! Whose resources a list call asks for. CloudStack's `listall=true` without `projectid` skips
//! the resources a project owns unless one `id` is named
//! (`AccountManagerImpl.buildACLSearchParameters`): a project cluster's VMs, volumes, networks
//! and rules are listed with the cluster's `projectid`, and a list across every owner asks
//! twice, once as the accounts see it and once with `projectid=-1` (the projects' resources).

use std::collections::BTreeSet;

use serde::de::DeserializeOwned;

use crate::{client::CloudStackClient, error::CloudStackError};

/// `projectid=-1`: the resources of every project the key may see.
pub const EVERY_PROJECT: &str = "-1";

/// The owner parameters of a list call for a cluster's resources: `listall=true`, and the
/// cluster's `projectid` when a project owns it.
pub fn owned_by(project_id: Option<&str>) -> Vec<(&'static str, String)> {
    let mut params = vec![("listall", "true".to_string())];
    if let Some(project) = project_id.filter(|p| !p.is_empty()) {
        params.push(("projectid", project.to_string()));
    }
    params
}

impl CloudStackClient {
    /// Every item of a list command whatever owns it: the accounts' (`listall=true`) and the
    /// projects' (`listall=true&projectid=-1`), each item once (by `id_of`).
    pub fn list_every_owner<T: DeserializeOwned>(
        &self,
        command: &str,
        key: &str,
        params: &[(&str, String)],
        id_of: fn(&T) -> &str,
    ) -> Result<Vec<T>, CloudStackError> {
        let mut accounts: Vec<(&str, String)> = params.to_vec();
        accounts.extend(owned_by(None));
        let mut projects = accounts.clone();
        projects.push(("projectid", EVERY_PROJECT.to_string()));
        let mut items: Vec<T> = self.list(command, key, &accounts)?;
        let mut seen: BTreeSet<String> = items.iter().map(|i| id_of(i).to_string()).collect();
        for item in self.list::<T>(command, key, &projects)? {
            if seen.insert(id_of(&item).to_string()) {
                items.push(item);
            }
        }
        Ok(items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_clusters_calls_name_its_project() {
        assert_eq!(owned_by(None), [("listall", "true".to_string())]);
        assert_eq!(owned_by(Some("")), [("listall", "true".to_string())]);
        assert_eq!(
            owned_by(Some("p-1")),
            [
                ("listall", "true".to_string()),
                ("projectid", "p-1".to_string())
            ]
        );
    }
}
