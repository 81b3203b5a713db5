//! PostgreSQL under the store's rules ([`RecordStore`]): each change one serialisable
//! transaction, retried on serialisation failures.

use super::error::StoreError;
use super::postgres::PostgresStore;
use super::rules::{RecordStore, RecordTable};
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

impl RecordTable for PostgresStore {
    fn put(&mut self, record: &ClusterRecord) -> Result<(), StoreError> {
        PostgresStore::put(self, record)
    }

    fn insert_new(&mut self, record: &ClusterRecord) -> Result<bool, StoreError> {
        PostgresStore::insert_new(self, record)
    }

    fn ids(&mut self) -> Result<Vec<String>, StoreError> {
        PostgresStore::ids(self)
    }
}
