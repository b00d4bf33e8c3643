//! The registry's schemas as files, and the validators compiled from them.
//!
//! `schemas/` holds every action's input and output schema and the error
//! document's, exactly as `--input-schema`, `--output-schema` and
//! `--error-schema` print them (pretty-printed): a published artifact,
//! written by `generate::schema_files` and held to the registry by the drift
//! test. jsonschema's `validator` attribute reads each input schema file at
//! build time and compiles it (JSON Schema 2020-12) into a Rust function, so
//! a call parses, meta-validates and compiles no schema at run time; a
//! registry change that is not regenerated into `schemas/` fails the drift
//! test before it can leave a validator stale.

use jsonschema::ErrorIterator;
use serde_json::Value;

use crate::registry::Action;

/// The directory of the schema files, relative to the package root.
pub const DIR: &str = "schemas";

/// The error document's schema (`agentteam exec --error-schema`).
pub const ERROR_FILE: &str = "schemas/error.json";

/// `schemas/task_create.input.json`.
pub fn input_file(action: &Action) -> String {
    format!("{DIR}/{}.input.json", action.name())
}

/// `schemas/task_create.output.json`: the whole success document.
pub fn output_file(action: &Action) -> String {
    format!("{DIR}/{}.output.json", action.name())
}

/// One action's input schema, compiled.
pub struct Compiled {
    /// The schema file it was compiled from.
    pub file: &'static str,
    /// Whether the input is valid: no error values are built.
    pub is_valid: fn(&Value) -> bool,
    /// Every violation, with its instance path and keyword.
    pub iter_errors: for<'i> fn(&'i Value) -> ErrorIterator<'i>,
}

/// Declares one compiled validator per `Name = "schema file"` line and
/// [`COMPILED`] in the same order. Patterns use the `regex` engine (the
/// registry's patterns need no look-around or back-references), and the
/// single-error `validate` method, which nothing calls, is not generated.
macro_rules! compiled {
    ($($name:ident = $file:tt,)*) => {
        $(
            #[jsonschema::validator(
                path = $file,
                draft = Draft202012,
                pattern_options = { engine = regex },
                methods = { validate = false },
            )]
            struct $name;
        )*

        /// In registry order: `COMPILED[action.index()]` is `action`'s (tested).
        pub(super) static COMPILED: &[Compiled] = &[$(
            Compiled {
                file: $file,
                is_valid: $name::is_valid,
                iter_errors: $name::iter_errors,
            },
        )*];
    };
}

// One validator per action's input schema file, in registry order:
// written by `generate::validators_text` with the schema files.
mod compiled;
use compiled::COMPILED;

/// `action`'s compiled input schema.
///
/// # Panics
///
/// For an action added to the registry whose files were not generated
/// yet (README, "Adding an action"): the drift test fails the same build.
pub fn compiled(action: &Action) -> &'static Compiled {
    COMPILED.get(action.index()).unwrap_or_else(|| {
        panic!(
            "no compiled validator for {}: regenerate (README, \"Adding an action\")",
            action.name()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::ACTIONS;

    /// One validator per action, in registry order, each compiled from that
    /// action's own file (the drift test holds the file to the registry).
    #[test]
    fn every_action_has_its_compiled_validator() {
        assert_eq!(COMPILED.len(), ACTIONS.len());
        for action in ACTIONS {
            assert_eq!(
                compiled(action).file,
                input_file(action),
                "{}",
                action.name()
            );
        }
    }

    /// Each validator accepts its action's examples and refuses a value
    /// that is not an object, so none is compiled from an empty schema.
    #[test]
    fn compiled_validators_check_their_schema() {
        for action in ACTIONS {
            let compiled = compiled(action);
            for example in action.examples {
                let input: Value = serde_json::from_str(example.input).unwrap();
                assert!((compiled.is_valid)(&input), "{}: {input}", action.name());
            }
            assert!(!(compiled.is_valid)(&Value::from(1)), "{}", action.name());
            assert_eq!((compiled.iter_errors)(&Value::from(1)).count(), 1);
        }
    }
}
