//! Whether the ISO fits the node contract of the CloudStack it is registered in: the server's
//! version (`listCapabilities`) names its line, and the ISO's files must satisfy that line's
//! reads (see [`cks_pinning::node_contract`]), unless the caller forces it.

use cks_cloudstack::CloudStackClient;
use cks_pinning::node_contract::Line;

use super::error::RegisterError;
use super::iso_facts::IsoFacts;

/// Checks the fit; with `force`, a misfit is said and not refused. A version of no known line
/// is said and not checked.
pub fn check(
    client: &CloudStackClient,
    facts: &IsoFacts,
    force: bool,
    say: &mut dyn FnMut(&str),
) -> Result<(), RegisterError> {
    let version = client.capabilities()?.cloudstack_version;
    let Some(line) = Line::of_version(&version) else {
        say(&format!(
            "CloudStack {version} is none of the lines whose node contract is known (4.20, 4.22, 4.23); the ISO's fit is not checked"
        ));
        return Ok(());
    };
    let Some(fit) = facts.fits.get(line) else {
        return Ok(());
    };
    for unverified in &fit.unverified {
        say(&format!("CloudStack {line}, unverified: {unverified}"));
    }
    if fit.misfits.is_empty() {
        say(&format!(
            "CloudStack {version}: the ISO fits the {line} node contract"
        ));
        return Ok(());
    }
    let missing: Vec<String> = fit.misfits.iter().map(ToString::to_string).collect();
    if force {
        say(&format!(
            "CloudStack {version}: the ISO does not fit the {line} node contract, registered anyway (--force): {}",
            missing.join("; ")
        ));
        return Ok(());
    }
    Err(RegisterError::Unfit {
        iso: facts.iso.clone(),
        version,
        line,
        missing: missing.join("; "),
    })
}
