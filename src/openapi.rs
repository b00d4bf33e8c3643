//! The Agent Runtime API as an OpenAPI 3.1 document, generated from the
//! registry: one operation per action at its method and route, its input as
//! query parameters (GET) or a JSON body (POST), its success body for every
//! status it may have, and the error document for every status the runtime
//! can answer it with. The schemas are the registry's own (JSON Schema
//! 2020-12, OpenAPI 3.1's dialect) with every field renamed to its wire name
//! (camelCase, [`crate::case`]), so the document describes exactly what
//! travels. Checked in as `openapi.json` (the drift test holds it to this
//! module), printed by `agentteam-runtime openapi` and served at
//! [`ROUTE`] without authentication.

use serde_json::{Map, Value, json};

use crate::case;
use crate::error::{self, ErrorCode, code};
use crate::ids::IdKind;
use crate::registry::{
    ACTIONS, ANY_CALL_REFUSALS, Action, BODY_REFUSALS, HiddenContext, Method, Success,
};
use crate::wire;

/// The checked-in file, relative to the package root.
pub const FILE: &str = "openapi.json";

/// Where the runtime serves the document, without authentication.
pub const ROUTE: &str = "/api/v1/openapi.json";

/// Liveness for load balancers: the process serves.
pub const HEALTHZ: &str = "/healthz";
/// Readiness for load balancers: the store answers too.
pub const READYZ: &str = "/readyz";

/// The media type of every request and answer body.
const JSON: &str = "application/json";

/// The longest workflow context id, in characters, as `wire::decode_body`
/// holds it.
const MAX_CONTEXT_ID: u64 = crate::wire::MAX_CONTEXT_ID_CHARS as u64;

/// The document, pretty-printed with a final newline: the checked-in file,
/// what `agentteam-runtime openapi` prints and what [`ROUTE`] serves.
pub fn text() -> String {
    format!(
        "{}\n",
        serde_json::to_string_pretty(&document()).expect("JSON values serialise")
    )
}

/// The OpenAPI 3.1 document of the Agent Runtime API.
pub fn document() -> Value {
    let mut paths = Map::new();
    let mut schemas = Map::new();
    schemas.insert("Error".into(), error_component());
    for action in ACTIONS {
        let item = paths
            .entry(action.route_template())
            .or_insert_with(|| {
                json!({"parameters": [
                    {"$ref": "#/components/parameters/workspaceId"},
                    {"$ref": "#/components/parameters/agentId"},
                ]})
            })
            .as_object_mut()
            .expect("a path item is an object");
        let method = action.method.as_str().to_ascii_lowercase();
        item.insert(method, operation(action, &mut schemas));
    }
    for (route, mut item) in service_paths() {
        let responses = item["get"]["responses"]
            .as_object_mut()
            .expect("a service route answers");
        for (status, response) in refused_before_routing() {
            responses.insert(status.to_string(), response);
        }
        // /readyz says its own 503 (the store, or the cap).
        responses.entry("503").or_insert_with(over_capacity);
        paths.insert(route.into(), item);
    }
    // The registry writes its prose for the model, in snake_case: here it
    // names each field as it travels.
    let mut paths = Value::Object(paths);
    let mut schemas = Value::Object(schemas);
    let mut respell = |text: &mut String| *text = crate::wire::respell_to_wire(text);
    for_each_prose(&mut paths, &mut respell);
    for_each_prose(&mut schemas, &mut respell);
    json!({
        "openapi": "3.1.0",
        "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
        "info": {
            "title": "AgentTeam Agent Runtime API",
            "version": env!("CARGO_PKG_VERSION"),
            "summary": "A team's task boards, for AI agents: the API agentteam-runtime serves and the agentteam CLI calls.",
            "description": "Generated from the agentteam action registry; do not edit. \
                Every operation is one registry action and is authenticated with the agent's \
                bearer token; a token acts only on its own workspace and agent path. \
                Fields travel in camelCase, and the descriptions here name them so; the \
                agentteam CLI's schemas spell them in the model-facing snake_case (its \
                `expected_updated_at` is `expectedUpdatedAt` here). A failure is the `Error` \
                document with the status its code registers.",
            "license": {"name": "MIT OR Apache-2.0", "identifier": "MIT OR Apache-2.0"},
        },
        "servers": [{
            "url": "http://127.0.0.1:8787",
            "description": "`agentteam-runtime serve` on its default address",
        }],
        "security": [{"bearerAuth": []}],
        "tags": crate::registry::domains().iter().map(|d| json!({
            "name": d,
            "description": format!("The {d} actions."),
        })).chain([json!({
            "name": SERVICE_TAG,
            "description": "The server's own routes: health for load balancers, and this document. No authentication, no data.",
        })]).collect::<Vec<_>>(),
        "paths": paths,
        "components": {
            "securitySchemes": {
                "bearerAuth": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "An agent token (`at_…`) issued by `agentteam-runtime token issue` or `agent create`.",
                },
            },
            "parameters": {
                "workspaceId": path_parameter("workspaceId", "The workspace id of the token's agent (`ws_…`)."),
                "agentId": path_parameter("agentId", "The agent id of the token (`ag_…`)."),
            },
            "schemas": schemas,
        },
    })
}

