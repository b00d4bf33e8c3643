//! Snapshots of everything a model or a person reads about each action:
//! `--help`, `--input-schema` and `--output-schema` of the real binary, so a
//! change to any of them is a reviewed diff in `tests/testsuite/snapshots/*.snap`.
//!
//! After an intended change, accept the new snapshots with one command and
//! review the diff before committing:
//!
//! ```sh
//! INSTA_UPDATE=always cargo test --test testsuite snapshots::     # or: cargo insta test --accept
//! ```

use std::process::{Command, Stdio};

use agentteam::registry::{self, ACTIONS};
use serde_json::Value;

/// Runs `agentteam` hermetically: nothing from the developer's environment,
/// a fresh HOME and config dir, and a fixed width so help wraps the same
/// everywhere.
fn agentteam(args: &[&str]) -> String {
    let home = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_agentteam"))
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("AGENTTEAM_CONFIG_DIR", home.path().join("config"))
        .env("COLUMNS", "100")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "agentteam {args:?} exited {:?}\nstdout: {}\nstderr: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("stdout is UTF-8")
}

fn json(args: &[&str]) -> Value {
    let stdout = agentteam(args);
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("agentteam {args:?}: stdout is not JSON ({e}):\n{stdout}"))
}

#[test]
fn action_help() {
    for action in ACTIONS {
        let help = agentteam(&["exec", action.domain, action.verb, "--help"]);
        insta::assert_snapshot!(format!("{}_help", action.name()), help);
    }
}

#[test]
fn action_input_schema() {
    for action in ACTIONS {
        let schema = json(&["exec", action.domain, action.verb, "--input-schema"]);
        insta::assert_json_snapshot!(format!("{}_input_schema", action.name()), schema);
    }
}

#[test]
fn action_output_schema() {
    for action in ACTIONS {
        let schema = json(&["exec", action.domain, action.verb, "--output-schema"]);
        insta::assert_json_snapshot!(format!("{}_output_schema", action.name()), schema);
    }
}

/// The binary prints what the registry holds, so the registry's tests cover
/// `agentteam exec --catalog`: its schemas are checked against the 2020-12
/// meta-schema (`catalog_schemas_are_valid_json_schema_2020_12`) and the
/// CLI's help (`check_04_catalog_and_schema_parity`) there.
#[test]
fn binary_schemas_are_the_catalog_schemas() {
    let catalog = json(&["exec", "--catalog"]);
    assert_eq!(catalog, registry::catalog());
    for (action, entry) in ACTIONS.iter().zip(catalog["actions"].as_array().unwrap()) {
        let input = json(&["exec", action.domain, action.verb, "--input-schema"]);
        let output = json(&["exec", action.domain, action.verb, "--output-schema"]);
        assert_eq!(input, entry["input_schema"], "{}", action.name());
        assert_eq!(output, entry["output_schema"], "{}", action.name());
    }
    assert_eq!(json(&["exec", "--error-schema"]), catalog["error_schema"]);
}
