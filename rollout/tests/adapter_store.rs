//! The SQLite store (`sqlite:PATH`, the default) against the store contract: every rule, and
//! two OS processes racing for hundreds of clusters never both win one.

use super::store_contract::{race, race_child, the_contract_holds};
use super::two_processes::test_name;

#[test]
fn the_store_contract_holds_in_sqlite() {
    let dir = tempfile::tempdir().expect("temp dir");
    the_contract_holds(&format!(
        "sqlite:{}",
        dir.path().join("rollout.db").display()
    ));
}

#[test]
fn two_processes_racing_for_updating_in_sqlite_never_both_win() {
    if race_child() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite:{}", dir.path().join("rollout.db").display());
    let test = test_name(
        module_path!(),
        "two_processes_racing_for_updating_in_sqlite_never_both_win",
    );
    race(&url, 2, &test);
}
