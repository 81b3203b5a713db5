//! PostgreSQL under the store's rules ([`RecordStore`]): each change one serialisable
//! transaction, retried on serialisation failures.

use super::rules::RecordStore;
use super::{PostgresStore, StoreError};
use crate::model::ClusterRecord;

impl RecordStore for PostgresStore {
    fn record(&mut self, id: &str) -> Result<ClusterRecord, StoreError> {
        self.get(id)
    }

    fn change(
        &mut self,
        id: &str,
        change: &mut dyn FnMut(&mut ClusterRecord, u64) -> bool,
    ) -> Result<bool, StoreError> {
        self.update(id, change)
    }
}