/// Calls `f` on every `description` and `summary` text under `value`.
fn for_each_prose(value: &mut Value, f: &mut impl FnMut(&mut String)) {
    match value {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                match value {
                    Value::String(text) if key == "description" || key == "summary" => f(text),
                    _ => for_each_prose(value, f),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| for_each_prose(item, f)),
        _ => {}
    }
}

/// The tag of the routes that are no registry action.
const SERVICE_TAG: &str = "service";

/// The routes beside the registry's, each unauthenticated (`security: []`)
/// and answering GET and HEAD: `/healthz`, `/readyz` and this document.
fn service_paths() -> [(&'static str, Value); 3] {
    let get = |id: &str, summary: &str, responses: Value| {
        json!({"get": {
            "operationId": id,
            "tags": [SERVICE_TAG],
            "summary": summary,
            "security": [],
            "responses": responses,
        }})
    };
    [
        (
            HEALTHZ,
            get(
                "healthz",
                "Whether the process serves (liveness); reads nothing of the store.",
                json!({"200": {"description": "The process serves. The body is empty."}}),
            ),
        ),
        (
            READYZ,
            get(
                "readyz",
                "Whether the process serves and its store answers (readiness).",
                json!({
                    "200": {"description": "The store answered. The body is empty."},
                    "503": {
                        "description": "The store did not answer in time, or the runtime serves as many connections as it may (`serve --max-connections`): the `server_error` document, naming nothing of the store.",
                        "headers": error_headers(503),
                        "content": {JSON: {"schema": schema_ref("Error")}},
                    },
                }),
            ),
        ),
        (
            ROUTE,
            get(
                "openapi",
                "This document.",
                json!({"200": {
                    "description": "The OpenAPI 3.1 document of this API.",
                    "content": {JSON: {"schema": {"type": "object"}}},
                }}),
            ),
        ),
    ]
}

fn path_parameter(name: &str, description: &str) -> Value {
    json!({
        "name": name,
        "in": "path",
        "required": true,
        "description": description,
        "schema": {"type": "string", "minLength": 1},
    })
}

/// `TaskSetClaim` for `task_set_claim`: the prefix of its component names.
fn type_name(action: &Action) -> String {
    action
        .name()
        .split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect()
}

fn schema_ref(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

fn operation(action: &Action, schemas: &mut Map<String, Value>) -> Value {
    let name = type_name(action);
    let mut op = json!({
        "operationId": action.name(),
        "tags": [action.domain],
        "summary": action.summary,
        "description": format!(
            "{}\n\nIdempotency: {}. The agentteam CLI runs it as `{}`.",
            action.description,
            action.idempotency.describe(),
            action.cli_command()
        ),
        "x-agentteam-action": action.id(),
    });
    let input = wire_schema(action.cached_input_schema());
    match action.method {
        Method::Get => {
            op["parameters"] = json!(query_parameters(action, &input));
        }
        Method::Post => {
            let request = format!("{name}Request");
            schemas.insert(request.clone(), request_body_schema(action, input));
            op["requestBody"] = json!({
                "required": true,
                "content": {JSON: {
                    "schema": schema_ref(&request),
                    "examples": examples(action),
                }},
            });
        }
    }
    let response = response_component(action);
    schemas.insert(
        response.clone(),
        success_schema(action, action.output_schema()),
    );
    let mut responses = Map::new();
    for &status in action.success.statuses() {
        responses.insert(
            status.to_string(),
            success_response(action, status, &response),
        );
    }
    for (status, codes) in failures(action) {
        let list: Vec<&str> = codes.iter().map(|c| c.code).collect();
        let described: Vec<String> = codes.iter().map(|c| format!("`{}`", c.code)).collect();
        let mut response = json!({
            "description": format!("{}: {}.", reason(status), described.join(", ")),
            "x-error-codes": list,
            "content": {JSON: {"schema": schema_ref("Error")}},
        });
        if let Some(headers) = error_headers(status) {
            response["headers"] = headers;
        }
        responses.insert(status.to_string(), response);
    }
    for (status, response) in refused_before_routing() {
        responses.insert(status.to_string(), response);
    }
    op["responses"] = Value::Object(responses);
    op
}

/// What the HTTP layer answers before any route is found, on every path:
/// no body at all.
fn refused_before_routing() -> [(u16, Value); 2] {
    [
        (
            414,
            json!({"description": format!(
                "URI too long (over {} bytes): refused before the API reads it, with no body.",
                wire::MAX_URI_BYTES
            )}),
        ),
        (
            431,
            json!({"description": format!(
                "Request header fields too large (over {} fields, or over {} KiB with the request line, counted between reads, so one read more may pass first): refused before the API reads them, with no body.",
                wire::MAX_HEADERS,
                wire::MAX_HEAD_BYTES / 1024
            )}),
        ),
    ]
}

/// A connection past `serve --max-connections`, on any path: answered at
/// once, before its request is read.
fn over_capacity() -> Value {
    json!({
        "description": "The runtime serves as many connections as it may (`serve --max-connections`): the `server_error` document, before the request is read. Retry shortly.",
        "headers": error_headers(503),
        "content": {JSON: {"schema": schema_ref("Error")}},
    })
}

/// The registry's examples for a request body, in wire names. A keyed one
/// is replayed only inside a workflow callback, whose context the CLI sends
/// beside the key (`request_body_schema`): on the wire it carries that
/// context too, ids of their shape, or no runtime could accept it.
fn examples(action: &Action) -> Value {
    let mut out = Map::new();
    for (i, example) in action.examples.iter().enumerate() {
        let input: Value =
            serde_json::from_str(example.input).expect("registry examples are valid JSON (tested)");
        let mut value = case::to_wire(input);
        if value.get("idempotencyKey").is_some() {
            for (context, kind) in [
                (HiddenContext::WorkflowRunId, IdKind::WorkflowRun),
                (HiddenContext::CallbackEffectId, IdKind::CallbackEffect),
            ] {
                if let (true, Some(wire)) = (
                    action.hidden_context.contains(&context),
                    context.wire_name(),
                ) {
                    value[wire] = json!(format!("{}0123456789abcdef01234567", kind.prefix()));
                }
            }
        }
        out.insert(
            format!("example{}", i + 1),
            json!({"summary": example.description, "value": value}),
        );
    }
    Value::Object(out)
}

/// A GET action's input as query parameters, one per top-level field, typed
/// as `wire::decode_query` reads them: a string field is the raw value, any
/// other field the JSON text of its value (which for a number or a boolean
/// is the usual form encoding, so only objects and arrays say `content`).
fn query_parameters(action: &Action, input: &Value) -> Vec<Value> {
    let required: Vec<&str> = input["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = Vec::new();
    let properties = input["properties"].as_object().cloned().unwrap_or_default();
    for (name, schema) in properties {
        let ty = schema["type"].as_str().unwrap_or("string");
        let mut param = json!({
            "name": name,
            "in": "query",
            "required": required.contains(&name.as_str()),
            "description": schema["description"],
        });
        match ty {
            "string" | "integer" | "number" | "boolean" => param["schema"] = schema.clone(),
            _ => param["content"] = json!({JSON: {"schema": schema}}),
        }
        let mut examples = Map::new();
        for (i, example) in action.examples.iter().enumerate() {
            let value = case::to_wire(
                serde_json::from_str(example.input).expect("registry examples are valid JSON"),
            );
            if let Some(v) = value.get(&name) {
                examples.insert(
                    format!("example{}", i + 1),
                    json!({"summary": example.description, "value": v}),
                );
            }
        }
        if !examples.is_empty() && param.get("schema").is_some() {
            param["examples"] = Value::Object(examples);
        } else if !examples.is_empty() {
            param["content"][JSON]["examples"] = Value::Object(examples);
        }
        out.push(param);
    }
    out
}

/// A POST body: the wire input, plus the hidden workflow context an action
/// that replays by idempotency key reads beside the key (§13.1).
fn request_body_schema(action: &Action, mut input: Value) -> Value {
    let properties = input["properties"]
        .as_object_mut()
        .expect("an input schema has properties");
    for context in HiddenContext::ALL {
        if let (true, Some(wire)) = (
            action.hidden_context.contains(&context),
            context.wire_name(),
        ) {
            properties.insert(
                wire.into(),
                json!({
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_CONTEXT_ID,
                    "description": "Hidden workflow context: the agentteam CLI sends it beside idempotencyKey during a workflow callback, from AGENTTEAM_WORKFLOW_RUN_ID and AGENTTEAM_CALLBACK_EFFECT_ID. Without idempotencyKey it is refused (invalid_input).",
                }),
            );
        }
    }
    input
}

/// [`document`] with each success body closed as
/// [`Action::closed_output_schema`] closes it: exactly what this version's
/// runtime answers. The tests check every exchange they see against it; the
/// published document leaves results open for later additions (§11.1).
pub fn closed_document() -> Value {
    let mut document = document();
    for action in ACTIONS {
        document["components"]["schemas"][response_component(action)] =
            success_schema(action, action.closed_output_schema());
    }
    document
}

/// The component name of `action`'s success body.
fn response_component(action: &Action) -> String {
    format!("{}Response", type_name(action))
}

/// A success body: the `data` of the success document `document` (an
/// output schema of `action`), with the `meta` fields the wire carries
/// (`nextCursor`, `truncated`; not the CLI's own `line`) at its top level,
/// as `wire::success_json` writes it.
fn success_schema(action: &Action, document: Value) -> Value {
    let mut data = document["properties"]["data"].clone();
    let meta = document["properties"]["meta"]["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let properties = data["properties"]
        .as_object_mut()
        .expect("data is an object with properties");
    for (name, schema) in meta {
        if name != crate::registry::BATCH_LINE {
            properties.insert(name, schema);
        }
    }
    let mut data = wire_schema(&data);
    data["title"] = json!(format!("{} result", action.name()));
    data
}

fn success_response(action: &Action, status: u16, component: &str) -> Value {
    // One schema for both statuses of a create: `reused` tells them apart.
    // (Narrowing it per status with `allOf` and `const` is exact, but common
    // client generators then drop the response.)
    let description = match (action.success, status) {
        (Success::CreatedUnlessReused, 201) => {
            "Created: the call created what it says (`reused` is false)."
        }
        (Success::CreatedUnlessReused, _) => {
            "Replayed: an earlier call with the same idempotencyKey created it; its receipt is returned (`reused` is true)."
        }
        (Success::Ok, _) => "Success.",
    };
    json!({"description": description, "content": {JSON: {"schema": schema_ref(component)}}})
}

/// The error codes the runtime can answer `action` with, by HTTP status.
fn failures(action: &Action) -> Vec<(u16, Vec<ErrorCode>)> {
    let mut codes = ANY_CALL_REFUSALS.to_vec();
    if action.method == Method::Post {
        codes.extend(BODY_REFUSALS);
    }
    codes.extend(action.refusals);
    let mut by_status: std::collections::BTreeMap<u16, Vec<ErrorCode>> = Default::default();
    for c in codes {
        for status in statuses(c) {
            by_status.entry(status).or_default().push(c);
        }
    }
    by_status.into_iter().collect()
}

/// The statuses the runtime answers `code` with: the one it registers, and
/// the runtime's own uses beyond it (a store that cannot answer now is 503,
/// a body that does not arrive in time 408).
fn statuses(c: ErrorCode) -> Vec<u16> {
    if c == code::SERVER_ERROR {
        vec![500, 503]
    } else if c == code::TIMEOUT {
        vec![408]
    } else {
        vec![c.http_status]
    }
}

/// The headers the runtime sends with every failure of `status`
/// (`failure_response` in `src/runtime/server.rs`).
fn error_headers(status: u16) -> Option<Value> {
    let retry_after = |description: &str| {
        json!({"Retry-After": {
            "description": description,
            "required": true,
            "schema": {"type": "integer", "minimum": 0},
        }})
    };
    match status {
        401 => Some(json!({"WWW-Authenticate": {
            "description": "The authentication scheme the API takes: `Bearer`.",
            "required": true,
            "schema": {"type": "string", "const": "Bearer"},
        }})),
        429 => Some(retry_after(
            "Seconds until the token's rate limit admits a call again.",
        )),
        503 => Some(retry_after("Seconds to wait before trying again.")),
        _ => None,
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        400 => "Bad request",
        401 => "Unauthorized (the response carries `WWW-Authenticate: Bearer`)",
        403 => "Forbidden",
        404 => "Not found",
        408 => "Request timeout",
        409 => "Conflict",
        413 => "Request body too large",
        422 => "Unprocessable input",
        429 => "Too many requests (the response carries `Retry-After`)",
        500 => "Server error",
        503 => "Unavailable (the response carries `Retry-After`)",
        _ => "Refused",
    }
}

/// The error document (`agentteam exec --error-schema`) in wire names.
fn error_component() -> Value {
    let mut schema = wire_schema(&error::error_schema());
    schema["title"] = json!("Error");
    schema["description"] = json!(
        "What the runtime answers on every failure, with the HTTP status its code registers."
    );
    schema
}

/// `schema` with every field name in wire form: the names under
/// `properties` and in `required`, and the keys of the values it gives
/// (`default`, `const`, `enum`, `examples`), recursively. `$schema` goes:
/// the document's `jsonSchemaDialect` says it.
pub fn wire_schema(schema: &Value) -> Value {
    let Value::Object(map) = schema else {
        return schema.clone();
    };
    let mut out = Map::new();
    for (key, value) in map {
        let value = match key.as_str() {
            "$schema" => continue,
            "properties" | "patternProperties" | "$defs" => Value::Object(
                value
                    .as_object()
                    .map(|props| {
                        props
                            .iter()
                            .map(|(name, sub)| {
                                let name = if key == "properties" {
                                    case::snake_to_camel(name)
                                } else {
                                    name.clone()
                                };
                                (name, wire_schema(sub))
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
            ),
            "required" => json!(
                value
                    .as_array()
                    .map(|names| names
                        .iter()
                        .map(|n| n
                            .as_str()
                            .map_or_else(|| n.clone(), |s| json!(case::snake_to_camel(s))))
                        .collect::<Vec<_>>())
                    .unwrap_or_default()
            ),
            "items"
            | "additionalProperties"
            | "not"
            | "contains"
            | "propertyNames"
            | "if"
            | "then"
            | "else" => wire_schema(value),
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => Value::Array(
                value
                    .as_array()
                    .map(|subs| subs.iter().map(wire_schema).collect())
                    .unwrap_or_default(),
            ),
            "default" | "const" | "enum" | "examples" => case::to_wire(value.clone()),
            _ => value.clone(),
        };
        out.insert(key.clone(), value);
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::RUNTIME_PREFIX;

    /// The prose says each input field as it travels: no description or
    /// summary of an operation or schema names one in snake_case.
    #[test]
    fn descriptions_name_fields_as_the_wire_does() {
        let mut snake = std::collections::BTreeSet::new();
        for action in ACTIONS {
            let mut props = Vec::new();
            crate::registry::schema::walk_properties(action.cached_input_schema(), "", &mut props);
            snake.extend(
                props
                    .into_iter()
                    .filter_map(|(path, _)| path.rsplit('/').next().map(str::to_string))
                    .filter(|name| name.contains('_')),
            );
        }
        assert!(snake.contains("expected_updated_at"), "{snake:?}");
        let mut document = document();
        let mut texts = Vec::new();
        for part in ["paths", "components"] {
            for_each_prose(&mut document[part], &mut |text| texts.push(text.clone()));
        }
        assert!(texts.len() > 100, "{}", texts.len());
        for text in texts {
            // The wire has no `meta`: its keys travel at the body's top
            // level. A CLI profile's settings keep their own spelling.
            assert!(!text.contains("meta."), "{text}");
            for setting in ["maxPermission", "apiUrl", "credentialProcess"] {
                assert!(!text.contains(setting), "{setting} in: {text}");
            }
            let named: Vec<&str> = text
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .filter(|word| snake.contains(*word))
                .collect();
            assert!(named.is_empty(), "{named:?} in: {text}");
        }
    }

    #[test]
    fn wire_schema_renames_fields_and_keeps_keywords() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "additionalProperties": false,
            "required": ["expected_updated_at"],
            "properties": {
                "expected_updated_at": {"type": "string", "minLength": 1},
                "properties": {"type": "array", "items": {"type": "object", "properties": {"scope_id": {"type": "string"}}, "required": ["scope_id"]}},
                "field_errors": {"type": "object", "additionalProperties": {"type": "string"}, "default": {"some_key": "in_value"}},
                "status": {"enum": ["in_progress"]},
            },
        });
        assert_eq!(
            wire_schema(&schema),
            json!({
                "type": "object",
                "additionalProperties": false,
                "required": ["expectedUpdatedAt"],
                "properties": {
                    "expectedUpdatedAt": {"type": "string", "minLength": 1},
                    "properties": {"type": "array", "items": {"type": "object", "properties": {"scopeId": {"type": "string"}}, "required": ["scopeId"]}},
                    "fieldErrors": {"type": "object", "additionalProperties": {"type": "string"}, "default": {"someKey": "in_value"}},
                    "status": {"enum": ["in_progress"]},
                },
            })
        );
    }

    #[test]
    fn every_action_is_one_operation_at_its_route_and_method() {
        let doc = document();
        let paths = doc["paths"].as_object().unwrap();
        let service = [HEALTHZ, READYZ, ROUTE];
        assert!(
            paths
                .keys()
                .all(|p| p.starts_with(RUNTIME_PREFIX) || service.contains(&p.as_str()))
        );
        for route in service {
            assert_eq!(paths[route]["get"]["security"], json!([]), "{route}");
        }
        for action in ACTIONS {
            let op =
                &doc["paths"][action.route_template()][action.method.as_str().to_ascii_lowercase()];
            assert_eq!(op["operationId"], json!(action.name()), "{}", action.name());
            for status in action.success.statuses() {
                assert!(op["responses"].get(status.to_string()).is_some());
            }
            for status in ["401", "403", "422", "500", "503"] {
                assert!(
                    op["responses"].get(status).is_some(),
                    "{}: {status}",
                    action.name()
                );
            }
        }
        let operations: usize = doc["paths"]
            .as_object()
            .unwrap()
            .iter()
            .filter(|(route, _)| route.starts_with(RUNTIME_PREFIX))
            .map(|(_, item)| item.as_object().unwrap().len() - 1)
            .sum();
        assert_eq!(operations, ACTIONS.len());
    }

    /// Only wire names: no field name in a schema has an underscore.
    #[test]
    fn schemas_are_in_wire_names() {
        fn walk(value: &Value, path: &str) {
            match value {
                Value::Object(map) => {
                    for (k, v) in map {
                        if path.ends_with("/properties") {
                            assert!(!k.contains('_'), "{path}/{k}");
                        }
                        if let ("required", Some(names)) = (k.as_str(), v.as_array()) {
                            for name in names {
                                assert!(!name.as_str().unwrap().contains('_'), "{path}: {name}");
                            }
                        }
                        if k != "x-error-codes" && k != "examples" && k != "x-agentteam-action" {
                            walk(v, &format!("{path}/{k}"));
                        }
                    }
                }
                Value::Array(items) => items.iter().for_each(|v| walk(v, path)),
                _ => {}
            }
        }
        walk(&document()["components"]["schemas"], "");
        walk(&document()["paths"], "");
    }
}
