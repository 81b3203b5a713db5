//! The real database a simulation's store calls go to (`simulate --store`): the store's rules
//! run on it, with its own clock, and the world takes its record after every call.

use crate::adapters::store::{RecordStore, StoreError};
use crate::model::ClusterRecord;
use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

/// A real store shared by the port handles of one simulation.
#[derive(Clone)]
pub struct Backing(Rc<RefCell<Box<dyn RecordStore>>>);

impl Backing {
    /// Wraps `store`.
    pub fn new(store: Box<dyn RecordStore>) -> Self {
        Backing(Rc::new(RefCell::new(store)))
    }

    /// The record `id` as the database holds it.
    pub fn record(&self, id: &str) -> Result<ClusterRecord, StoreError> {
        self.0.borrow_mut().record(id)
    }

    /// The change in one transaction of the database.
    pub fn change(
        &self,
        id: &str,
        change: &mut dyn FnMut(&mut ClusterRecord, u64) -> bool,
    ) -> Result<bool, StoreError> {
        self.0.borrow_mut().change(id, change)
    }
}

impl fmt::Debug for Backing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Backing(real store)")
    }
}
