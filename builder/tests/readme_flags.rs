//! Every `--flag` README names in a `cks-iso` section exists in that command's `--help`.

#[path = "../../cli-docs/tests/support/readme_flags.rs"]
mod support;

#[test]
fn every_flag_the_readme_names_is_in_the_commands_help() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("README");
    let missing = support::missing_flags(&readme, "cks-iso", env!("CARGO_BIN_EXE_cks-iso"));
    assert!(
        missing.is_empty(),
        "README names flags the help lacks:\n{}",
        missing.join("\n")
    );
}
