//! The §13.2 rules, checked through the same pipeline the server runs
//! (registry validation → typed input → [`dispatch`] → [`Store`]) on every
//! engine: each test is written once, generic over [`Engine`], and run on a
//! real SQLite file and on a real PostgreSQL database (the tests' own
//! server, `tests/testsuite/support/postgres.rs`).

use std::future::Future;

use serde_json::{Value, json};

use super::postgres::{PgStore, PoolOptions, Target};
use super::schema::OnOpen;
use super::sqlite::SqliteStore;
use super::*;
use crate::registry::find;

#[path = "../../../tests/testsuite/support/postgres.rs"]
pub(crate) mod cluster;

/// Runs a store future to completion on this test thread's runtime.
pub(crate) fn block<T>(future: impl Future<Output = T>) -> T {
    thread_local! {
        static RUNTIME: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a test runtime");
    }
    RUNTIME.with(|rt| rt.block_on(future))
}

/// A store engine under test: where a fresh store lives, and how to open
/// it (again).
trait Engine: Admin + Sized {
    /// Keeps the store's storage alive for the test.
    type Place;
    fn place() -> Self::Place;
    fn open(place: &Self::Place) -> Self;
    /// Opens the store as `migrate --status` does: without migrating.
    fn inspect(place: &Self::Place) -> Self;
    /// Puts a closed store's search back as the schema before word forms
    /// left it (words only, no stems) at that schema's version.
    fn before_word_forms(place: &Self::Place);
    /// What a replica of the version before word forms leaves in the
    /// current schema's search index for the tasks it writes while a
    /// rolling upgrade replaces it: PostgreSQL, the words without their
    /// stems; SQLite, no terms (the triggers that fed its index are gone).
    fn terms_of_a_replica_before_word_forms(place: &Self::Place);
    /// The store as it was before checkpoints were numbered within their
    /// task: their ids the table's one counter, the number column gone.
    fn before_checkpoint_numbers(place: &Self::Place);
    /// Activity rows of one kind, for tests of "replay records nothing".
    fn events(&self, kind: &str) -> i64;
    /// The detail of the last activity row of one kind.
    fn last_event(&self, kind: &str) -> Option<Value>;
}

impl Engine for SqliteStore {
    type Place = tempfile::TempDir;

    fn place() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    fn open(dir: &tempfile::TempDir) -> SqliteStore {
        SqliteStore::open(&dir.path().join("rt.db"), OnOpen::Migrate).unwrap()
    }

    fn inspect(dir: &tempfile::TempDir) -> SqliteStore {
        SqliteStore::open(&dir.path().join("rt.db"), OnOpen::Inspect).unwrap()
    }

    /// The trigger-fed FTS5 table of the first migration, filled from the
    /// tasks as its triggers would have, tokens without scope or expiry,
    /// checkpoints without keys, and `user_version` 2: the schema before
    /// word forms.
    fn before_word_forms(dir: &tempfile::TempDir) {
        Self::before_checkpoint_numbers(dir);
        let schema = include_str!("sqlite/migrations/0001_schema.sql");
        let old_index = &schema[schema.find("CREATE VIRTUAL TABLE task_fts").unwrap()..];
        let c = rusqlite::Connection::open(dir.path().join("rt.db")).unwrap();
        c.execute_batch(&format!(
            "BEGIN; DROP TABLE task_fts; {old_index} \
             INSERT INTO task_fts(task_fts) VALUES ('rebuild'); \
             DROP INDEX tokens_by_expiry; DROP INDEX tokens_by_revocation; \
             ALTER TABLE tokens DROP COLUMN expires_at; \
             ALTER TABLE tokens DROP COLUMN scope; \
             DROP INDEX checkpoints_by_key; \
             ALTER TABLE checkpoints DROP COLUMN idempotency_key; \
             PRAGMA user_version = 2; COMMIT;"
        ))
        .unwrap();
    }

    fn terms_of_a_replica_before_word_forms(dir: &tempfile::TempDir) {
        let c = rusqlite::Connection::open(dir.path().join("rt.db")).unwrap();
        c.execute("DELETE FROM task_fts", []).unwrap();
    }

    fn before_checkpoint_numbers(dir: &tempfile::TempDir) {
        let c = rusqlite::Connection::open(dir.path().join("rt.db")).unwrap();
        c.execute_batch(
            "BEGIN; DROP INDEX checkpoints_by_task; \
             ALTER TABLE checkpoints DROP COLUMN number; \
             CREATE INDEX checkpoints_by_task ON checkpoints(task_id, id); \
             PRAGMA user_version = 6; COMMIT;",
        )
        .unwrap();
    }

    fn events(&self, kind: &str) -> i64 {
        self.count_events(kind)
    }

    fn last_event(&self, kind: &str) -> Option<Value> {
        SqliteStore::last_event(self, kind)
    }
}

impl Engine for PgStore {
    /// The URI of a database of its own on the tests' PostgreSQL server.
    type Place = String;

    fn place() -> String {
        cluster::Cluster::shared().create_database()
    }

    fn open(uri: &String) -> PgStore {
        let target = Target::parse(uri).unwrap();
        block(PgStore::open(
            &target,
            OnOpen::Migrate,
            PoolOptions::default(),
        ))
        .unwrap()
    }

    fn inspect(uri: &String) -> PgStore {
        let target = Target::parse(uri).unwrap();
        block(PgStore::open(
            &target,
            OnOpen::Inspect,
            PoolOptions::default(),
        ))
        .unwrap()
    }

    /// Title and description words without stems (weights A and B), the
    /// later migrations' columns dropped, and their records removed.
    fn before_word_forms(uri: &String) {
        Self::before_checkpoint_numbers(uri);
        let store = Self::inspect(uri);
        block(store.run_sql(
            "UPDATE tasks SET search = setweight(to_tsvector('simple', title), 'A') \
                 || setweight(to_tsvector('simple', coalesce(description, '')), 'B'); \
             DROP INDEX tokens_by_revocation; \
             ALTER TABLE tokens DROP COLUMN expires_at, DROP COLUMN scope; \
             ALTER TABLE checkpoints DROP COLUMN idempotency_key; \
             DELETE FROM agentteam_schema WHERE version >= 2",
        ))
        .unwrap();
    }

    fn terms_of_a_replica_before_word_forms(uri: &String) {
        block(Self::inspect(uri).run_sql(
            "UPDATE tasks SET search = setweight(to_tsvector('simple', title), 'A') \
                 || setweight(to_tsvector('simple', coalesce(description, '')), 'B')",
        ))
        .unwrap();
    }

    fn before_checkpoint_numbers(uri: &String) {
        block(Self::inspect(uri).run_sql(
            "DROP TRIGGER checkpoints_number ON checkpoints; \
             DROP FUNCTION checkpoints_number(); \
             ALTER TABLE checkpoints DROP COLUMN number; \
             CREATE INDEX checkpoints_by_task ON checkpoints (task_id, id); \
             DELETE FROM agentteam_schema WHERE version >= 6",
        ))
        .unwrap();
    }

    fn events(&self, kind: &str) -> i64 {
        block(self.count_events(kind)).unwrap()
    }

    fn last_event(&self, kind: &str) -> Option<Value> {
        block(PgStore::last_event(self, kind)).unwrap()
    }
}

/// Each named test, once per engine: `sqlite::NAME` and `postgres::NAME`.
macro_rules! on_every_engine {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $( #[test] fn $name() { super::$name::<super::SqliteStore>() } )*
        }
        mod postgres {
            $( #[test] fn $name() { super::$name::<super::PgStore>() } )*
        }
    };
}

on_every_engine!(
    numbers_are_board_local_gapless_and_never_reused,
    a_rich_task_keeps_every_field_and_defaults,
    subtasks_by_parent_number_and_by_task_scope,
    target_is_provenance_on_the_same_board,
    idempotency_receipts,
    an_idempotency_conflict_names_only_the_live_tasks_its_key_made,
    checkpoint_keys_replay_per_agent_and_task,
    checkpoints_are_numbered_within_their_task,
    an_upgrade_numbers_stored_checkpoints_within_their_task,
    list_browses_searches_filters_sorts_and_pages,
    an_empty_page_names_the_subtasks_it_left_out,
    an_empty_search_names_the_done_tasks_it_left_out,
    an_empty_page_names_the_label_a_filter_mistyped,
    an_empty_search_names_the_filter_its_query_names,
    an_empty_search_names_the_words_as_the_titles_spell_them,
    an_empty_search_names_the_word_too_many,
    an_empty_search_names_the_board_that_has_it,
    cursors_page_without_gaps_and_are_bound_to_the_query,
    search_matches_the_same_words_on_every_engine,
    search_matches_word_forms_and_prefixes,
    an_upgrade_indexes_the_word_forms_of_stored_tasks,
    reindexing_restores_the_terms_an_older_replica_left,
    get_bounds_its_sections,
    cut_sections_name_the_call_that_reads_the_rest,
    a_crowded_detail_still_pages_through_every_checkpoint,
    a_detail_shows_its_subtasks_as_a_list_does,
    list_filters_by_parent,
    lookup_failures_carry_candidates_and_a_call_that_works,
    update_clears_guards_and_refuses_cycles,
    closing_a_task_over_open_subtasks_names_the_call_that_lists_them,
    an_update_that_changes_nothing_writes_nothing,
    an_update_of_one_field_records_that_field_alone,
    set_claim_is_a_desired_state_with_per_task_failures,
    delete_rules,
    private_boards_refuse_non_members,
    tokens_resolve_until_revoked_and_reopening_keeps_data,
    a_get_read_with_its_token_answers_as_a_lookup_then_a_get,
    tokens_carry_their_scope_expire_and_dead_ones_are_pruned,
    migrations_are_recorded_and_reapplying_changes_nothing,
    text_one_engine_cannot_store_is_refused_or_kept_alike,
    relevance_is_one_score_on_every_engine,
    admin_lists_show_workspaces_agents_and_channels,
    a_bare_handle_is_named_with_its_at_only_when_it_exists,
);

struct World<E: Engine> {
    store: E,
    _place: E::Place,
    alice: Principal,
    bob: Principal,
    /// An agent of another workspace.
    mallory: Principal,
}

fn world<E: Engine>() -> World<E> {
    let place = E::place();
    let store = E::open(&place);
    let ws = block(store.create_workspace("w")).unwrap();
    let other = block(store.create_workspace("other")).unwrap();
    let agent = |ws: &str, handle: &str| {
        let (_, hash) = crate::runtime::auth::new_token().unwrap();
        block(store.create_agent(ws, handle, &NewToken::new(hash))).unwrap();
        block(store.find_agent(ws, &format!("@{handle}")))
            .unwrap()
            .unwrap()
    };
    let alice = agent(&ws, "alice");
    let bob = agent(&ws, "bob");
    agent(&ws, "carol");
    let mallory = agent(&other, "mallory");
    block(store.create_channel(&ws, "eng", None)).unwrap();
    block(store.create_channel(&ws, "ops", None)).unwrap();
    block(store.create_channel(&ws, "secret", Some(&["@alice".to_string()]))).unwrap();
    block(store.create_channel(&other, "eng", None)).unwrap();
    World {
        store,
        _place: place,
        alice,
        bob,
        mallory,
    }
}

impl<E: Engine> World<E> {
    /// The same world on the store `open` opens once this one is closed.
    fn reopen(self, open: impl FnOnce(&E::Place) -> E) -> World<E> {
        let World {
            store,
            _place,
            alice,
            bob,
            mallory,
        } = self;
        drop(store);
        World {
            store: open(&_place),
            _place,
            alice,
            bob,
            mallory,
        }
    }

    fn call_with(
        &self,
        who: &Principal,
        verb: &str,
        input: Value,
        workflow: &WorkflowContext,
    ) -> Result<Value, Failure> {
        let action = find("task", verb).unwrap();
        let input = crate::validate::validate(action, input)?;
        declared(
            action,
            block(dispatch(&self.store, action, who, input, workflow)),
        )
    }

    fn call(&self, who: &Principal, verb: &str, input: Value) -> Result<Value, Failure> {
        self.call_with(who, verb, input, &WorkflowContext::default())
    }

    fn ok(&self, who: &Principal, verb: &str, input: Value) -> Value {
        self.call(who, verb, input.clone())
            .unwrap_or_else(|f| panic!("{verb} {input}: {f:?}"))
    }

    fn err(&self, who: &Principal, verb: &str, input: Value) -> Failure {
        match self.call(who, verb, input.clone()) {
            Ok(v) => panic!("{verb} {input} succeeded: {v}"),
            Err(f) => f,
        }
    }

    /// Runs a `{tool, arguments}` call (a suggested action, a section's
    /// `next`) exactly as given.
    fn follow(&self, who: &Principal, call: &Value) -> Result<Value, Failure> {
        let action = crate::registry::find_by_name(call["tool"].as_str().unwrap()).unwrap();
        let input = crate::validate::validate(action, call["arguments"].clone())?;
        declared(
            action,
            block(dispatch(
                &self.store,
                action,
                who,
                input,
                &WorkflowContext::default(),
            )),
        )
    }

    /// Asserts that alice's `task_list` of `input` answers an empty page
    /// naming, in `field`, the call of `arguments`, and that the call
    /// finds exactly task `found`.
    fn names_call(&self, field: &str, input: &Value, arguments: Value, found: i64) {
        let page = self.ok(&self.alice, "list", input.clone());
        assert_eq!(items_of(&page), Vec::<i64>::new(), "{input}");
        assert_eq!(
            page[field],
            json!({"tool": "task_list", "arguments": arguments}),
            "{input}"
        );
        let followed = self.follow(&self.alice, &page[field]).unwrap();
        assert_eq!(items_of(&followed), [found], "{input}");
    }

    /// Asserts that alice's `task_list` of each of `inputs` answers an
    /// empty page that names nothing in `field`.
    fn names_no_call(&self, field: &str, inputs: &[Value]) {
        for input in inputs {
            let page = self.ok(&self.alice, "list", input.clone());
            assert_eq!(items_of(&page), Vec::<i64>::new(), "{input}");
            assert!(page.get(field).is_none(), "{input}: {page}");
        }
    }

    fn suggestion(failure: &Failure) -> Value {
        let action = failure
            .suggested_action
            .as_ref()
            .unwrap_or_else(|| panic!("{failure:?} suggests nothing"));
        json!({"tool": action.tool, "arguments": action.arguments})
    }

    fn create(&self, who: &Principal, input: Value) -> Vec<Value> {
        self.ok(who, "create", input)["tasks"]
            .as_array()
            .unwrap()
            .clone()
    }

    /// Tasks 1 "Release notes" and 2 "Deployment checklist", described
    /// "see the studies", on board `eng`: words with other forms in the
    /// title and in the description.
    fn releases_and_deployments(&self) {
        self.titles(
            &self.alice,
            "eng",
            &["Release notes", "Deployment checklist"],
        );
        self.ok(
            &self.alice,
            "update",
            json!({"channel": "eng", "number": 2, "description": "see the studies"}),
        );
    }

    fn titles(&self, who: &Principal, channel: &str, titles: &[&str]) -> Vec<i64> {
        let tasks: Vec<Value> = titles.iter().map(|t| json!({"title": t})).collect();
        numbers(&self.create(who, json!({"channel": channel, "tasks": tasks})))
    }
}

/// `result`, once its refusal (if any) is checked to be one the action's
/// registry entry declares (`Action::refusals`, which the OpenAPI
/// description lists) or one every call can get: every refusal a test here
/// provokes checks the registry.
fn declared(action: &Action, result: Result<Value, Failure>) -> Result<Value, Failure> {
    if let Err(failure) = &result {
        let any_call = &crate::registry::ANY_CALL_REFUSALS;
        let known = action.refusals.iter().chain(any_call);
        assert!(
            known.into_iter().any(|c| c.code == failure.code),
            "{} answered `{}`, which its registry entry does not declare",
            action.name(),
            failure.code
        );
    }
    result
}

fn numbers(items: &[Value]) -> Vec<i64> {
    items
        .iter()
        .map(|t| t["number"].as_i64().unwrap())
        .collect()
}

fn items_of(page: &Value) -> Vec<i64> {
    numbers(page["items"].as_array().unwrap())
}

fn numbers_are_board_local_gapless_and_never_reused<E: Engine>() {
    let w = world::<E>();
    assert_eq!(w.titles(&w.alice, "eng", &["a", "b"]), [1, 2]);
    assert_eq!(w.titles(&w.alice, "ops", &["x"]), [1]);
    w.ok(&w.alice, "delete", json!({"channel": "eng", "number": 2}));
    assert_eq!(w.titles(&w.alice, "eng", &["c"]), [3]);
    // Another workspace's `eng` is another board.
    assert_eq!(w.titles(&w.mallory, "eng", &["m"]), [1]);
    let f = w.err(&w.alice, "get", json!({"channel": "eng", "number": 2}));
    assert_eq!((f.code.as_str(), f.http_status), ("task_not_found", 404));
    assert!(f.message.contains("was deleted") && f.candidate_list().is_empty());
    // For a number never used, the nearest live tasks are the candidates,
    // on every engine alike.
    let f = w.err(&w.alice, "get", json!({"channel": "eng", "number": 4}));
    assert_eq!((f.code.as_str(), f.http_status), ("task_not_found", 404));
    let near: Vec<(String, Value)> = f
        .candidate_list()
        .iter()
        .map(|c| (c.field.clone(), c.value.clone()))
        .collect();
    assert_eq!(
        near,
        [
            ("number".to_string(), json!(3)),
            ("number".to_string(), json!(1))
        ]
    );
    let f = w.err(
        &w.alice,
        "create",
        json!({"channel": "nope", "tasks": [{"title": "t"}]}),
    );
    assert_eq!((f.code.as_str(), f.http_status), ("channel_not_found", 404));
    assert_eq!(w.store.events("created"), 5);
    assert_eq!(w.store.events("deleted"), 1);
}

fn a_rich_task_keeps_every_field_and_defaults<E: Engine>() {
    let w = world::<E>();
    let task = &w.create(
        &w.alice,
        json!({"channel": "eng", "tasks": [{"title": "Rich", "description": "d", "status": "in_progress",
            "priority": "high", "assignee": "@bob", "labels": ["x", "y"], "checklist": [{"text": "one"}],
            "urls": ["https://e.x/1"], "attachments": [{"name": "f.png", "url": "https://e.x/f.png"}],
            "blocker": "waiting"}]}),
    )[0];
    assert_eq!(task["assignee"], "@bob");
    assert_eq!(task["created_by"], "@alice");
    assert_eq!(task["created_at"], task["updated_at"]);
    let got = w.ok(&w.alice, "get", json!({"channel": "eng", "number": 1}));
    // The answer, built from what the create knew, is what was stored.
    for (key, value) in task.as_object().unwrap() {
        assert_eq!(&got[key], value, "{key}: {got}");
    }
    assert_eq!(got["checklist"], json!([{"text": "one", "done": false}]));
    assert_eq!(
        got["attachments"],
        json!([{"name": "f.png", "url": "https://e.x/f.png", "media_type": null, "size_bytes": null}])
    );
    assert_eq!(got["blocker"], "waiting");
    assert_eq!(got["status"], "in_progress");
    let plain = &w.create(
        &w.alice,
        json!({"channel": "eng", "tasks": [{"title": "Plain"}]}),
    )[0];
    assert_eq!(
        (plain["status"].as_str(), plain["priority"].as_str()),
        (Some("todo"), Some("none"))
    );
    // An unknown assignee refuses the whole create: no number is consumed.
    let f = w.err(
        &w.alice,
        "create",
        json!({"channel": "eng", "tasks": [{"title": "t", "assignee": "@nobody"}]}),
    );
    assert_eq!(
        (f.code.as_str(), f.http_status),
        ("assignee_not_found", 422)
    );
    assert!(f.field_errors.contains_key("tasks/0/assignee"));
    assert_eq!(w.titles(&w.alice, "eng", &["next"]), [3]);
}

fn subtasks_by_parent_number_and_by_task_scope<E: Engine>() {
    let w = world::<E>();
    let parent = w.create(
        &w.alice,
        json!({"channel": "eng", "tasks": [{"title": "P"}]}),
    )[0]
    .clone();
    let kids = w.create(
        &w.alice,
        json!({"channel": "eng", "parent": 1, "tasks": [{"title": "k1"}, {"title": "k2"}]}),
    );
    assert!(kids.iter().all(|k| k["parent_number"] == 1));
    let scoped = w.create(
        &w.bob,
        json!({"parent_task_scope": {"kind": "task", "scope_id": parent["scope_id"]}, "tasks": [{"title": "k3"}]}),
    );
    assert_eq!(
        (
            scoped[0]["number"].as_i64(),
            scoped[0]["parent_number"].as_i64()
        ),
        (Some(4), Some(1))
    );
    assert_eq!(scoped[0]["channel"], "eng");

    let f = w.err(
        &w.alice,
        "create",
        json!({"channel": "eng", "parent": 99, "tasks": [{"title": "x"}]}),
    );
    assert_eq!((f.code.as_str(), f.http_status), ("parent_not_found", 404));
    for scope in ["tsk_00000000000000000000000000000000", "not-a-scope"] {
        let f = w.err(
            &w.alice,
            "create",
            json!({"parent_task_scope": {"kind": "task", "scope_id": scope}, "tasks": [{"title": "x"}]}),
        );
        assert_eq!(
            (f.code.as_str(), f.http_status),
            ("task_scope_not_found", 404)
        );
    }
    // Another workspace cannot tell the scope exists.
    let f = w.err(
        &w.mallory,
        "create",
        json!({"parent_task_scope": {"kind": "task", "scope_id": parent["scope_id"]}, "tasks": [{"title": "x"}]}),
    );
    assert_eq!(f.code, "task_scope_not_found");
    // A non-task kind is refused by the schema.
    let f = w.err(
        &w.alice,
        "create",
        json!({"parent_task_scope": {"kind": "thread", "scope_id": parent["scope_id"]}, "tasks": [{"title": "x"}]}),
    );
    assert_eq!(f.code, "invalid_input");
    // A private board's scope is as unknown to a non-member as a made-up one.
    let secret = w.create(
        &w.alice,
        json!({"channel": "secret", "tasks": [{"title": "s"}]}),
    )[0]
    .clone();
    let f = w.err(
        &w.bob,
        "create",
        json!({"parent_task_scope": {"kind": "task", "scope_id": secret["scope_id"]}, "tasks": [{"title": "x"}]}),
    );
    assert_eq!(
        (f.code.as_str(), f.http_status),
        ("task_scope_not_found", 404)
    );
    // A deleted parent's scope is gone; nothing was written by the refusals.
    w.ok(
        &w.alice,
        "delete",
        json!({"channel": "secret", "number": 1}),
    );
    let f = w.err(
        &w.alice,
        "create",
        json!({"parent_task_scope": {"kind": "task", "scope_id": secret["scope_id"]}, "tasks": [{"title": "x"}]}),
    );
    assert_eq!(f.code, "task_scope_not_found");
    // Said to be deleted to one who may use its board, with the board's
    // live tasks as the way on; to a non-member, as unknown as before.
    assert!(
        f.message
            .starts_with("parent_task_scope names task #1 on board `secret`, which was deleted"),
        "{f:?}"
    );
    assert_eq!(f.field_errors["parent_task_scope/scope_id"], "Deleted.");
    w.follow(&w.alice, &World::<E>::suggestion(&f)).unwrap();
    let f = w.err(
        &w.bob,
        "create",
        json!({"parent_task_scope": {"kind": "task", "scope_id": secret["scope_id"]}, "tasks": [{"title": "x"}]}),
    );
    assert!(!f.message.contains("deleted"), "{f:?}");
    // A task scope takes subtasks only while its task is active; a closed
    // task still takes them by board and number, as the refusal says.
    let by_scope = json!({"parent_task_scope": {"kind": "task", "scope_id": parent["scope_id"]}, "tasks": [{"title": "x"}]});
    for status in ["done", "canceled"] {
        w.ok(
            &w.alice,
            "update",
            json!({"channel": "eng", "number": 1, "status": status}),
        );
        let f = w.err(&w.bob, "create", by_scope.clone());
        assert_eq!(
            (f.code.as_str(), f.http_status, f.retryable),
            ("task_scope_closed", 409, false)
        );
        assert!(
            f.message
                .contains(r#"Give "channel": "eng", "parent": 1 instead"#),
            "{}",
            f.message
        );
        assert_eq!(f.details["status"], status);
        // Its suggestion is that very call, and it runs.
        let suggested = serde_json::to_value(f.suggested_action.unwrap()).unwrap();
        assert_eq!(
            suggested,
            json!({"tool": "task_create", "arguments": {"channel": "eng", "parent": 1, "tasks": [{"title": "x"}]}})
        );
        let made = w.follow(&w.bob, &suggested).unwrap();
        assert_eq!(made["tasks"][0]["parent_number"], 1, "{made}");
    }
    w.ok(
        &w.alice,
        "update",
        json!({"channel": "eng", "number": 1, "status": "in_review"}),
    );
    assert_eq!(w.create(&w.bob, by_scope)[0]["number"], 7);
    assert_eq!(w.titles(&w.alice, "eng", &["after"]), [8]);
}

fn target_is_provenance_on_the_same_board<E: Engine>() {
    let w = world::<E>();
    w.create(
        &w.alice,
        json!({"channel": "eng", "target": "#eng:th_1", "tasks": [{"title": "t"}]}),
    );
    let got = w.ok(&w.alice, "get", json!({"channel": "eng", "number": 1}));
    assert_eq!(got["source_target"], "#eng:th_1");
    let f = w.err(
        &w.alice,
        "create",
        json!({"channel": "eng", "target": "#ops:th_1", "tasks": [{"title": "t"}]}),
    );
    assert_eq!((f.code.as_str(), f.http_status), ("target_conflict", 422));
    assert!(f.field_errors.contains_key("target"));
    assert!(
        f.message
            .contains("Give a thread of board `eng` (`#eng:THREAD_ID`), or leave target out"),
        "{f:?}"
    );
    let f = w.err(
        &w.alice,
        "create",
        json!({"parent_task_scope": {"kind": "task", "scope_id": got["scope_id"]}, "target": "#ops:th_1", "tasks": [{"title": "t"}]}),
    );
    assert_eq!(f.code, "target_conflict");
    assert_eq!(w.titles(&w.alice, "eng", &["n"]), [2]);
}

/// A conflict names the tasks its key made that are still live: a deleted
/// one takes no `task_update` (the regression hunt followed the advice to
/// a `task_not_found`).
fn an_idempotency_conflict_names_only_the_live_tasks_its_key_made<E: Engine>() {
    let w = world::<E>();
    let (_, ctx) = alices_callback(&w);
    let input = json!({"channel": "eng", "tasks": [{"title": "a"}, {"title": "b"}], "idempotency_key": "k"});
    w.call_with(&w.alice, "create", input, &ctx).unwrap();
    w.ok(&w.alice, "delete", json!({"channel": "eng", "number": 2}));
    let changed = json!({"channel": "eng", "tasks": [{"title": "c"}], "idempotency_key": "k"});
    let f = w
        .call_with(&w.alice, "create", changed.clone(), &ctx)
        .unwrap_err();
    assert_eq!(f.details["made_numbers"], json!([1]), "{f:?}");
    assert!(
        f.field_errors["idempotency_key"].ends_with("It made #1: to correct that, task_update #1."),
        "{f:?}"
    );
    w.ok(&w.alice, "delete", json!({"channel": "eng", "number": 1}));
    let f = w.call_with(&w.alice, "create", changed, &ctx).unwrap_err();
    assert!(!f.details.contains_key("made_numbers"), "{f:?}");
    assert_eq!(
        f.field_errors["idempotency_key"],
        "Used before with other input; use a new key."
    );
}

/// A workflow callback opened for alice, and the context a keyed create
/// inside it carries.
fn alices_callback<E: Engine>(w: &World<E>) -> (Callback, WorkflowContext) {
    let cb = block(
        w.store
            .open_callback(&w.alice.workspace_id, &w.alice.agent_id),
    )
    .unwrap();
    let ctx = WorkflowContext {
        workflow_run_id: Some(cb.workflow_run_id.clone()),
        callback_effect_id: Some(cb.callback_effect_id.clone()),
    };
    (cb, ctx)
}

fn idempotency_receipts<E: Engine>() {
    let w = world::<E>();
    let ws = &w.alice.workspace_id;
    let (cb, ctx) = alices_callback(&w);
    let input = json!({"channel": "eng", "tasks": [{"title": "a"}, {"title": "b"}], "idempotency_key": "k1"});
    // Without callback context the key is refused and nothing is written.
    let f = w.call(&w.alice, "create", input.clone()).unwrap_err();
    assert_eq!(
        (f.code.as_str(), f.http_status),
        ("callback_not_active", 422)
    );
    assert!(f.field_errors.contains_key("idempotency_key"));
    assert!(
        f.message.contains("send it without idempotency_key"),
        "{f:?}"
    );
    // Half of the context is no context: said as such, not as none given.
    let half = WorkflowContext {
        workflow_run_id: None,
        callback_effect_id: Some(cb.callback_effect_id.clone()),
    };
    let f = w
        .call_with(&w.alice, "create", input.clone(), &half)
        .unwrap_err();
    assert!(f.message.contains("did not carry both"), "{f:?}");
    // Another agent cannot answer alice's callback; a wrong run id neither.
    let f = w
        .call_with(&w.bob, "create", input.clone(), &ctx)
        .unwrap_err();
    assert_eq!(f.code, "callback_not_active");
    let wrong_run = WorkflowContext {
        workflow_run_id: Some("run_other".into()),
        ..ctx.clone()
    };
    assert_eq!(
        w.call_with(&w.alice, "create", input.clone(), &wrong_run)
            .unwrap_err()
            .code,
        "callback_not_active"
    );

    let first = w
        .call_with(&w.alice, "create", input.clone(), &ctx)
        .unwrap();
    assert_eq!(
        (
            numbers(first["tasks"].as_array().unwrap()),
            &first["reused"]
        ),
        (vec![1, 2], &json!(false))
    );
    // The key is trimmed before it is matched.
    let mut spaced = input.clone();
    spaced["idempotency_key"] = json!("  k1 ");
    let replay = w.call_with(&w.alice, "create", spaced, &ctx).unwrap();
    assert_eq!(replay["reused"], true);
    assert_eq!(replay["tasks"], first["tasks"]);
    // A changed payload, locator or target conflicts.
    for changed in [
        json!({"channel": "eng", "tasks": [{"title": "a"}], "idempotency_key": "k1"}),
        json!({"channel": "ops", "tasks": [{"title": "a"}, {"title": "b"}], "idempotency_key": "k1"}),
        json!({"channel": "eng", "target": "#eng:t", "tasks": [{"title": "a"}, {"title": "b"}], "idempotency_key": "k1"}),
    ] {
        let f = w.call_with(&w.alice, "create", changed, &ctx).unwrap_err();
        assert_eq!(
            (f.code.as_str(), f.http_status),
            ("idempotency_conflict", 409)
        );
        // What the key made is named, so a correction goes to it rather
        // than making another task under a new key.
        assert_eq!(
            f.field_errors["idempotency_key"],
            "Used before with other input; use a new key. It made #1, #2: to correct that, task_update #1."
        );
        assert_eq!(f.details["made_numbers"], json!([1, 2]));
        assert!(f.message.contains("this call did nothing"), "{f:?}");
    }
    // Semantically identical inputs are one intent: defaults written out or
    // left out, labels in any order, a key padded past its length limit.
    let key = format!(" {} ", "r".repeat(128));
    let rich = w
        .call_with(
            &w.alice,
            "create",
            json!({"channel": "eng", "idempotency_key": key, "tasks": [{"title": "r", "labels": ["b", "a"],
                   "checklist": [{"text": "x"}]}]}),
            &ctx,
        )
        .unwrap();
    for same in [
        json!({"channel": "eng", "idempotency_key": key, "tasks": [{"title": "r", "labels": ["a", "b"],
               "status": "todo", "priority": "none", "urls": [], "checklist": [{"text": "x", "done": false}]}]}),
        json!({"channel": "eng", "idempotency_key": key.trim(), "tasks": [{"title": "r", "attachments": [],
               "labels": ["a", "b"], "checklist": [{"text": "x"}]}]}),
    ] {
        let replay = w.call_with(&w.alice, "create", same, &ctx).unwrap();
        assert_eq!(
            (&replay["reused"], &replay["tasks"]),
            (&json!(true), &rich["tasks"])
        );
    }
    let f = w
        .call_with(
            &w.alice,
            "create",
            json!({"channel": "eng", "idempotency_key": key, "tasks": [{"title": "r", "labels": ["a", "b"],
                   "status": "in_progress", "checklist": [{"text": "x"}]}]}),
            &ctx,
        )
        .unwrap_err();
    assert_eq!(f.code, "idempotency_conflict");
    // After completion: replay still works, a new key does not.
    block(w.store.complete_callback(ws, &cb.callback_effect_id)).unwrap();
    let late = w
        .call_with(&w.alice, "create", input.clone(), &ctx)
        .unwrap();
    assert_eq!(
        (late["reused"].clone(), late["tasks"].clone()),
        (json!(true), first["tasks"].clone())
    );
    let mut fresh = input.clone();
    fresh["idempotency_key"] = json!("k2");
    let f = w.call_with(&w.alice, "create", fresh, &ctx).unwrap_err();
    assert_eq!(f.code, "callback_not_active");
    assert!(f.message.contains("without idempotency_key"), "{f:?}");
    // A changed payload now: a new key would fail as above, so the way
    // out is the call without one.
    let mut changed = input.clone();
    changed["tasks"] = json!([{"title": "changed"}]);
    let f = w.call_with(&w.alice, "create", changed, &ctx).unwrap_err();
    assert_eq!(f.code, "idempotency_conflict");
    assert!(
        f.field_errors["idempotency_key"]
            .contains("send the call without idempotency_key. It made #1, #2"),
        "{f:?}"
    );
    // Replays allocated nothing and recorded nothing.
    assert_eq!(w.store.events("created"), 3);
    assert_eq!(w.titles(&w.alice, "eng", &["c"]), [4]);
    // A task deleted since is still one of the original tasks, and said
    // to be deleted: no other answer shows it as live.
    assert!(late.get("deleted_numbers").is_none(), "{late}");
    w.ok(&w.alice, "delete", json!({"channel": "eng", "number": 2}));
    let after = w
        .call_with(&w.alice, "create", input.clone(), &ctx)
        .unwrap();
    assert_eq!(after["tasks"], first["tasks"]);
    assert_eq!(after["deleted_numbers"], json!([2]), "{after}");
}

/// A checkpoint's idempotency_key (§7.2) replays the original checkpoint
/// at any time, keyed by agent and task; another summary conflicts.
fn checkpoint_keys_replay_per_agent_and_task<E: Engine>() {
    let w = world::<E>();
    w.titles(&w.alice, "eng", &["a", "b"]);
    let input =
        json!({"channel": "eng", "number": 1, "summary": "handed off", "idempotency_key": "k1"});
    let first = w.ok(&w.alice, "checkpoint", input.clone());
    assert_eq!(first["reused"], false);
    // The key is trimmed before it is matched; the replay is the original.
    let mut spaced = input.clone();
    spaced["idempotency_key"] = json!("  k1 ");
    let replay = w.ok(&w.alice, "checkpoint", spaced);
    assert_eq!(replay["reused"], true);
    assert_eq!(replay["checkpoint"], first["checkpoint"]);
    assert_eq!(replay["task"], first["task"]);
    let mut changed = input.clone();
    changed["summary"] = json!("handed back");
    let f = w.err(&w.alice, "checkpoint", changed);
    assert_eq!(
        (f.code.as_str(), f.http_status),
        ("idempotency_conflict", 409)
    );
    // What the key recorded, so a reworded retry is known for it.
    assert_eq!(f.details["checkpoint_id"], first["checkpoint"]["id"]);
    assert!(
        f.field_errors["idempotency_key"].contains("\"handed off\"")
            && f.field_errors["idempotency_key"].contains("already recorded"),
        "{f:?}"
    );
    // The same key on another task, or by another agent, is its own.
    let mut on_two = input.clone();
    on_two["number"] = json!(2);
    assert_eq!(w.ok(&w.alice, "checkpoint", on_two)["reused"], false);
    let by_bob = w.ok(&w.bob, "checkpoint", input.clone());
    assert_eq!(by_bob["reused"], false);
    assert_ne!(by_bob["checkpoint"]["id"], first["checkpoint"]["id"]);
    // Without a key every call appends.
    let plain = json!({"channel": "eng", "number": 1, "summary": "handed off"});
    w.ok(&w.alice, "checkpoint", plain.clone());
    w.ok(&w.alice, "checkpoint", plain);
    // The replay and the conflict appended and recorded nothing.
    assert_eq!(w.store.events("checkpointed"), 5);
    let detail = w.ok(&w.alice, "get", json!({"channel": "eng", "number": 1}));
    assert_eq!(detail["checkpoints"]["total"], 4);
}

/// The ids of a task's checkpoints, newest first, as its get shows them.
fn checkpoint_ids<E: Engine>(w: &World<E>, who: &Principal, number: i64) -> Vec<i64> {
    let detail = w.ok(who, "get", json!({"channel": "eng", "number": number}));
    detail["checkpoints"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_i64().unwrap())
        .collect()
}

/// An update that sets a task done or canceled while subtasks of it are
/// open names the list of them (`open_subtasks_match`): closing the parent
/// leaves them open, which the answer would otherwise not show.
fn closing_a_task_over_open_subtasks_names_the_call_that_lists_them<E: Engine>() {
    let w = world::<E>();
    w.titles(&w.alice, "eng", &["parent", "other"]);
    let sub = json!({"channel": "eng", "parent": 1, "tasks": [{"title": "s1"}, {"title": "s2"}]});
    w.ok(&w.alice, "create", sub);
    let set = |number: i64, status: &str| {
        let input = json!({"channel": "eng", "number": number, "status": status});
        w.ok(&w.alice, "update", input)
    };
    set(3, "done");
    let closed = set(1, "done");
    let call = &closed[crate::registry::task::fields::OPEN_SUBTASKS_MATCH];
    assert_eq!(
        call,
        &json!({"tool": "task_list", "arguments": {"channel": "eng", "filters": {"parent": 1}}}),
        "{closed}"
    );
    let listed = w.ok(&w.alice, "list", call["arguments"].clone());
    let numbers: Vec<&Value> = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["number"])
        .collect();
    assert_eq!(numbers, [4], "the open subtask alone: {listed}");
    // Another change, a task with no subtasks, or every subtask closed:
    // nothing named.
    for (number, status) in [
        (1, "in_progress"),
        (2, "canceled"),
        (4, "canceled"),
        (1, "done"),
    ] {
        let answer = set(number, status);
        assert!(
            answer
                .get(crate::registry::task::fields::OPEN_SUBTASKS_MATCH)
                .is_none(),
            "#{number} {status}: {answer}"
        );
    }
}

/// A checkpoint's id is its number within its task, as a task's is within
/// its board: what other tasks and other workspaces append never shows in
/// it, so no caller can count them.
fn checkpoints_are_numbered_within_their_task<E: Engine>() {
    let w = world::<E>();
    w.titles(&w.alice, "eng", &["a", "b"]);
    w.titles(&w.mallory, "eng", &["theirs"]);
    let append = |who: &Principal, number: i64| {
        let input = json!({"channel": "eng", "number": number, "summary": "step"});
        w.ok(who, "checkpoint", input)["checkpoint"]["id"]
            .as_i64()
            .unwrap()
    };
    assert_eq!(append(&w.alice, 1), 1);
    for _ in 0..3 {
        append(&w.mallory, 1);
    }
    assert_eq!(append(&w.bob, 2), 1);
    assert_eq!(
        append(&w.bob, 1),
        2,
        "another workspace's and task's unseen"
    );
    assert_eq!(append(&w.mallory, 1), 4);
    assert_eq!(checkpoint_ids(&w, &w.alice, 1), [2, 1]);
    assert_eq!(checkpoint_ids(&w, &w.alice, 2), [1]);
    // A keyed replay answers the number it was given.
    let keyed = json!({"channel": "eng", "number": 2, "summary": "k", "idempotency_key": "k"});
    let first = w.ok(&w.alice, "checkpoint", keyed.clone());
    assert_eq!(first["checkpoint"]["id"], 2);
    assert_eq!(w.ok(&w.alice, "checkpoint", keyed)["checkpoint"]["id"], 2);
    // `checkpoints_before` pages by these numbers.
    for _ in 0..6 {
        append(&w.alice, 1);
    }
    assert_eq!(checkpoint_ids(&w, &w.alice, 1), [8, 7, 6, 5, 4]);
    let older = w.ok(
        &w.alice,
        "get",
        json!({"channel": "eng", "number": 1, "checkpoints_before": 4}),
    );
    assert_eq!(older["checkpoints"]["items"][0]["id"], 3);
    assert_eq!(older["checkpoints"]["total"], 3);
}

/// An upgraded store numbers the checkpoints it holds within their task,
/// in the order they were appended, and goes on from there.
fn an_upgrade_numbers_stored_checkpoints_within_their_task<E: Engine>() {
    let w = world::<E>();
    w.titles(&w.alice, "eng", &["a", "b"]);
    for number in [1, 2, 1, 2, 1] {
        let input = json!({"channel": "eng", "number": number, "summary": "step"});
        w.ok(&w.alice, "checkpoint", input);
    }
    let w = w.reopen(|place| {
        E::before_checkpoint_numbers(place);
        E::open(place)
    });
    let status = block(w.store.schema_status()).unwrap();
    assert_eq!(status.version, status.latest);
    assert_eq!(checkpoint_ids(&w, &w.alice, 1), [3, 2, 1]);
    assert_eq!(checkpoint_ids(&w, &w.alice, 2), [2, 1]);
    let input = json!({"channel": "eng", "number": 2, "summary": "after"});
    assert_eq!(w.ok(&w.bob, "checkpoint", input)["checkpoint"]["id"], 3);
}

fn an_empty_page_names_the_subtasks_it_left_out<E: Engine>() {
    let w = world::<E>();
    w.titles(&w.alice, "eng", &["Fix login timeout", "Write docs"]);
    w.create(
        &w.alice,
        json!({"channel": "eng", "parent": 1, "tasks": [{"title": "Rotate signing keys"}]}),
    );
    let list = |input: Value| w.ok(&w.alice, "list", input);
    // Only the subtask matches: the empty page names the call that finds
    // it, the same input with include_subtasks, and that call does.
    let input = json!({"channel": "eng", "query": "signing", "status": "all", "limit": 5});
    let mut wider = input.clone();
    wider["include_subtasks"] = json!(true);
    w.names_call("subtasks_match", &input, wider, 3);
    // A browse too: a member who holds a subtask alone does not read as
    // holding nothing.
    w.ok(
        &w.alice,
        "update",
        json!({"channel": "eng", "number": 3, "assignee": "@bob"}),
    );
    let input = json!({"channel": "eng", "filters": {"assignee": "@bob"}});
    let mut wider = input.clone();
    wider["include_subtasks"] = json!(true);
    w.names_call("subtasks_match", &input, wider, 3);
    // The default written out, as a tool framework sends every parameter,
    // is no choice: said all the same.
    for input in [
        json!({"channel": "eng", "query": "signing", "status": "all", "include_subtasks": false}),
        json!({"channel": "eng", "filters": {"assignee": "@bob"}, "include_subtasks": false}),
    ] {
        let mut wider = input.clone();
        wider["include_subtasks"] = json!(true);
        w.names_call("subtasks_match", &input, wider, 3);
    }
    // Nothing to say: a top-level task matches, nothing matches at all, or
    // the subtask is not in the view asked for.
    for input in [
        json!({"channel": "eng", "query": "login"}),
        json!({"channel": "eng", "query": "nowhere"}),
        json!({"channel": "eng", "filters": {"assignee": "@carol"}}),
        json!({"channel": "eng", "status": "done"}),
        json!({"channel": "eng", "query": "signing", "status": "done"}),
    ] {
        let page = list(input.clone());
        assert!(page.get("subtasks_match").is_none(), "{input}: {page}");
    }
}

fn an_empty_search_names_the_done_tasks_it_left_out<E: Engine>() {
    let w = world::<E>();
    w.create(
        &w.alice,
        json!({"channel": "eng", "tasks": [{"title": "Rotate signing keys", "status": "done"}]}),
    );
    w.create(
        &w.alice,
        json!({"channel": "eng", "tasks": [{"title": "Drop the staging cluster", "status": "canceled"}]}),
    );
    w.titles(&w.alice, "eng", &["Fix login timeout"]);
    w.create(
        &w.alice,
        json!({"channel": "eng", "parent": 3, "tasks": [{"title": "Staging login check"}]}),
    );
    let list = |input: Value| w.ok(&w.alice, "list", input);
    // Only a done (or a canceled) task matches: the empty page names the
    // call that finds it, the same input with status all, and that call does.
    for (query, number) in [("signing", 1), ("cluster", 2)] {
        let input = json!({"channel": "eng", "query": query, "limit": 5});
        let page = list(input.clone());
        assert_eq!(items_of(&page), Vec::<i64>::new());
        let mut wider = input;
        wider["status"] = json!("all");
        assert_eq!(
            page["closed_match"],
            json!({"tool": "task_list", "arguments": wider})
        );
        assert!(page.get("subtasks_match").is_none(), "{page}");
        assert_eq!(
            items_of(&w.follow(&w.alice, &page["closed_match"]).unwrap()),
            [number]
        );
    }
    // The default status written out is no choice: said all the same.
    let page = list(json!({"channel": "eng", "query": "signing", "status": "active"}));
    assert_eq!(
        items_of(&w.follow(&w.alice, &page["closed_match"]).unwrap()),
        [1]
    );
    // An active subtask and a canceled task both match: the subtask is named
    // first, and only it (its default written out too); with subtasks
    // included and none active, the canceled task.
    for input in [
        json!({"channel": "eng", "query": "staging"}),
        json!({"channel": "eng", "query": "staging", "include_subtasks": false}),
    ] {
        let page = list(input);
        assert!(page.get("subtasks_match").is_some(), "{page}");
        assert!(page.get("closed_match").is_none(), "{page}");
    }
    let page = list(json!({"channel": "eng", "query": "signing", "include_subtasks": true}));
    assert!(page.get("subtasks_match").is_none(), "{page}");
    assert_eq!(
        items_of(&w.follow(&w.alice, &page["closed_match"]).unwrap()),
        [1]
    );
    // Nothing to say: an active task matches, nothing matches at all, the
    // caller chose a status, or a browse.
    for input in [
        json!({"channel": "eng", "query": "login"}),
        json!({"channel": "eng", "query": "nowhere"}),
        json!({"channel": "eng", "query": "signing", "status": "todo"}),
        json!({"channel": "eng"}),
    ] {
        let page = list(input.clone());
        assert!(page.get("closed_match").is_none(), "{input}: {page}");
    }
}

fn an_empty_page_names_the_label_a_filter_mistyped<E: Engine>() {
    let w = world::<E>();
    w.create(
        &w.alice,
        json!({"channel": "eng", "tasks": [{"title": "Fix login timeout", "labels": ["backend", "Bug"]}]}),
    );
    w.create(
        &w.alice,
        json!({"channel": "eng", "tasks": [{"title": "Write docs", "labels": ["docs"]}]}),
    );
    w.create(
        &w.alice,
        json!({"channel": "ops", "tasks": [{"title": "Rotate keys", "labels": ["infra"]}]}),
    );
    let list = |input: Value| w.ok(&w.alice, "list", input);
    // A slip of a label the board has, in a browse and in a search: the
    // same call with the label as the board writes it, which finds it.
    for input in [
        json!({"channel": "eng", "filters": {"labels": ["bgu"]}, "limit": 5}),
        json!({"channel": "eng", "query": "login", "filters": {"labels": ["backend", "bugs"]}}),
    ] {
        let page = list(input.clone());
        assert_eq!(items_of(&page), Vec::<i64>::new(), "{input}");
        let mut meant = input.clone();
        let labels: Vec<Value> = input["filters"]["labels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                if l == "backend" {
                    json!("backend")
                } else {
                    json!("Bug")
                }
            })
            .collect();
        meant["filters"]["labels"] = json!(labels);
        assert_eq!(
            page["labels_match"],
            json!({"tool": "task_list", "arguments": meant}),
            "{input}"
        );
        assert_eq!(
            items_of(&w.follow(&w.alice, &page["labels_match"]).unwrap()),
            [1]
        );
    }
    // Nothing to say: each label is on the board (no task has both), no
    // slip of any (nor of another board's), a page that found tasks (the
    // labels match in either case), or a call with the label meant that
    // finds nothing either.
    for input in [
        json!({"channel": "eng", "filters": {"labels": ["docs", "backend"]}}),
        json!({"channel": "eng", "filters": {"labels": ["frontend"]}}),
        json!({"channel": "eng", "filters": {"labels": ["infr"]}}),
        json!({"channel": "eng", "filters": {"labels": ["BUG"]}}),
        json!({"channel": "eng", "query": "nowhere", "filters": {"labels": ["bgu"]}}),
    ] {
        let page = list(input.clone());
        assert!(page.get("labels_match").is_none(), "{input}: {page}");
    }
    // A label the board has in two cases (`Bug`, `bug`) is one label to a
    // filter, so a slip of it is still told, and the call finds both.
    w.create(
        &w.alice,
        json!({"channel": "eng", "tasks": [{"title": "Triage", "labels": ["bug"]}]}),
    );
    let page = list(json!({"channel": "eng", "filters": {"labels": ["bugs"]}}));
    let mut found = items_of(&w.follow(&w.alice, &page["labels_match"]).unwrap());
    found.sort_unstable();
    assert_eq!(found, [1, 3], "{page}");
}

fn an_empty_search_names_the_filter_its_query_names<E: Engine>() {
    let w = world::<E>();
    w.create(
        &w.alice,
        json!({"channel": "eng", "tasks": [{"title": "Fix login timeout", "labels": ["Frontend"], "assignee": "@bob"}]}),
    );
    w.create(
        &w.alice,
        json!({"channel": "eng", "tasks": [{"title": "Write docs", "status": "in_review", "assignee": "@alice"}]}),
    );
    w.create(
        &w.alice,
        json!({"channel": "eng", "parent": 1, "tasks": [{"title": "Check the proxy", "assignee": "@carol"}]}),
    );
    w.create(
        &w.alice,
        json!({"channel": "ops", "tasks": [{"title": "Café menu", "status": "done"}]}),
    );
    // The whole query is what a filter selects: the same call as a browse
    // with it in that filter (a search's own sort and `all` go with the
    // query), which finds the task.
    for (input, meant, found) in [
        (
            json!({"channel": "eng", "query": "@bob", "sort": "relevance", "limit": 5}),
            json!({"channel": "eng", "filters": {"assignee": "@bob"}, "limit": 5}),
            1,
        ),
        (
            json!({"channel": "eng", "query": "In review"}),
            json!({"channel": "eng", "status": "in_review"}),
            2,
        ),
        (
            json!({"channel": "eng", "query": "frontend", "filters": {"assignee": "@bob"}}),
            json!({"channel": "eng", "filters": {"assignee": "@bob", "labels": ["Frontend"]}}),
            1,
        ),
        // A member who holds a subtask alone: the browse with subtasks.
        (
            json!({"channel": "eng", "query": "@carol"}),
            json!({"channel": "eng", "filters": {"assignee": "@carol"}, "include_subtasks": true}),
            3,
        ),
        // A member among words: the member filtered, the words searched.
        (
            json!({"channel": "eng", "query": "login @bob", "sort": "relevance"}),
            json!({"channel": "eng", "query": "login", "sort": "relevance", "filters": {"assignee": "@bob"}}),
            1,
        ),
        (
            json!({"channel": "eng", "query": "Docs @alice", "status": "all"}),
            json!({"channel": "eng", "query": "Docs", "status": "all", "filters": {"assignee": "@alice"}}),
            2,
        ),
    ] {
        w.names_call("filter_match", &input, meant, found);
    }
    // Nothing to say: a member no one is, a member who holds nothing here,
    // a filter the call gives already (a status too), a word that is no
    // label of this board, a status with no task in it, several words, a
    // browse.
    w.names_no_call(
        "filter_match",
        &[
            json!({"channel": "eng", "query": "@nobody"}),
            json!({"channel": "ops", "query": "@carol"}),
            json!({"channel": "eng", "query": "@bob", "filters": {"assigned_to_me": true}}),
            json!({"channel": "eng", "query": "in review", "status": "todo"}),
            json!({"channel": "eng", "query": "backend"}),
            json!({"channel": "eng", "query": "canceled"}),
            json!({"channel": "eng", "query": "frontend bug"}),
            json!({"channel": "eng", "filters": {"labels": ["docs"]}}),
            // Words the member's tasks do not have; two members.
            json!({"channel": "eng", "query": "@bob docs"}),
            json!({"channel": "eng", "query": "@bob @alice login"}),
        ],
    );
    // A member ref is no words: not searched for on another board, where
    // `men` would match `menu`.
    let no_one = json!({"channel": "eng", "query": "@men", "status": "done"});
    for field in [
        "filter_match",
        "spelling_match",
        "channel_match",
        "words_match",
    ] {
        w.names_no_call(field, std::slice::from_ref(&no_one));
    }
    // A word for the caller is refused before any search (`list::check`):
    // searched, `me` begins `menu`, and others' tasks would read as one's own.
    for query in ["@me", "@me docs"] {
        let f = w.err(&w.alice, "list", json!({"channel": "ops", "query": query}));
        assert!(
            f.field_errors["query"].contains("set `filters.assigned_to_me` to true"),
            "{f:?}"
        );
    }
}

fn an_empty_search_names_the_words_as_the_titles_spell_them<E: Engine>() {
    let w = world::<E>();
    w.titles(
        &w.alice,
        "eng",
        &[
            "Fix login timeout",
            "Write release notes",
            "Pay by card",
            "Empty the cart",
            "Rename the Straße field",
            "Review e-mail templates",
        ],
    );
    w.ok(
        &w.alice,
        "update",
        json!({"channel": "eng", "number": 1, "status": "done"}),
    );
    // Each word no title has that is a slip of exactly one word the titles
    // have: the same call with it spelled as they do, which finds the
    // task (a done one's titles are known too).
    for (input, spelled, found) in [
        (
            json!({"channel": "eng", "query": "lgoin", "status": "all"}),
            "login",
            1,
        ),
        (
            json!({"channel": "eng", "query": "Relase NOTES", "limit": 3}),
            "release NOTES",
            2,
        ),
        (
            json!({"channel": "eng", "query": "writ releese notes"}),
            "write release notes",
            2,
        ),
        // A word whose stem a title's word has is no slip (`logins`); a
        // German street is spelled as the title spells it.
        (
            json!({"channel": "eng", "query": "lgoin logins", "status": "all"}),
            "login logins",
            1,
        ),
        (json!({"channel": "eng", "query": "strasse"}), "straße", 5),
    ] {
        let mut meant = input.clone();
        meant["query"] = json!(spelled);
        w.names_call("spelling_match", &input, meant, found);
    }
    // Nothing to say: a word no slip of any title's (`logout`), a slip of
    // two words as near (`carx`: card, cart), a call spelled right that
    // still finds nothing (login is done: active only), another board's
    // titles, a browse.
    // Nor a word of one or two letters, one slip from every other such
    // word (`me`, `x`: the `e` of `e-mail`).
    w.names_no_call(
        "spelling_match",
        &[
            json!({"channel": "eng", "query": "me"}),
            json!({"channel": "eng", "query": "x"}),
            json!({"channel": "eng", "query": "logout"}),
            json!({"channel": "eng", "query": "carx"}),
            json!({"channel": "eng", "query": "lgoin"}),
            json!({"channel": "ops", "query": "lgoin", "status": "all"}),
            json!({"channel": "eng", "status": "canceled"}),
        ],
    );
}

fn an_empty_search_names_the_word_too_many<E: Engine>() {
    let w = world::<E>();
    w.titles(
        &w.alice,
        "eng",
        &["Fix login timeout", "Write release notes"],
    );
    let list = |input: Value| w.ok(&w.alice, "list", input);
    // One word no task has beside the others: the same call without it,
    // which finds the task; the last word is tried first.
    for (query, fewer) in [
        ("login timeout bug", "login timeout"),
        ("urgent   login timeout", "login timeout"),
        ("release notes login", "release notes"),
    ] {
        let input = json!({"channel": "eng", "query": query, "limit": 5});
        let page = list(input.clone());
        assert_eq!(items_of(&page), Vec::<i64>::new(), "{query}");
        let mut meant = input;
        meant["query"] = json!(fewer);
        assert_eq!(
            page["words_match"],
            json!({"tool": "task_list", "arguments": meant}),
            "{query}"
        );
        assert!(!items_of(&w.follow(&w.alice, &page["words_match"]).unwrap()).is_empty());
    }
    // Nothing to say: one word, two words off, a browse, or a page that
    // found tasks.
    for input in [
        json!({"channel": "eng", "query": "deploy"}),
        json!({"channel": "eng", "query": "login deploy rollback"}),
        json!({"channel": "eng", "query": "login"}),
        json!({"channel": "eng", "status": "done"}),
    ] {
        let page = list(input.clone());
        assert!(page.get("words_match").is_none(), "{input}: {page}");
    }
}

fn an_empty_search_names_the_board_that_has_it<E: Engine>() {
    let w = world::<E>();
    w.titles(&w.alice, "eng", &["Fix login timeout"]);
    w.create(
        &w.alice,
        json!({"channel": "ops", "tasks": [{"title": "Rotate signing keys", "labels": ["infra"]}]}),
    );
    w.titles(
        &w.alice,
        "secret",
        &["Audit signing certificates", "Hidden rollout"],
    );
    let list = |who: &Principal, input: Value| w.ok(who, "list", input);
    // A match on another board: the same call there, the first board by
    // name (`ops` before `secret`), which finds it.
    let input = json!({"channel": "eng", "query": "signing", "limit": 5});
    let page = list(&w.alice, input.clone());
    assert_eq!(items_of(&page), Vec::<i64>::new());
    let mut there = input;
    there["channel"] = json!("ops");
    assert_eq!(
        page["channel_match"],
        json!({"tool": "task_list", "arguments": there})
    );
    assert_eq!(
        items_of(&w.follow(&w.alice, &page["channel_match"]).unwrap()),
        [1]
    );
    // A private board is tried only for its members: bob is not told of
    // `secret`'s task, alice is.
    let input = json!({"channel": "eng", "query": "rollout"});
    assert_eq!(
        list(&w.alice, input.clone())["channel_match"]["arguments"]["channel"],
        "secret"
    );
    assert!(list(&w.bob, input).get("channel_match").is_none());
    // One read asks every board, with the call's filters: a done task on
    // `ops` is no match for the open ones, so `secret`'s is named; a label
    // no task there has, nothing.
    w.create(
        &w.alice,
        json!({"channel": "ops", "tasks": [{"title": "Archive old logs", "status": "done"}]}),
    );
    w.titles(&w.alice, "secret", &["Archive old builds"]);
    let boards = |who: &Principal, input: Value| {
        let query = ListQuery::from_input(who, input).unwrap();
        block(w.store.other_boards_with(who, &query)).unwrap()
    };
    let archive = json!({"channel": "eng", "query": "archive old"});
    assert_eq!(boards(&w.alice, archive.clone()), ["secret"]);
    assert_eq!(
        list(&w.alice, archive)["channel_match"]["arguments"]["channel"],
        "secret"
    );
    let all = json!({"channel": "eng", "query": "archive", "status": "all"});
    assert_eq!(boards(&w.alice, all), ["ops", "secret"]);
    assert_eq!(
        boards(&w.alice, json!({"channel": "eng", "query": "signing"})),
        ["ops", "secret"]
    );
    assert_eq!(
        boards(&w.bob, json!({"channel": "eng", "query": "signing"})),
        ["ops"]
    );
    let labelled =
        |label: &str| json!({"channel": "eng", "query": "signing", "filters": {"labels": [label]}});
    assert_eq!(boards(&w.alice, labelled("INFRA")), ["ops"]);
    assert!(boards(&w.alice, labelled("docs")).is_empty());
    assert!(boards(&w.alice, json!({"channel": "ops", "query": "rotate"})).is_empty());
    // Nothing to say: a match here, none anywhere, a parent's subtasks (a
    // number of this board), a browse (another board's tasks are no match
    // for it), nor another workspace's board.
    for input in [
        json!({"channel": "eng", "query": "login"}),
        json!({"channel": "eng", "filters": {"labels": ["infra"]}}),
        json!({"channel": "eng", "query": "nowhere"}),
        json!({"channel": "eng", "query": "signing", "filters": {"parent": 1}}),
    ] {
        let page = list(&w.alice, input.clone());
        assert!(page.get("channel_match").is_none(), "{input}: {page}");
    }
    let page = list(&w.mallory, json!({"channel": "eng", "query": "signing"}));
    assert!(page.get("channel_match").is_none(), "{page}");
}

fn list_browses_searches_filters_sorts_and_pages<E: Engine>() {
    let w = world::<E>();
    w.create(&w.alice, json!({"channel": "eng", "tasks": [{"title": "Fix login timeout", "labels": ["auth", "bug"]}]}));
    w.create(&w.alice, json!({"channel": "eng", "tasks": [{"title": "Write docs", "description": "about the login flow", "labels": ["docs"]}]}));
    w.create(
        &w.alice,
        json!({"channel": "eng", "tasks": [{"title": "Old thing", "status": "done"}]}),
    );
    w.create(
        &w.alice,
        json!({"channel": "eng", "parent": 1, "tasks": [{"title": "login subtask"}]}),
    );
    w.ok(
        &w.bob,
        "set_claim",
        json!({"channel": "eng", "numbers": [2], "claimed": true}),
    );
    let list = |who: &Principal, input: Value| w.ok(who, "list", input);

    // Browse: active, top-level, most recently updated first.
    assert_eq!(items_of(&list(&w.alice, json!({"channel": "eng"}))), [2, 1]);
    assert_eq!(
        items_of(&list(
            &w.alice,
            json!({"channel": "eng", "include_subtasks": true, "sort": "number_asc"})
        )),
        [1, 2, 4]
    );
    assert_eq!(
        items_of(&list(&w.alice, json!({"channel": "eng", "status": "done"}))),
        [3]
    );
    assert_eq!(
        items_of(&list(
            &w.alice,
            json!({"channel": "eng", "sort": "created_desc"})
        )),
        [2, 1]
    );
    // Search: title and description, prefix words, relevance first (title weighs more).
    let hits = list(&w.alice, json!({"channel": "eng", "query": "login"}));
    assert_eq!(items_of(&hits), [1, 2]);
    assert_eq!(
        items_of(&list(
            &w.alice,
            json!({"channel": "eng", "query": "logi", "include_subtasks": true, "sort": "number_asc"})
        )),
        [1, 2, 4]
    );
    assert_eq!(
        items_of(&list(&w.alice, json!({"channel": "eng", "query": "old"}))),
        Vec::<i64>::new()
    );
    assert_eq!(
        items_of(&list(
            &w.alice,
            json!({"channel": "eng", "query": "old", "status": "all"})
        )),
        [3]
    );
    // Search syntax is no syntax here: around a word it is cut away, and
    // alone it is refused as no word at all (not an empty page).
    let login = items_of(&list(&w.alice, json!({"channel": "eng", "query": "login"})));
    assert!(!login.is_empty());
    assert_eq!(
        items_of(&list(
            &w.alice,
            json!({"channel": "eng", "query": "\"*)( login* -"})
        )),
        items_of(&list(&w.alice, json!({"channel": "eng", "query": "login"}))),
    );
    let refused = w.err(
        &w.alice,
        "list",
        json!({"channel": "eng", "query": "\"*)("}),
    );
    assert_eq!(refused.code, "invalid_input");
    assert!(refused.field_errors.contains_key("query"), "{refused:?}");
    // Filters.
    assert_eq!(
        items_of(&list(
            &w.alice,
            json!({"channel": "eng", "filters": {"assignee": "@bob"}})
        )),
        [2]
    );
    assert_eq!(
        items_of(&list(
            &w.bob,
            json!({"channel": "eng", "filters": {"assigned_to_me": true}})
        )),
        [2]
    );
    assert_eq!(
        items_of(&list(
            &w.alice,
            json!({"channel": "eng", "filters": {"assigned_to_me": true}})
        )),
        Vec::<i64>::new()
    );
    assert_eq!(
        items_of(&list(
            &w.alice,
            json!({"channel": "eng", "filters": {"labels": ["bug", "auth"]}})
        )),
        [1]
    );
    assert_eq!(
        items_of(&list(
            &w.alice,
            json!({"channel": "eng", "filters": {"labels": ["bug", "docs"]}})
        )),
        Vec::<i64>::new()
    );
    // ASCII letters match in either case, as on GitHub.
    assert_eq!(
        items_of(&list(
            &w.alice,
            json!({"channel": "eng", "filters": {"labels": ["BUG", "Auth", "bug"]}})
        )),
        [1]
    );
    // The mine view lists the subtasks the caller holds, unless it asks
    // for top-level tasks only; an assignee filter keeps the default.
    w.ok(
        &w.bob,
        "set_claim",
        json!({"channel": "eng", "numbers": [4], "claimed": true}),
    );
    assert_eq!(
        items_of(&list(
            &w.bob,
            json!({"channel": "eng", "filters": {"assigned_to_me": true}})
        )),
        [4, 2]
    );
    assert_eq!(
        items_of(&list(
            &w.bob,
            json!({"channel": "eng", "include_subtasks": false, "filters": {"assigned_to_me": true}})
        )),
        [2]
    );
    assert_eq!(
        items_of(&list(
            &w.alice,
            json!({"channel": "eng", "filters": {"assignee": "@bob"}})
        )),
        [2]
    );
    // status=all without a query is refused before the store.
    assert_eq!(
        w.err(&w.alice, "list", json!({"channel": "eng", "status": "all"}))
            .code,
        "invalid_input"
    );
}

fn cursors_page_without_gaps_and_are_bound_to_the_query<E: Engine>() {
    let w = world::<E>();
    let titles: Vec<String> = (0..45).map(|i| format!("task {i}")).collect();
    let refs: Vec<&str> = titles.iter().map(String::as_str).collect();
    w.titles(&w.alice, "eng", &refs[..25]);
    w.titles(&w.alice, "eng", &refs[25..]);
    // The default page is 20; pages chain to the end, each task once.
    for (input, sort) in [
        (json!({"channel": "eng"}), None),
        (
            json!({"channel": "eng", "sort": "number_asc"}),
            Some("number_asc"),
        ),
        (
            json!({"channel": "eng", "sort": "created_desc", "limit": 7}),
            None,
        ),
        (
            json!({"channel": "eng", "query": "task", "limit": 10}),
            None,
        ),
    ] {
        let mut seen = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut page_input = input.clone();
            if let Some(c) = &cursor {
                page_input["cursor"] = json!(c);
            }
            let page = w.ok(&w.alice, "list", page_input);
            seen.extend(items_of(&page));
            match page.get("next_cursor").and_then(Value::as_str) {
                Some(c) => cursor = Some(c.to_string()),
                None => break,
            }
        }
        let mut sorted = seen.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted, (1..=45).collect::<Vec<_>>(), "{input}");
        assert_eq!(seen.len(), 45, "{input}");
        if sort == Some("number_asc") {
            assert_eq!(seen, (1..=45).collect::<Vec<_>>());
        }
    }
    let first = w.ok(&w.alice, "list", json!({"channel": "eng"}));
    assert_eq!(items_of(&first).len(), 20);
    let cursor = first["next_cursor"].as_str().unwrap();
    // Another limit keeps the cursor valid; another filter does not.
    let next = w.ok(
        &w.alice,
        "list",
        json!({"channel": "eng", "cursor": cursor, "limit": 100}),
    );
    assert_eq!(items_of(&next).len(), 25);
    assert!(next.get("next_cursor").is_none());
    for changed in [
        json!({"channel": "eng", "cursor": cursor, "status": "done"}),
        json!({"channel": "eng", "cursor": cursor, "include_subtasks": true}),
        json!({"channel": "eng", "cursor": cursor, "sort": "number_asc"}),
        json!({"channel": "eng", "cursor": cursor, "filters": {"labels": ["x"]}}),
        json!({"channel": "ops", "cursor": cursor}),
        json!({"channel": "eng", "cursor": "garbage"}),
    ] {
        let f = w.err(&w.alice, "list", changed.clone());
        assert_eq!(
            (f.code.as_str(), f.http_status),
            ("cursor_invalid", 400),
            "{changed}"
        );
        // The message and the field say the same: malformed, or another
        // query's.
        let malformed = changed["cursor"] == "garbage";
        assert_eq!(f.message.contains("malformed"), malformed, "{f:?}");
        // It suggests what the message says: the same list from its
        // first page, which runs as given.
        let mut first_page = changed.clone();
        first_page.as_object_mut().unwrap().remove("cursor");
        let call = World::<E>::suggestion(&f);
        assert_eq!(call, json!({"tool": "task_list", "arguments": first_page}));
        w.follow(&w.alice, &call).unwrap();
        assert_eq!(
            f.field_errors["cursor"].contains("exactly as given"),
            malformed,
            "{f:?}"
        );
    }
    assert_eq!(
        items_of(&w.ok(&w.alice, "list", json!({"channel": "eng", "limit": 100}))).len(),
        45
    );
}

fn get_bounds_its_sections<E: Engine>() {
    let w = world::<E>();
    w.titles(&w.alice, "eng", &["parent"]);
    let kids: Vec<Value> = (0..25).map(|i| json!({"title": format!("k{i}")})).collect();
    w.create(
        &w.alice,
        json!({"channel": "eng", "parent": 1, "tasks": kids}),
    );
    for i in 0..7 {
        w.ok(
            &w.bob,
            "checkpoint",
            json!({"channel": "eng", "number": 1, "summary": format!("cp {i}")}),
        );
    }
    let got = w.ok(&w.alice, "get", json!({"channel": "eng", "number": 1}));
    assert_eq!(got["subtasks"]["total"], 25);
    assert_eq!(got["subtasks"]["truncated"], true);
    assert_eq!(items_of(&got["subtasks"]), (2..=21).collect::<Vec<_>>());
    let cps = got["checkpoints"]["items"].as_array().unwrap();
    assert_eq!(
        (
            cps.len(),
            &got["checkpoints"]["total"],
            &got["checkpoints"]["truncated"]
        ),
        (5, &json!(7), &json!(true))
    );
    assert_eq!(
        (cps[0]["summary"].as_str(), cps[0]["created_by"].as_str()),
        (Some("cp 6"), Some("@bob"))
    );
    // Checkpoints do not change the task's updated_at.
    assert_eq!(got["updated_at"], got["created_at"]);
    // A cut section marks the whole answer (the CLI's meta.truncated); a
    // whole detail is not marked.
    assert_eq!(got["truncated"], true);
    let whole = w.ok(&w.alice, "get", json!({"channel": "eng", "number": 2}));
    assert!(whole.get("truncated").is_none(), "{whole}");
}

fn cut_sections_name_the_call_that_reads_the_rest<E: Engine>() {
    let w = world::<E>();
    w.titles(&w.alice, "eng", &["parent", "other"]);
    let kids: Vec<Value> = (0..23).map(|i| json!({"title": format!("k{i}")})).collect();
    w.create(
        &w.alice,
        json!({"channel": "eng", "parent": 1, "tasks": kids}),
    );
    // A closed subtask is still a subtask: the rest lists every status.
    w.ok(
        &w.alice,
        "update",
        json!({"channel": "eng", "number": 25, "status": "done"}),
    );
    for i in 0..12 {
        w.ok(
            &w.bob,
            "checkpoint",
            json!({"channel": "eng", "number": 1, "summary": format!("cp {i}")}),
        );
    }
    let got = w.ok(&w.alice, "get", json!({"channel": "eng", "number": 1}));
    assert_eq!(items_of(&got["subtasks"]), (3..=22).collect::<Vec<_>>());
    let next = &got["subtasks"]["next"];
    assert_eq!(next["tool"], "task_list", "{next}");
    let rest = w.follow(&w.alice, next).unwrap();
    assert_eq!(items_of(&rest), [23, 24, 25], "{rest}");
    assert!(rest.get("next_cursor").is_none(), "{rest}");

    // Checkpoints page back five at a time, 12 → 7 → 2, and stop.
    let mut summaries = Vec::new();
    let mut section = got["checkpoints"].clone();
    let mut totals = vec![section["total"].clone()];
    loop {
        for cp in section["items"].as_array().unwrap() {
            summaries.push(cp["summary"].as_str().unwrap().to_string());
        }
        if section["next"].is_null() {
            assert_eq!(section["truncated"], false);
            break;
        }
        assert_eq!(section["truncated"], true);
        assert_eq!(section["next"]["tool"], "task_get");
        section = w.follow(&w.alice, &section["next"]).unwrap()["checkpoints"].clone();
        totals.push(section["total"].clone());
    }
    let expected: Vec<String> = (0..12).rev().map(|i| format!("cp {i}")).collect();
    assert_eq!(summaries, expected);
    assert_eq!(totals, [json!(12), json!(7), json!(2)]);

    // A whole section names no call.
    let other = w.ok(&w.alice, "get", json!({"channel": "eng", "number": 2}));
    assert_eq!(
        (&other["subtasks"]["next"], &other["checkpoints"]["next"]),
        (&Value::Null, &Value::Null)
    );
}

/// A task whose every field is near its bound in characters that JSON
/// escapes to six bytes each (as the schema allows) is cut to its budget,
/// and still shows its newest checkpoint, so each `next` reads further back
/// until every checkpoint was read (a section cut to nothing named the same
/// call again: an endless loop).
fn a_crowded_detail_still_pages_through_every_checkpoint<E: Engine>() {
    let w = world::<E>();
    let wide = |n: usize| "\u{1}".repeat(n);
    let checklist: Vec<Value> = (0..50).map(|_| json!({"text": wide(500)})).collect();
    let attachments: Vec<Value> = (0..20)
        .map(|i| json!({"name": wide(200), "url": format!("https://e.com/{i}/{}", "a".repeat(1900))}))
        .collect();
    w.create(
        &w.alice,
        json!({"channel": "eng", "tasks": [{"title": "big", "description": wide(10_000),
            "checklist": checklist, "attachments": attachments, "blocker": wide(1000)}]}),
    );
    for i in 0..7 {
        w.ok(
            &w.bob,
            "checkpoint",
            json!({"channel": "eng", "number": 1, "summary": format!("{i}{}", wide(3990))}),
        );
    }
    let mut got = w.ok(&w.alice, "get", json!({"channel": "eng", "number": 1}));
    assert_eq!(got["truncated"], true);
    let mut read = Vec::new();
    for _ in 0..7 {
        let items = got["checkpoints"]["items"].as_array().unwrap();
        assert!(
            !items.is_empty(),
            "a page with no checkpoint: {}",
            got["checkpoints"]
        );
        read.extend(
            items
                .iter()
                .map(|cp| cp["summary"].as_str().unwrap()[..1].to_string()),
        );
        let next = got["checkpoints"]["next"].clone();
        if next.is_null() {
            break;
        }
        got = w.follow(&w.alice, &next).unwrap();
    }
    assert_eq!(read, ["6", "5", "4", "3", "2", "1", "0"]);
}

/// A detail's subtask rows are the rows a list of them shows, field for
/// field (PostgreSQL reads them in the same statement as the task, as JSON),
/// and its checkpoints name their author and time.
fn a_detail_shows_its_subtasks_as_a_list_does<E: Engine>() {
    let w = world::<E>();
    w.titles(&w.alice, "eng", &["parent"]);
    w.create(
        &w.alice,
        json!({"channel": "eng", "parent": 1, "tasks": [{"title": "plain"}]}),
    );
    w.create(
        &w.alice,
        json!({"channel": "eng", "parent": 1, "tasks": [
            {"title": "rich", "priority": "high", "assignee": "@bob",
             "labels": ["db", "ütf"], "description": "body", "blocker": "waits"},
        ]}),
    );
    w.ok(
        &w.bob,
        "checkpoint",
        json!({"channel": "eng", "number": 1, "summary": "first, \"quoted\" ✓"}),
    );
    let got = w.ok(&w.alice, "get", json!({"channel": "eng", "number": 1}));
    let listed = w.ok(
        &w.alice,
        "list",
        json!({"channel": "eng", "sort": "number_asc", "filters": {"parent": 1}}),
    );
    assert_eq!(got["subtasks"]["items"], listed["items"], "{got}");
    let labelled = |labels: Value| {
        items_of(&w.ok(
            &w.alice,
            "list",
            json!({"channel": "eng", "filters": {"parent": 1, "labels": labels}}),
        ))
    };
    assert_eq!(labelled(json!(["DB", "ütf"])), [3], "ASCII in either case");
    assert!(labelled(json!(["ÜTF"])).is_empty(), "only ASCII is folded");
    assert_eq!(got["subtasks"]["total"], 2);
    let rich = &got["subtasks"]["items"][1];
    assert_eq!(
        (&rich["assignee"], &rich["labels"], &rich["parent_number"]),
        (&json!("@bob"), &json!(["db", "ütf"]), &json!(1)),
        "{rich}"
    );
    let checkpoint = &got["checkpoints"]["items"][0];
    assert_eq!(checkpoint["summary"], "first, \"quoted\" ✓");
    assert_eq!(checkpoint["created_by"], "@bob");
    // RFC 3339 in UTC, so later sorts later.
    assert!(
        checkpoint["created_at"].as_str() > got["created_at"].as_str(),
        "{got}"
    );
    assert_eq!(got["checkpoints"]["total"], 1);
}

fn list_filters_by_parent<E: Engine>() {
    let w = world::<E>();
    w.titles(&w.alice, "eng", &["p", "q"]);
    w.create(
        &w.alice,
        json!({"channel": "eng", "parent": 1, "tasks": [{"title": "a"}, {"title": "b"}, {"title": "c"}, {"title": "d"}]}),
    );
    w.ok(
        &w.alice,
        "update",
        json!({"channel": "eng", "number": 5, "labels": ["x"]}),
    );
    w.create(
        &w.alice,
        json!({"channel": "eng", "parent": 2, "tasks": [{"title": "e"}]}),
    );
    // A grandchild is not a direct subtask.
    w.create(
        &w.alice,
        json!({"channel": "eng", "parent": 3, "tasks": [{"title": "g"}]}),
    );
    let list = |input: Value| w.ok(&w.alice, "list", input);
    let by = json!({"channel": "eng", "sort": "number_asc", "filters": {"parent": 1}});
    assert_eq!(items_of(&list(by.clone())), [3, 4, 5, 6]);
    assert_eq!(
        items_of(&list(
            json!({"channel": "eng", "filters": {"parent": 1, "labels": ["x"]}})
        )),
        [5]
    );
    // Paged with a cursor, without gaps.
    let mut first = by.clone();
    first["limit"] = json!(3);
    let page = list(first.clone());
    assert_eq!(items_of(&page), [3, 4, 5]);
    let mut second = first.clone();
    second["cursor"] = page["next_cursor"].clone();
    assert_eq!(items_of(&list(second.clone())), [6]);
    // The cursor is bound to the parent.
    second["filters"]["parent"] = json!(2);
    assert_eq!(
        w.err(&w.alice, "list", second.clone()).code,
        "cursor_invalid"
    );
    // A mistyped board is named as such (with the board meant), not as a
    // cursor of another list.
    second["channel"] = json!("egn");
    assert_eq!(
        w.err(&w.alice, "list", second.clone()).code,
        "channel_not_found"
    );
    // Its suggestion keeps a cursor that continues the list on the board
    // meant, and runs as given; one of another list is dropped.
    second["filters"]["parent"] = json!(1);
    let f = w.err(&w.alice, "list", second.clone());
    let call = World::<E>::suggestion(&f);
    assert_eq!(call["arguments"]["cursor"], second["cursor"], "{call}");
    assert_eq!(items_of(&w.follow(&w.alice, &call).unwrap()), [6]);
    second["filters"]["parent"] = json!(2);
    let f = w.err(&w.alice, "list", second);
    assert!(
        World::<E>::suggestion(&f)["arguments"]
            .get("cursor")
            .is_none()
    );
    // Every status, with filters.parent and no query.
    w.ok(
        &w.alice,
        "update",
        json!({"channel": "eng", "number": 4, "status": "canceled"}),
    );
    assert_eq!(items_of(&list(by.clone())), [3, 5, 6]);
    let mut all = by.clone();
    all["status"] = json!("all");
    assert_eq!(items_of(&list(all)), [3, 4, 5, 6]);
    let mut top = by.clone();
    top["include_subtasks"] = json!(false);
    let f = w.err(&w.alice, "list", top);
    assert!(f.field_errors.contains_key("include_subtasks"), "{f:?}");
    // A number that is no live task is refused, with the ones it may have
    // meant: one slip of the finger away first (40 → 4), then the nearest.
    let f = w.err(
        &w.alice,
        "list",
        json!({"channel": "eng", "filters": {"parent": 40}}),
    );
    assert_eq!(f.code, "parent_not_found");
    let values: Vec<&Value> = f.candidate_list().iter().map(|c| &c.value).collect();
    assert_eq!(f.candidate_list()[0].field, "filters/parent");
    assert_eq!(values[0], &json!(4), "{values:?}");
    assert!(values.contains(&&json!(8)), "{values:?}");
}

fn lookup_failures_carry_candidates_and_a_call_that_works<E: Engine>() {
    let w = world::<E>();
    w.titles(&w.alice, "eng", &["one", "two", "three"]);
    let values = |f: &Failure| -> Vec<Value> {
        f.candidate_list().iter().map(|c| c.value.clone()).collect()
    };

    // An unknown board: the boards bob may use, nearest first (not
    // `secret`, which he is no member of), and a call that works.
    let f = w.err(&w.bob, "list", json!({"channel": "engg"}));
    assert_eq!(f.code, "channel_not_found");
    assert_eq!(values(&f), [json!("eng"), json!("ops")]);
    assert!(f.message.ends_with("nearest first."), "{}", f.message);
    assert_eq!(f.candidate_list()[0].field, "channel");
    let call = World::<E>::suggestion(&f);
    assert_eq!(
        call,
        json!({"tool": "task_list", "arguments": {"channel": "eng"}})
    );
    assert_eq!(items_of(&w.follow(&w.bob, &call).unwrap()), [3, 2, 1]);
    // A write on a mistyped board: the same write there, naming the task
    // it would change; none where that board has no such task.
    let f = w.err(
        &w.alice,
        "update",
        json!({"channel": "engg", "number": 2, "status": "done"}),
    );
    assert_eq!(
        World::<E>::suggestion(&f)["arguments"],
        json!({"channel": "eng", "number": 2, "status": "done"})
    );
    assert!(
        f.message
            .ends_with("Task 2 on `eng` is \"two\" (todo): the suggested call changes that task."),
        "{}",
        f.message
    );
    let f = w.err(
        &w.alice,
        "checkpoint",
        json!({"channel": "engg", "number": 9, "summary": "s"}),
    );
    assert!(f.suggested_action.is_none(), "{f:?}");
    assert!(
        f.message.contains("No task 9 is on `eng` either"),
        "{}",
        f.message
    );
    // A private board bob is no member of: refused as a board he may not
    // use, which neither says it exists nor that it does not.
    let f = w.err(&w.bob, "list", json!({"channel": "secret"}));
    assert_eq!(f.code, "channel_not_found");
    assert!(
        f.message
            .starts_with("No board `secret` that this agent may use;"),
        "{}",
        f.message
    );
    // No typo of any board: none is offered as likelier than the rest.
    assert!(
        f.message.contains("none is near that name"),
        "{}",
        f.message
    );
    // A number no board of its name has reached: the boards that have it
    // (those the caller may use, by name) before this board's nearest.
    w.titles(&w.alice, "ops", &["o1", "o2", "o3", "o4", "o5"]);
    w.titles(&w.alice, "secret", &["s1", "s2", "s3", "s4", "s5"]);
    for (who, boards) in [(&w.alice, vec!["ops", "secret"]), (&w.bob, vec!["ops"])] {
        let f = w.err(who, "get", json!({"channel": "eng", "number": 5}));
        let listed = f.candidate_list();
        let mut expected: Vec<(String, Value, Option<String>)> = boards
            .iter()
            .map(|b| ("channel".into(), json!(b), Some(format!("{}5", &b[..1]))))
            .collect();
        expected.push(("number".into(), json!(3), Some("three".into())));
        let got: Vec<(String, Value, Option<String>)> = listed
            .iter()
            .take(expected.len())
            .map(|c| (c.field.clone(), c.value.clone(), c.title.clone()))
            .collect();
        assert_eq!(got, expected, "{}", f.message);
        assert!(
            f.message.contains("other boards with a live #5"),
            "{}",
            f.message
        );
    }
    // Only one other board has it: a read is suggested there (its title
    // says which task it is); with two, or for a write, the board's list.
    let f = w.err(&w.bob, "get", json!({"channel": "eng", "number": 5}));
    let call = World::<E>::suggestion(&f);
    assert_eq!(
        (call["tool"].as_str(), &call["arguments"]),
        (Some("task_get"), &json!({"channel": "ops", "number": 5}))
    );
    assert_eq!(w.follow(&w.bob, &call).unwrap()["title"], "o5");
    let f = w.err(&w.alice, "get", json!({"channel": "eng", "number": 5}));
    assert_eq!(World::<E>::suggestion(&f)["tool"], "task_list");
    let f = w.err(
        &w.bob,
        "checkpoint",
        json!({"channel": "eng", "number": 5, "summary": "s"}),
    );
    assert_eq!(World::<E>::suggestion(&f)["tool"], "task_list");
    // So for a parent, where the input's board is where the subtask goes
    // (a create) or the list looks: the boards that have it first, as
    // `channel`. Not for an update, whose board names the task to change.
    for (verb, input) in [
        (
            "create",
            json!({"channel": "eng", "parent": 5, "tasks": [{"title": "x"}]}),
        ),
        ("list", json!({"channel": "eng", "filters": {"parent": 5}})),
    ] {
        let f = w.err(&w.bob, verb, input);
        assert_eq!(f.code, "parent_not_found", "{verb}");
        let first = &f.candidate_list()[0];
        assert_eq!(
            (first.field.as_str(), &first.value, first.title.as_deref()),
            ("channel", &json!("ops"), Some("o5")),
            "{verb}: {f:?}"
        );
        assert!(
            f.message.contains("other boards with a live #5"),
            "{verb}: {f:?}"
        );
    }
    let f = w.err(
        &w.bob,
        "update",
        json!({"channel": "eng", "number": 1, "parent": 5}),
    );
    assert_eq!(f.code, "parent_not_found");
    assert!(
        f.candidate_list().iter().all(|c| c.field != "channel"),
        "{f:?}"
    );
    // Alice may use `secret` too.
    let f = w.err(&w.alice, "get", json!({"channel": "secrt", "number": 2}));
    assert_eq!(values(&f)[0], json!("secret"));
    // A typo of a board: the same call on the board meant.
    let f = w.err(&w.alice, "get", json!({"channel": "enng", "number": 2}));
    let call = World::<E>::suggestion(&f);
    assert_eq!(call["tool"], "task_get");
    assert_eq!(w.follow(&w.alice, &call).unwrap()["title"], "two");
    // Two letters swapped on a write are a typo too: the same write on
    // the board meant.
    let f = w.err(
        &w.alice,
        "checkpoint",
        json!({"channel": "neg", "number": 2, "summary": "s"}),
    );
    let call = World::<E>::suggestion(&f);
    assert_eq!(
        (call["tool"].as_str(), call["arguments"]["channel"].as_str()),
        (Some("task_checkpoint"), Some("eng"))
    );
    // Never a filled-in delete: the task on the board meant is read.
    let f = w.err(&w.alice, "delete", json!({"channel": "neg", "number": 2}));
    assert_eq!(
        World::<E>::suggestion(&f),
        json!({"tool": "task_get", "arguments": {"channel": "eng", "number": 2}})
    );
    // No typo of any board: no call at all, only the boards it may use.
    // Not a write, not the same number on another board (another task),
    // and not a browse or a search of the nearest, which would be a guess
    // (a search there answers an empty page, read as "no such task").
    for (who, verb, input) in [
        (
            &w.alice,
            "create",
            json!({"channel": "zzzzzz", "tasks": [{"title": "x"}]}),
        ),
        (&w.alice, "get", json!({"channel": "zzzzzz", "number": 2})),
        (&w.bob, "get", json!({"channel": "secret", "number": 2})),
        (
            &w.alice,
            "delete",
            json!({"channel": "zzzzzz", "number": 2}),
        ),
        (&w.alice, "list", json!({"channel": "all", "query": "two"})),
    ] {
        let f = w.err(who, verb, input.clone());
        assert_eq!(f.code, "channel_not_found");
        assert!(f.suggested_action.is_none(), "{verb} {input}: {f:?}");
        assert_eq!(f.candidate_list()[0].field, "channel", "{verb} {input}");
    }

    // An unknown member: the nearest member refs; a typo gets the same
    // call with the member meant, which works.
    let f = w.err(
        &w.alice,
        "create",
        json!({"channel": "eng", "tasks": [{"title": "x", "assignee": "@bobb"}]}),
    );
    assert_eq!(f.code, "assignee_not_found");
    assert_eq!(values(&f)[0], json!("@bob"));
    assert_eq!(f.candidate_list().len(), 3, "{f:?}");
    assert_eq!(f.candidate_list()[0].field, "tasks/0/assignee");
    let call = World::<E>::suggestion(&f);
    assert_eq!(call["tool"], "task_create");
    let created = w.follow(&w.alice, &call).unwrap();
    assert_eq!(created["tasks"][0]["assignee"], "@bob");
    // A list filtered by a member ref that names no one is refused alike,
    // not answered with an empty page; the list of the member meant works.
    let f = w.err(
        &w.alice,
        "list",
        json!({"channel": "eng", "filters": {"assignee": "@bobb"}}),
    );
    assert_eq!(
        (f.code.as_str(), values(&f)[0].clone()),
        ("assignee_not_found", json!("@bob"))
    );
    assert_eq!(f.candidate_list()[0].field, "filters/assignee");
    let call = World::<E>::suggestion(&f);
    assert_eq!(call["arguments"]["filters"]["assignee"], "@bob");
    let page = w.follow(&w.alice, &call).unwrap();
    assert_eq!(page["items"][0]["assignee"], "@bob");
    // A word for oneself (`@me`) names the caller first, never the member
    // nearest by spelling: a write names the caller, a list asks for the
    // caller's own tasks.
    let f = w.err(
        &w.bob,
        "create",
        json!({"channel": "ops", "tasks": [{"title": "mine", "assignee": "@me"}]}),
    );
    assert_eq!(values(&f)[0], json!("@bob"), "{f:?}");
    let created = w.follow(&w.bob, &World::<E>::suggestion(&f)).unwrap();
    assert_eq!(created["tasks"][0]["assignee"], "@bob");
    for word in ["@me", "@self", "@myself"] {
        let f = w.err(
            &w.bob,
            "list",
            json!({"channel": "ops", "filters": {"assignee": word}}),
        );
        assert_eq!(values(&f)[0], json!("@bob"), "{f:?}");
        assert!(f.message.contains("assigned_to_me"), "{}", f.message);
        let call = World::<E>::suggestion(&f);
        assert_eq!(
            call["arguments"]["filters"],
            json!({"assigned_to_me": true})
        );
        let page = w.follow(&w.bob, &call).unwrap();
        assert_eq!(page["items"][0]["title"], "mine");
    }
    w.titles(&w.alice, "eng", &["y"]);
    // No typo: no call (another member's tasks would fix nothing), only
    // the candidates; on a list too.
    let f = w.err(
        &w.alice,
        "update",
        json!({"channel": "eng", "number": 1, "assignee": "@zed"}),
    );
    assert_eq!(values(&f)[0], json!("@bob"));
    assert!(f.suggested_action.is_none(), "{f:?}");
    let f = w.err(
        &w.alice,
        "list",
        json!({"channel": "eng", "filters": {"assignee": "@zed"}}),
    );
    assert_eq!(f.code, "assignee_not_found");
    assert!(f.suggested_action.is_none(), "{f:?}");

    // An unknown parent: the nearest live task numbers, with titles, and
    // the read that lists the board's tasks (a deleted one is not offered).
    w.ok(&w.alice, "delete", json!({"channel": "eng", "number": 2}));
    let f = w.err(
        &w.alice,
        "create",
        json!({"channel": "eng", "parent": 6, "tasks": [{"title": "x"}]}),
    );
    assert_eq!(f.code, "parent_not_found");
    // `ops` has a #6 (a create's board is where the subtask goes): first.
    assert_eq!(values(&f), [json!("ops"), json!(5), json!(4)], "{f:?}");
    assert_eq!(f.candidate_list()[0].title.as_deref(), Some("mine"));
    assert_eq!(f.candidate_list()[1].title.as_deref(), Some("y"));
    let listed = w.follow(&w.alice, &World::<E>::suggestion(&f)).unwrap();
    assert_eq!(items_of(&listed), [1, 3, 4, 5]);
    let f = w.err(
        &w.alice,
        "update",
        json!({"channel": "eng", "number": 1, "parent": 9}),
    );
    assert_eq!(values(&f)[0], json!(5));

    // An unknown task scope: the boards, and no call, since the input
    // names none of them; with one board, a read of it.
    let f = w.err(
        &w.bob,
        "create",
        json!({"parent_task_scope": {"kind": "task", "scope_id": "tsk_nope"}, "tasks": [{"title": "x"}]}),
    );
    assert_eq!(f.code, "task_scope_not_found");
    assert_eq!(values(&f), [json!("eng"), json!("ops")]);
    assert!(f.suggested_action.is_none(), "{f:?}");
    assert_eq!(
        f.field_errors["parent_task_scope/scope_id"],
        "No such live task scope."
    );
    // An id without its prefix: the prefix named.
    let f = w.err(
        &w.bob,
        "create",
        json!({"parent_task_scope": {"kind": "task", "scope_id": "cabcd9999c68ff1e8a655a0f125067c6"}, "tasks": [{"title": "x"}]}),
    );
    assert_eq!(
        f.field_errors["parent_task_scope/scope_id"],
        "No such live task scope; a task's scope_id begins `tsk_`."
    );
    let f = w.err(
        &w.mallory,
        "create",
        json!({"parent_task_scope": {"kind": "task", "scope_id": "tsk_nope"}, "tasks": [{"title": "x"}]}),
    );
    assert_eq!(values(&f), [json!("eng")]);
    w.follow(&w.mallory, &World::<E>::suggestion(&f)).unwrap();

    // The document carries them; another workspace's boards never appear.
    let doc = w
        .err(&w.mallory, "list", json!({"channel": "ops"}))
        .to_document();
    assert_eq!(
        doc["error"]["candidates"],
        json!([{"field": "channel", "value": "eng"}])
    );

    // A slip as near to two names as to one: which was meant is a guess,
    // so no write on either (the first by name), only the candidates and,
    // for a board (a typo of the first), the browse of it.
    let ws = &w.alice.workspace_id;
    for board in ["api-v1", "api-v2"] {
        block(w.store.create_channel(ws, board, None)).unwrap();
    }
    for handle in ["ops-bot1", "ops-bot2"] {
        let (_, hash) = crate::runtime::auth::new_token().unwrap();
        block(w.store.create_agent(ws, handle, &NewToken::new(hash))).unwrap();
    }
    w.titles(&w.alice, "api-v1", &["first"]);
    let f = w.err(
        &w.alice,
        "update",
        json!({"channel": "api-v3", "number": 1, "status": "done"}),
    );
    assert_eq!(values(&f)[..2], [json!("api-v1"), json!("api-v2")]);
    let call = World::<E>::suggestion(&f);
    assert_eq!(call["tool"], "task_list", "{f:?}");
    let f = w.err(
        &w.alice,
        "delete",
        json!({"channel": "api-v3", "number": 1}),
    );
    assert_eq!(World::<E>::suggestion(&f)["tool"], "task_list", "{f:?}");
    for (verb, input) in [
        (
            "create",
            json!({"channel": "eng", "tasks": [{"title": "x", "assignee": "@ops-bot"}]}),
        ),
        (
            "update",
            json!({"channel": "eng", "number": 1, "assignee": "@ops-bot3"}),
        ),
    ] {
        let f = w.err(&w.alice, verb, input);
        assert_eq!(values(&f)[..2], [json!("@ops-bot1"), json!("@ops-bot2")]);
        assert!(f.suggested_action.is_none(), "{verb}: {f:?}");
    }
}

fn update_clears_guards_and_refuses_cycles<E: Engine>() {
    let w = world::<E>();
    w.create(&w.alice, json!({"channel": "eng", "tasks": [{"title": "t", "description": "d", "assignee": "@bob", "blocker": "b"}]}));
    w.titles(&w.alice, "eng", &["other"]);
    let before = w.ok(&w.alice, "get", json!({"channel": "eng", "number": 1}));
    let updated = w.ok(
        &w.alice,
        "update",
        json!({"channel": "eng", "number": 1, "description": null, "assignee": null, "blocker": null,
               "title": "T2", "labels": ["l"], "expected_updated_at": before["updated_at"]}),
    );
    assert_eq!(
        (updated["title"].as_str(), updated["assignee"].is_null()),
        (Some("T2"), true)
    );
    assert!(updated["updated_at"].as_str() > before["updated_at"].as_str());
    let got = w.ok(&w.alice, "get", json!({"channel": "eng", "number": 1}));
    assert!(got["description"].is_null() && got["blocker"].is_null());
    // A stale expected_updated_at conflicts and suggests re-reading.
    let f = w.err(
        &w.alice,
        "update",
        json!({"channel": "eng", "number": 1, "status": "done", "expected_updated_at": before["updated_at"]}),
    );
    assert_eq!(
        (f.code.as_str(), f.http_status),
        ("task_update_conflict", 409)
    );
    let suggestion = f.suggested_action.unwrap();
    assert_eq!(
        (suggestion.tool.as_str(), suggestion.arguments),
        ("task_get", json!({"channel": "eng", "number": 1}))
    );
    // The conflict carries the current updated_at as a field: retrying
    // with it needs no read.
    assert_eq!(f.details["current_updated_at"], updated["updated_at"]);
    assert!(f.message.contains("changed after"));
    let current = updated["updated_at"].as_str().unwrap().to_string();
    // A value cut to seconds (or later than any updated_at) was never the
    // task's: it asks for the exact value and says nothing changed.
    let exact = crate::runtime::clock::parse(&current).unwrap();
    for inexact in [
        format!("{}Z", &current[..19]),
        format!("{}Z", &current[..23]),
        "2999-01-01T00:00:00.000000Z".to_string(),
    ]
    .into_iter()
    // A time whose cut digits were zeros is the exact one (1 run in 1,000).
    .filter(|cut| crate::runtime::clock::parse(cut).unwrap() != exact)
    {
        let f = w.err(
            &w.alice,
            "update",
            json!({"channel": "eng", "number": 1, "status": "done", "expected_updated_at": inexact}),
        );
        assert_eq!(f.code, "task_update_conflict", "{inexact}");
        assert!(
            f.message.contains("exact updated_at from task_get") && !f.message.contains("changed"),
            "{inexact}: {}",
            f.message
        );
        assert_eq!(f.details["current_updated_at"], json!(current));
    }
    // Any RFC3339 offset names the same instant: +02:00 is read as UTC.
    let at = crate::runtime::clock::parse(&current).unwrap();
    let shifted = time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(at) * 1_000)
        .unwrap()
        .to_offset(time::macros::offset!(+2))
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    assert!(shifted.ends_with("+02:00"), "{shifted}");
    let updated = w.ok(
        &w.alice,
        "update",
        json!({"channel": "eng", "number": 1, "title": "T3", "expected_updated_at": shifted}),
    );
    assert_eq!(updated["title"], "T3");
    // Parent moves: onto 1, then 1 under 2 would be a cycle.
    let moved = w.ok(
        &w.alice,
        "update",
        json!({"channel": "eng", "number": 2, "parent": 1}),
    );
    assert_eq!(moved["parent_number"], 1);
    let f = w.err(
        &w.alice,
        "update",
        json!({"channel": "eng", "number": 1, "parent": 2}),
    );
    assert_eq!((f.code.as_str(), f.http_status), ("invalid_parent", 422));
    assert!(
        f.message.starts_with(
            "Task #2 is a subtask of task #1 (directly or deeper), so it cannot be its parent; nothing was changed."
        ),
        "{f:?}"
    );
    let f = w.err(
        &w.alice,
        "update",
        json!({"channel": "eng", "number": 1, "parent": 77}),
    );
    assert_eq!(f.code, "parent_not_found");
    let top = w.ok(
        &w.alice,
        "update",
        json!({"channel": "eng", "number": 2, "parent": null}),
    );
    assert!(top["parent_number"].is_null());
    let f = w.err(
        &w.alice,
        "update",
        json!({"channel": "eng", "number": 1, "assignee": "@ghost"}),
    );
    assert_eq!(
        (f.code.as_str(), f.field_errors.contains_key("assignee")),
        ("assignee_not_found", true)
    );
    // updated_at strictly increases even for back-to-back updates (each a
    // change: one that changes nothing leaves it, below).
    let mut last =
        w.ok(&w.alice, "get", json!({"channel": "eng", "number": 1}))["updated_at"].clone();
    for priority in ["low", "high", "low", "high", "low"] {
        let now = w.ok(
            &w.alice,
            "update",
            json!({"channel": "eng", "number": 1, "priority": priority}),
        )["updated_at"]
            .clone();
        assert!(now.as_str() > last.as_str());
        last = now;
    }
    assert_eq!(w.store.events("updated"), 9);
}

/// An update whose every value is the task's already writes nothing: the
/// task keeps its updated_at (so a guarded retry still matches), no event
/// is recorded, and the answer is the task as it is. One changed value
/// among unchanged ones is an update as any other.
fn an_update_that_changes_nothing_writes_nothing<E: Engine>() {
    let w = world::<E>();
    w.titles(&w.alice, "eng", &["parent"]);
    let rich = json!({"title": "original", "description": "d", "status": "in_progress",
        "priority": "high", "assignee": "@bob", "labels": ["b", "a"],
        "checklist": [{"text": "c", "done": true}], "urls": ["https://example.com/x"],
        "attachments": [{"name": "n", "url": "https://example.com/n"}]});
    w.create(
        &w.alice,
        json!({"channel": "eng", "parent": 1, "tasks": [rich]}),
    );
    let before = w.ok(&w.alice, "get", json!({"channel": "eng", "number": 2}));
    let mut same = rich.clone();
    same.as_object_mut().unwrap().extend([
        ("channel".to_string(), json!("eng")),
        ("number".to_string(), json!(2)),
        ("blocker".to_string(), json!(null)),
        ("parent".to_string(), json!(1)),
    ]);
    let unchanged = w.ok(&w.alice, "update", same.clone());
    assert_eq!(unchanged["updated_at"], before["updated_at"], "{unchanged}");
    assert_eq!(unchanged["title"], "original");
    same["expected_updated_at"] = before["updated_at"].clone();
    let again = w.ok(&w.alice, "update", same.clone());
    assert_eq!(again, unchanged);
    let after = w.ok(&w.alice, "get", json!({"channel": "eng", "number": 2}));
    assert_eq!(after, before);
    assert_eq!(w.store.events("updated"), 0);
    // Labels in another order are another value: a change.
    let reordered = w.ok(
        &w.alice,
        "update",
        json!({"channel": "eng", "number": 2, "labels": ["a", "b"], "title": "original"}),
    );
    assert!(reordered["updated_at"].as_str() > before["updated_at"].as_str());
    assert_eq!(w.store.events("updated"), 1);
    // A title that changes is found by search under its new words only.
    let found = |query: &str| {
        w.ok(
            &w.alice,
            "list",
            json!({"channel": "eng", "query": query, "include_subtasks": true}),
        )["items"]
            .as_array()
            .unwrap()
            .len()
    };
    assert_eq!((found("renamed"), found("original")), (0, 1));
    w.ok(
        &w.alice,
        "update",
        json!({"channel": "eng", "number": 2, "title": "renamed", "description": "d"}),
    );
    assert_eq!((found("renamed"), found("original")), (1, 0));
    assert_eq!(w.store.events("updated"), 2);
}

/// An update that changes one field records an `updated` event that names
/// that field alone, for every field the registry lists. PostgreSQL's one
/// update statement reports its changes as an array zipped with
/// `Field::ALL`: a flag out of that order names the wrong field, and only
/// this test would say so.
fn an_update_of_one_field_records_that_field_alone<E: Engine>() {
    use crate::registry::task::update::Field;
    let w = world::<E>();
    w.titles(&w.alice, "eng", &["parent", "task"]);
    for field in Field::ALL {
        let mut input = json!({"channel": "eng", "number": 2});
        input[field.name()] = match field {
            Field::Title => json!("renamed"),
            Field::Description => json!("described"),
            Field::Status => json!("in_progress"),
            Field::Priority => json!("high"),
            Field::Assignee => json!("@bob"),
            Field::Labels => json!(["x"]),
            Field::Checklist => json!([{"text": "c"}]),
            Field::Urls => json!(["https://example.com"]),
            Field::Attachments => json!([{"name": "n", "url": "https://example.com"}]),
            Field::Blocker => json!("waiting"),
            Field::Parent => json!(1),
        };
        w.ok(&w.alice, "update", input);
        assert_eq!(
            w.store.last_event("updated"),
            Some(json!({"fields": [field.name()]})),
            "an update of {} alone",
            field.name()
        );
    }
    assert_eq!(w.store.events("updated"), Field::ALL.len() as i64);
}

fn set_claim_is_a_desired_state_with_per_task_failures<E: Engine>() {
    let w = world::<E>();
    w.titles(&w.alice, "eng", &["a", "b", "c"]);
    let r = w.ok(
        &w.alice,
        "set_claim",
        json!({"channel": "eng", "numbers": [1, 2], "claimed": true}),
    );
    let before =
        w.ok(&w.alice, "get", json!({"channel": "eng", "number": 1}))["updated_at"].clone();
    let second =
        w.ok(&w.alice, "get", json!({"channel": "eng", "number": 2}))["updated_at"].clone();
    // Each task carries the updated_at it has now, ready for a guarded update.
    assert_eq!(
        r,
        json!({"claimed": true, "updated_count": 2, "failures": [],
               "tasks": [{"number": 1, "updated_at": before}, {"number": 2, "updated_at": second}]})
    );
    // One mutation, one time, on every engine (the tasks were made apart).
    assert_eq!(before, second, "one claim of two tasks has one time");
    // Claiming again is already the state: counted, not changed.
    let r = w.ok(
        &w.alice,
        "set_claim",
        json!({"channel": "eng", "numbers": [1], "claimed": true}),
    );
    assert_eq!(r["updated_count"], 1);
    assert_eq!(r["tasks"], json!([{"number": 1, "updated_at": before}]));
    assert_eq!(
        w.ok(&w.alice, "get", json!({"channel": "eng", "number": 1}))["updated_at"],
        before
    );
    let r = w.ok(
        &w.bob,
        "set_claim",
        json!({"channel": "eng", "numbers": [1, 3, 9], "claimed": true}),
    );
    assert_eq!(r["updated_count"], 1);
    assert_eq!(r["tasks"].as_array().unwrap().len(), 1);
    assert_eq!(r["tasks"][0]["number"], 3);
    let codes: Vec<(i64, &str)> = r["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["number"].as_i64().unwrap(), f["code"].as_str().unwrap()))
        .collect();
    assert_eq!(codes, [(1, "task_claimed_by_other"), (9, "task_not_found")]);
    let r = w.ok(
        &w.bob,
        "set_claim",
        json!({"channel": "eng", "numbers": [2, 3], "claimed": false}),
    );
    assert_eq!(r["updated_count"], 1);
    assert_eq!(r["failures"][0]["code"], "not_assignee");
    let r = w.ok(
        &w.alice,
        "set_claim",
        json!({"channel": "eng", "numbers": [1], "claimed": false}),
    );
    assert_eq!(r["updated_count"], 1);
    let got = w.ok(&w.alice, "get", json!({"channel": "eng", "number": 1}));
    assert!(got["assignee"].is_null() && got["updated_at"].as_str() > before.as_str());
    assert_eq!(r["tasks"][0]["updated_at"], got["updated_at"]);
    // That updated_at guards the next update as is.
    w.ok(
        &w.alice,
        "update",
        json!({"channel": "eng", "number": 1, "status": "done", "expected_updated_at": r["tasks"][0]["updated_at"]}),
    );
}

fn delete_rules<E: Engine>() {
    let w = world::<E>();
    w.titles(&w.alice, "eng", &["root"]);
    w.create(
        &w.alice,
        json!({"channel": "eng", "parent": 1, "tasks": [{"title": "a"}, {"title": "b"}]}),
    );
    w.create(
        &w.bob,
        json!({"channel": "eng", "parent": 2, "tasks": [{"title": "bob's"}]}),
    );
    let f = w.err(&w.bob, "delete", json!({"channel": "eng", "number": 1}));
    assert_eq!((f.code.as_str(), f.http_status), ("not_task_creator", 403));
    // The one agent that may delete it is named, for bob to ask.
    assert!(
        f.message
            .starts_with("Only @alice, the agent that created task #1"),
        "{f:?}"
    );
    let f = w.err(&w.alice, "delete", json!({"channel": "eng", "number": 1}));
    assert_eq!(
        (f.code.as_str(), f.http_status),
        ("subtask_mode_required", 422)
    );
    assert!(f.field_errors.contains_key("subtask_mode"));
    // Its direct subtasks counted, and what each mode would do with them:
    // `delete` is refused for bob's subtask under #2, so not offered.
    assert_eq!(
        f.message,
        "Task #1 has 2 live subtasks; nothing was deleted. Choose subtask_mode `promote` (keep them as top-level tasks); `delete` would be refused, subtask #4 being another agent's.",
        "{f:?}"
    );
    assert_eq!(
        refusals::subtask_mode_required(7, 1, None).message,
        "Task #7 has 1 live subtask; nothing was deleted. Choose subtask_mode `promote` (keep it as \
         a top-level task) or `delete` (delete it too)."
    );
    let f = w.err(
        &w.alice,
        "delete",
        json!({"channel": "eng", "number": 1, "subtask_mode": "delete"}),
    );
    assert_eq!(
        (f.code.as_str(), f.http_status),
        ("subtask_creator_mismatch", 403)
    );
    // Both ways out, so `promote` is not taken for a delete of the
    // caller's own subtasks, which it keeps.
    assert!(
        f.message
            .contains("`promote` deletes this task alone and keeps every subtask")
            && f.message.contains("task_delete each of them first"),
        "{f:?}"
    );
    assert_eq!(
        items_of(&w.ok(
            &w.alice,
            "list",
            json!({"channel": "eng", "include_subtasks": true, "sort": "number_asc"})
        )),
        [1, 2, 3, 4]
    );
    // Promote: children become top-level, grandchildren stay put.
    let r = w.ok(
        &w.alice,
        "delete",
        json!({"channel": "eng", "number": 1, "subtask_mode": "promote"}),
    );
    assert_eq!(
        r,
        json!({"deleted_numbers": [1], "promoted_numbers": [2, 3]})
    );
    assert_eq!(
        items_of(&w.ok(
            &w.alice,
            "list",
            json!({"channel": "eng", "sort": "number_asc"})
        )),
        [2, 3]
    );
    // Recursive delete of a single-creator tree.
    w.create(
        &w.alice,
        json!({"channel": "eng", "parent": 3, "tasks": [{"title": "c1"}, {"title": "c2"}]}),
    );
    w.create(
        &w.alice,
        json!({"channel": "eng", "parent": 5, "tasks": [{"title": "gc"}]}),
    );
    let r = w.ok(
        &w.alice,
        "delete",
        json!({"channel": "eng", "number": 3, "subtask_mode": "delete"}),
    );
    assert_eq!(
        r,
        json!({"deleted_numbers": [3, 5, 6, 7], "promoted_numbers": []})
    );
    // A leaf ignores subtask_mode; a tombstone is gone for every operation.
    let r = w.ok(
        &w.bob,
        "delete",
        json!({"channel": "eng", "number": 4, "subtask_mode": "delete"}),
    );
    assert_eq!(r["deleted_numbers"], json!([4]));
    for (verb, input) in [
        ("get", json!({"channel": "eng", "number": 3})),
        (
            "update",
            json!({"channel": "eng", "number": 3, "title": "x"}),
        ),
        (
            "checkpoint",
            json!({"channel": "eng", "number": 3, "summary": "x"}),
        ),
        ("delete", json!({"channel": "eng", "number": 3})),
    ] {
        let f = w.err(&w.alice, verb, input);
        assert_eq!(f.code, "task_not_found");
        // Said to be deleted, with no other task offered in its place (a
        // retried delete must not be pointed at another one).
        assert!(
            f.message.contains("#3 on board `eng` was deleted"),
            "{verb}: {}",
            f.message
        );
        assert!(f.candidate_list().is_empty(), "{verb}");
    }
    // So is a deleted parent, wherever a parent is named.
    let live = w.titles(&w.alice, "eng", &["live"])[0];
    for (verb, input, field) in [
        (
            "create",
            json!({"channel": "eng", "parent": 3, "tasks": [{"title": "x"}]}),
            "parent",
        ),
        (
            "update",
            json!({"channel": "eng", "number": live, "parent": 3}),
            "parent",
        ),
        (
            "list",
            json!({"channel": "eng", "filters": {"parent": 3}}),
            "filters/parent",
        ),
    ] {
        let f = w.err(&w.alice, verb, input);
        assert_eq!(f.code, "parent_not_found", "{verb}");
        assert!(
            f.message.contains("#3 on board `eng` was deleted"),
            "{verb}: {}",
            f.message
        );
        assert_eq!(f.field_errors[field], "Deleted.", "{verb}");
        assert!(f.candidate_list().is_empty(), "{verb}");
    }
    // And a claim's per-task failure, beside a number never used.
    let r = w.ok(
        &w.alice,
        "set_claim",
        json!({"channel": "eng", "numbers": [3, 9], "claimed": true}),
    );
    let messages: Vec<&str> = r["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        messages,
        [
            "Task #3 was deleted; it cannot be claimed or released.",
            "No live task #9 on this board; candidates are the board's nearest."
        ]
    );
    // The number never used offers the board's nearest live tasks, each a
    // number and its title, as task_get's refusal does; the deleted one none.
    let failures = r["failures"].as_array().unwrap();
    assert!(failures[0].get("candidates").is_none(), "{r}");
    let offered = failures[1]["candidates"].as_array().unwrap();
    assert!(!offered.is_empty(), "{r}");
    for candidate in offered {
        let number = candidate["number"].as_i64().unwrap();
        let task = w.ok(&w.alice, "get", json!({"channel": "eng", "number": number}));
        assert_eq!(candidate["title"], task["title"], "{r}");
    }
    let action = crate::registry::find("task", "set_claim").unwrap();
    let schema = (action.data_schema)();
    assert!(jsonschema::is_valid(&schema, &r), "{r}");
    // A number never used still gets the nearest live tasks.
    for (verb, input) in [
        ("get", json!({"channel": "eng", "number": 9})),
        ("list", json!({"channel": "eng", "filters": {"parent": 9}})),
    ] {
        let f = w.err(&w.alice, verb, input);
        assert!(
            !f.candidate_list().is_empty() && !f.message.contains("deleted"),
            "{verb}: {}",
            f.message
        );
    }
    assert_eq!(w.store.events("deleted"), 6);
    // A subtask of another agent's right under it: `delete` is not offered,
    // since it would be refused.
    let root = w.titles(&w.alice, "eng", &["root of bob's"])[0];
    let bobs = w.create(
        &w.bob,
        json!({"channel": "eng", "parent": root, "tasks": [{"title": "bob's own"}]}),
    )[0]["number"]
        .clone();
    let f = w.err(
        &w.alice,
        "delete",
        json!({"channel": "eng", "number": root}),
    );
    assert_eq!(f.code, "subtask_mode_required");
    assert!(
        f.message.ends_with(&format!(
            "Choose subtask_mode `promote` (keep it as a top-level task); `delete` would be refused, subtask #{bobs} being another agent's."
        )),
        "{f:?}"
    );
}

fn private_boards_refuse_non_members<E: Engine>() {
    let w = world::<E>();
    w.titles(&w.alice, "secret", &["s"]);
    for (verb, input) in [
        ("list", json!({"channel": "secret"})),
        ("get", json!({"channel": "secret", "number": 1})),
        (
            "create",
            json!({"channel": "secret", "tasks": [{"title": "x"}]}),
        ),
        (
            "update",
            json!({"channel": "secret", "number": 1, "title": "x"}),
        ),
        (
            "set_claim",
            json!({"channel": "secret", "numbers": [1], "claimed": true}),
        ),
        (
            "checkpoint",
            json!({"channel": "secret", "number": 1, "summary": "x"}),
        ),
        ("delete", json!({"channel": "secret", "number": 1})),
    ] {
        // Exactly as a board that does not exist: 404, the same message,
        // and candidates that never name the private board.
        let mut missing = input.clone();
        missing["channel"] = json!("secrex");
        let f = w.err(&w.bob, verb, input);
        let m = w.err(&w.bob, verb, missing);
        assert_eq!(
            (f.code.as_str(), f.http_status),
            ("channel_not_found", 404),
            "{verb}"
        );
        assert_eq!(
            f.message.replace("`secret`", "`?`"),
            m.message.replace("`secrex`", "`?`"),
            "{verb}"
        );
        assert!(
            f.candidate_list()
                .iter()
                .all(|c| c.value != json!("secret")),
            "{verb}: {:?}",
            f.candidate_list()
        );
    }
    // A task scope on the private board is as unknown as a made-up one.
    let secret = w.ok(&w.alice, "get", json!({"channel": "secret", "number": 1}));
    let scope_id = secret["scope_id"].as_str().unwrap();
    let input = |scope_id: &str| json!({"parent_task_scope": {"kind": "task", "scope_id": scope_id}, "tasks": [{"title": "x"}]});
    let f = w.err(&w.bob, "create", input(scope_id));
    let m = w.err(
        &w.bob,
        "create",
        input("tsk_00000000000000000000000000000000"),
    );
    assert_eq!(
        (f.code.as_str(), f.http_status, &f.message),
        (m.code.as_str(), m.http_status, &m.message)
    );
    assert_eq!(f.code, "task_scope_not_found");
    assert_eq!(
        items_of(&w.ok(&w.alice, "list", json!({"channel": "secret"}))),
        [1]
    );
    // Nor is a task there given to a non-member, who could neither read
    // nor release it: by a create (by board or by scope) or an update. The
    // candidates are the board's members; nothing is written.
    for (verb, input, field) in [
        (
            "create",
            json!({"channel": "secret", "tasks": [{"title": "x", "assignee": "@bob"}]}),
            "tasks/0/assignee",
        ),
        (
            "create",
            json!({"parent_task_scope": {"kind": "task", "scope_id": scope_id},
                "tasks": [{"title": "x", "assignee": "@bob"}]}),
            "tasks/0/assignee",
        ),
        (
            "update",
            json!({"channel": "secret", "number": 1, "assignee": "@bob"}),
            "assignee",
        ),
    ] {
        let f = w.err(&w.alice, verb, input);
        assert_eq!(
            (f.code.as_str(), f.http_status),
            ("assignee_not_found", 422)
        );
        assert!(f.message.contains("not a member"), "{}", f.message);
        assert!(f.field_errors.contains_key(field), "{f:?}");
        assert_eq!(f.candidate_list()[0].value, json!("@alice"), "{f:?}");
        // Bob was named exactly: no other member is proposed in his place.
        assert!(f.suggested_action.is_none(), "{f:?}");
        assert_eq!(f.details["private_board"], "secret");
    }
    // A member ref that names no one: the board's members are the
    // candidates (a workspace agent who is no member would be refused in
    // turn), and a typo of one gets the call that works.
    let f = w.err(
        &w.alice,
        "create",
        json!({"channel": "secret", "tasks": [{"title": "x", "assignee": "@bobb"}]}),
    );
    assert_eq!(f.code, "assignee_not_found");
    let refs: Vec<Value> = f.candidate_list().iter().map(|c| c.value.clone()).collect();
    assert_eq!(refs, [json!("@alice")], "{f:?}");
    assert!(f.suggested_action.is_none(), "{f:?}");
    let f = w.err(
        &w.alice,
        "create",
        json!({"channel": "secret", "tasks": [{"title": "x", "assignee": "@alicee"}]}),
    );
    let created = w.follow(&w.alice, &World::<E>::suggestion(&f)).unwrap();
    assert_eq!(created["tasks"][0]["assignee"], "@alice");
    let task = w.ok(&w.alice, "get", json!({"channel": "secret", "number": 1}));
    assert_eq!(task["assignee"], Value::Null);
    assert_eq!(
        items_of(&w.ok(
            &w.alice,
            "list",
            json!({"channel": "secret", "include_subtasks": true})
        )),
        [2, 1]
    );
    // On a public board anyone of the workspace may hold a task.
    let bobs = w.create(
        &w.alice,
        json!({"channel": "eng", "tasks": [{"title": "b", "assignee": "@bob"}]}),
    );
    assert_eq!(bobs[0]["assignee"], "@bob");
}

fn tokens_resolve_until_revoked_and_reopening_keeps_data<E: Engine>() {
    let place = E::place();
    let store = E::open(&place);
    let ws = block(store.create_workspace("w")).unwrap();
    let (token, hash) = crate::runtime::auth::new_token().unwrap();
    let (agent, _) = block(store.create_agent(&ws, "a", &NewToken::new(hash))).unwrap();
    let found = block(store.find_token(&crate::runtime::auth::hash_token(&token)))
        .unwrap()
        .unwrap();
    assert_eq!(
        (
            found.principal.agent_id.as_str(),
            found.principal.handle.as_str()
        ),
        (agent.as_str(), "a")
    );
    let (_, other) = crate::runtime::auth::new_token().unwrap();
    assert_eq!(
        block(store.create_agent(&ws, "a", &NewToken::new(other)))
            .unwrap_err()
            .code,
        "invalid_input"
    );
    assert_eq!(block(store.revoke_tokens(&ws, "@a")).unwrap(), 1);
    assert!(block(store.find_token(&hash)).unwrap().is_none());
    drop(store);
    let store = E::open(&place);
    assert_eq!(
        block(store.find_or_create_workspace("w")).unwrap(),
        (ws.clone(), false)
    );
    let (new, created) = block(store.find_or_create_workspace("w2")).unwrap();
    assert!(created && new != ws);
    assert_eq!(
        block(store.find_or_create_workspace("w2")).unwrap(),
        (new, false)
    );
}

/// [`get_for_token`] answers as a token lookup and then [`dispatch`] do,
/// whether or not the engine reads the token and the task at once
/// (PostgreSQL does): the detail with its sections, and each refusal with
/// its candidates and suggestion, for a member and a non-member; and a
/// token that is not live, or that its admission refuses, gets the
/// refusal and nothing that was read.
fn a_get_read_with_its_token_answers_as_a_lookup_then_a_get<E: Engine>() {
    let w = world::<E>();
    let ws = w.alice.workspace_id.clone();
    w.titles(&w.alice, "eng", &["one", "two"]);
    w.titles(&w.alice, "secret", &["hidden"]);
    w.create(
        &w.alice,
        json!({"channel": "eng", "parent": 1, "tasks": [{"title": "sub"}]}),
    );
    for summary in ["first", "second"] {
        w.ok(
            &w.bob,
            "checkpoint",
            json!({"channel": "eng", "number": 1, "summary": summary}),
        );
    }
    let token = |handle: &str| {
        let (_, hash) = crate::runtime::auth::new_token().unwrap();
        block(w.store.issue_token(&ws, handle, &NewToken::new(hash))).unwrap();
        hash
    };
    let (alice, bob) = (token("@alice"), token("@bob"));
    let action = find("task", "get").unwrap();
    let by_token =
        |hash: &[u8; 32],
         input: &Value,
         admit: &dyn Fn(Option<TokenRecord>) -> Result<Principal, Failure>| {
            let input = crate::validate::validate(action, input.clone()).unwrap();
            block(get_for_token(&w.store, action, hash, input, admit))
        };
    let live = |record: Option<TokenRecord>| {
        record
            .map(|record| record.principal)
            .ok_or_else(|| Failure::new(code::UNAUTHORIZED, "not live"))
    };
    let inputs = [
        json!({"channel": "eng", "number": 1}),
        json!({"channel": "eng", "number": 1, "checkpoints_before": 2}),
        json!({"channel": "eng", "number": 2}),
        json!({"channel": "eng", "number": 9}),
        json!({"channel": "secret", "number": 1}),
        json!({"channel": "eny", "number": 1}),
        json!({"channel": "nowhere", "number": 1}),
    ];
    for (who, hash) in [(&w.alice, &alice), (&w.bob, &bob)] {
        for input in &inputs {
            let expected = w.call(who, "get", input.clone());
            assert_eq!(by_token(hash, input, &live), expected, "{input}");
        }
    }
    assert!(
        by_token(&alice, &inputs[0], &live).unwrap()["checkpoints"]["total"] == 2,
        "the sections are read"
    );
    let refused = |record: Option<TokenRecord>| -> Result<Principal, Failure> {
        assert_eq!(record.map(|r| r.principal), Some(w.alice.clone()));
        Err(Failure::new(code::FORBIDDEN, "refused"))
    };
    assert_eq!(
        by_token(&alice, &inputs[0], &refused).unwrap_err().code,
        "forbidden"
    );
    let (_, unknown) = crate::runtime::auth::new_token().unwrap();
    block(w.store.revoke_tokens(&ws, "@bob")).unwrap();
    for hash in [&unknown, &bob] {
        let seen = std::cell::Cell::new(false);
        let none = |record: Option<TokenRecord>| {
            seen.set(record.is_none());
            live(record)
        };
        assert_eq!(
            by_token(hash, &inputs[0], &none).unwrap_err().code,
            "unauthorized"
        );
        assert!(seen.get(), "a token that is not live has no record");
    }
}

fn tokens_carry_their_scope_expire_and_dead_ones_are_pruned<E: Engine>() {
    let place = E::place();
    let store = E::open(&place);
    let ws = block(store.create_workspace("w")).unwrap();
    let issue = |scope: Permission, ttl_us: i64| {
        let (token, hash) = crate::runtime::auth::new_token().unwrap();
        let token_hash = crate::runtime::auth::hash_token(&token);
        let new = NewToken {
            hash,
            scope,
            ttl_us,
        };
        let before = clock::now();
        let expires = block(store.issue_token(&ws, "@a", &new)).unwrap();
        assert!(expires >= before + ttl_us, "the expiry is issue time + ttl");
        token_hash
    };
    let (_, first) = crate::runtime::auth::new_token().unwrap();
    block(store.create_agent(&ws, "a", &NewToken::new(first))).unwrap();
    let counts = || block(store.count_tokens(&ws, "@a")).unwrap();
    assert_eq!(counts(), TokenCounts { live: 1, stored: 1 });

    let day = crate::runtime::auth::micros(crate::runtime::auth::DEFAULT_TTL);
    let reader = issue(Permission::ReadOnly, day);
    let found = block(store.find_token(&reader)).unwrap().unwrap();
    assert_eq!(found.scope, Permission::ReadOnly);
    let writer = issue(Permission::AgentMutation, day);
    assert_eq!(
        block(store.find_token(&writer)).unwrap().unwrap().scope,
        Permission::AgentMutation
    );
    assert_eq!(
        block(store.find_token(&first)).unwrap().unwrap().scope,
        Permission::Destructive,
        "agent create's first token has the default, widest scope"
    );

    // An expired token no longer authenticates, and is deleted at the next
    // issue; no live token is touched by the pruning.
    let mut expired = Vec::new();
    for _ in 0..5 {
        expired.push(issue(Permission::Destructive, 1));
        std::thread::sleep(std::time::Duration::from_millis(2));
        assert!(
            block(store.find_token(expired.last().unwrap()))
                .unwrap()
                .is_none()
        );
    }
    assert_eq!(
        counts(),
        TokenCounts { live: 3, stored: 4 },
        "five short-lived issues leave one dead row, not five"
    );
    for token in [&first, &reader, &writer] {
        assert!(block(store.find_token(token)).unwrap().is_some());
    }
    // Revoked tokens are dead too: pruned at the next issue.
    assert_eq!(block(store.revoke_tokens(&ws, "@a")).unwrap(), 3);
    assert_eq!(counts(), TokenCounts { live: 0, stored: 4 });
    let fresh = issue(Permission::Destructive, day);
    assert_eq!(counts(), TokenCounts { live: 1, stored: 1 });
    assert!(block(store.find_token(&fresh)).unwrap().is_some());
}

/// Search cuts and folds words the same way on both engines: case,
/// diacritics, punctuation and prefixes; every word must match but the
/// function words of a query that has others (`search::FUNCTION_WORDS`).
fn search_matches_the_same_words_on_every_engine<E: Engine>() {
    let w = world::<E>();
    let titles = [
        "Café opening hours",
        "DÉJÀ VU in the login flow",
        "email a@b.example about v1.2",
        "naïve_parser rewrite",
        "東京 office move",
    ];
    w.titles(&w.alice, "eng", &titles);
    let search = |query: &str| {
        let mut found = items_of(&w.ok(
            &w.alice,
            "list",
            json!({"channel": "eng", "query": query, "status": "all"}),
        ));
        found.sort_unstable();
        found
    };
    assert_eq!(search("cafe"), [1]);
    assert_eq!(search("CAFÉ hours"), [1]);
    assert_eq!(search("deja login"), [2]);
    assert_eq!(search("log"), [2], "a word is also a prefix");
    assert_eq!(
        search("example"),
        [3],
        "an address is cut at its punctuation"
    );
    assert_eq!(search("v1 2"), [3]);
    assert_eq!(search("parser"), [4], "an underscore separates words");
    assert_eq!(search("naive"), [4]);
    assert_eq!(search("東京"), [5]);
    assert!(search("cafe login").is_empty(), "every word must match");
    assert!(search("ours").is_empty(), "a prefix, not a substring");
    assert_eq!(
        search("opening of the cafe"),
        [1],
        "a query's function words are left out"
    );
    assert_eq!(search("how to log in"), [2]);
    assert_eq!(
        search("the"),
        [2],
        "a query of function words alone keeps them"
    );
}

/// Forms of one word find each other through their shared English stem;
/// a query word is still a prefix; a stem is matched whole.
fn search_matches_word_forms_and_prefixes<E: Engine>() {
    let w = world::<E>();
    let titles = [
        "Release notes for the new release",
        "Deployment checklist",
        "Deployed to staging",
        "One study of queues",
        "Runtime memory",
        "Running totals",
    ];
    w.titles(&w.alice, "eng", &titles);
    w.ok(
        &w.alice,
        "update",
        json!({"channel": "eng", "number": 5, "description": "releases it holds"}),
    );
    let search = |query: &str| {
        let mut found = search_numbers(&w, query);
        found.sort_unstable();
        found
    };
    assert_eq!(search("releases"), [1, 5], "a plural finds the singular");
    assert_eq!(search("released"), [1, 5]);
    assert_eq!(search("deploying"), [2, 3], "deployment and deployed");
    assert_eq!(search("deployments"), [2, 3]);
    assert_eq!(search("studies"), [4], "a plural in -ies finds -y");
    assert_eq!(search("studying queue"), [4]);
    assert_eq!(search("rel"), [1, 5], "a prefix still finds the word");
    assert_eq!(search("deploym"), [2], "a prefix is not stemmed away");
    assert_eq!(search("running"), [6], "a stem is not a prefix: no runtime");
    assert_eq!(search("run"), [5, 6], "a word is a prefix of indexed words");
    assert!(
        search("releases staging").is_empty(),
        "every word must match"
    );
    // Relevance: the task naming the word twice, in its title, ranks first.
    assert_eq!(search_numbers(&w, "releasing"), [1, 5]);
    // A new title replaces the old one's words and stems in the index.
    w.ok(
        &w.alice,
        "update",
        json!({"channel": "eng", "number": 6, "title": "Walked totals"}),
    );
    assert!(search("running").is_empty());
    assert_eq!(search("walking totals"), [6]);
}

/// The tasks of `query` on board `eng`, in the search's order.
fn search_numbers<E: Engine>(w: &World<E>, query: &str) -> Vec<i64> {
    items_of(&w.ok(
        &w.alice,
        "list",
        json!({"channel": "eng", "query": query, "status": "all"}),
    ))
}

/// Relevance is one score on every engine (`search::TITLE_WEIGHT`): per
/// query word, 2 for a title match and 1 for a description match, ties by
/// number; a title match ranks above a description match, whatever form
/// of the word each holds. The engines had each their own (bm25 and
/// `ts_rank`) and ordered the same hits differently.
fn relevance_is_one_score_on_every_engine<E: Engine>() {
    let w = world::<E>();
    for (title, description) in [
        ("Deploy the release", None),
        ("Release notes", Some("deploy steps")),
        ("Notes", Some("release and deploying")),
        ("Deployment of the release, released", None),
        (
            "Write the release notes",
            Some("Deploying the new releases"),
        ),
        ("Batch task deployment", None),
    ] {
        let mut task = json!({"title": title});
        if let Some(description) = description {
            task["description"] = json!(description);
        }
        w.ok(
            &w.alice,
            "create",
            json!({"channel": "eng", "tasks": [task]}),
        );
    }
    // Task 5 has `release` in both its title and its description (3).
    assert_eq!(search_numbers(&w, "release deploy"), [1, 4, 5, 2, 3]);
    // The title's word form (`deployment`) above the description's exact
    // word (`Deploying`).
    assert_eq!(search_numbers(&w, "deploying"), [1, 4, 6, 2, 3, 5]);
    // Pages follow the same order.
    let first = w.ok(
        &w.alice,
        "list",
        json!({"channel": "eng", "query": "deploying", "status": "all", "limit": 4}),
    );
    assert_eq!(items_of(&first), [1, 4, 6, 2]);
    let cursor = first["next_cursor"]
        .as_str()
        .expect("a next page")
        .to_string();
    let next = w.ok(
        &w.alice,
        "list",
        json!({"channel": "eng", "query": "deploying", "status": "all", "cursor": cursor}),
    );
    assert_eq!(items_of(&next), [3, 5]);
}

/// A store whose index holds words only (the schema before word forms)
/// finds word forms once opened: the migration recomputes every task's
/// search terms, and later writes keep them.
fn an_upgrade_indexes_the_word_forms_of_stored_tasks<E: Engine>() {
    let w = world::<E>();
    w.releases_and_deployments();
    let w = w.reopen(|place| {
        E::before_word_forms(place);
        E::inspect(place)
    });
    let status = block(w.store.schema_status()).unwrap();
    let pending: Vec<&str> = status
        .migrations
        .iter()
        .filter(|m| !m.applied)
        .map(|m| m.name)
        .collect();
    assert_eq!(pending[0], "search_word_forms", "{status:?}");
    assert!(
        search_numbers(&w, "releases").is_empty(),
        "the old index has no stems"
    );
    assert_eq!(search_numbers(&w, "release"), [1]);

    let w = w.reopen(E::open);
    let status = block(w.store.schema_status()).unwrap();
    assert_eq!(status.version, status.latest);
    assert_eq!(search_numbers(&w, "releases"), [1]);
    assert_eq!(search_numbers(&w, "deploying"), [2]);
    assert_eq!(search_numbers(&w, "study"), [2], "descriptions too");
    assert_eq!(search_numbers(&w, "rel"), [1]);
    w.titles(&w.alice, "eng", &["Released builds"]);
    let mut found = search_numbers(&w, "releases");
    found.sort_unstable();
    assert_eq!(found, [1, 3]);
}

/// `agentteam-runtime reindex` gives back their word forms to the tasks a
/// replica of an older version wrote during a rolling upgrade, over more
/// than one batch, and changes nothing more when run again.
fn reindexing_restores_the_terms_an_older_replica_left<E: Engine>() {
    let w = world::<E>();
    w.releases_and_deployments();
    // Past the first batch of a thousand.
    let filler: Vec<String> = (0..50).map(|i| format!("Filler {i}")).collect();
    let filler: Vec<&str> = filler.iter().map(String::as_str).collect();
    for _ in 0..20 {
        w.titles(&w.bob, "eng", &filler);
    }
    w.titles(&w.alice, "eng", &["Walking totals"]);
    E::terms_of_a_replica_before_word_forms(&w._place);
    assert!(search_numbers(&w, "releases").is_empty());
    assert!(search_numbers(&w, "walked").is_empty());

    assert_eq!(block(w.store.reindex_search()).unwrap(), 1003);
    assert_eq!(search_numbers(&w, "releases"), [1]);
    assert_eq!(search_numbers(&w, "deploying"), [2]);
    assert_eq!(search_numbers(&w, "study"), [2], "descriptions too");
    assert_eq!(search_numbers(&w, "walked"), [1003], "the last batch too");
    assert_eq!(block(w.store.reindex_search()).unwrap(), 1003);
    assert_eq!(search_numbers(&w, "releases"), [1]);
}

/// A checkpoint a replica of the previous version appends during a rolling
/// upgrade (an insert without a number) is numbered after its task's last.
#[test]
fn postgres_numbers_a_previous_replicas_checkpoint() {
    let w = world::<PgStore>();
    w.titles(&w.alice, "eng", &["a"]);
    let input = json!({"channel": "eng", "number": 1, "summary": "new replica"});
    w.ok(&w.alice, "checkpoint", input.clone());
    block(w.store.run_sql(&format!(
        "INSERT INTO checkpoints (task_id, summary, created_by, created_at) \
         SELECT id, 'old replica', created_by, created_at FROM tasks WHERE number = 1 \
         AND created_by = '{}'",
        w.alice.agent_id
    )))
    .unwrap();
    assert_eq!(checkpoint_ids(&w, &w.alice, 1), [2, 1]);
    assert_eq!(w.ok(&w.alice, "checkpoint", input)["checkpoint"]["id"], 3);
}

/// A task retitled while `reindex` runs keeps the terms of its new title:
/// the reindex skips a task whose text changed after it read it, rather
/// than write terms computed from the old text.
#[test]
fn postgres_reindexing_keeps_the_terms_of_a_task_written_meanwhile() {
    let w = world::<PgStore>();
    w.titles(&w.alice, "eng", &["Release notes", "Deployment checklist"]);
    PgStore::terms_of_a_replica_before_word_forms(&w._place);
    let batch = block(w.store.reindex_read()).unwrap();
    w.ok(
        &w.alice,
        "update",
        json!({"channel": "eng", "number": 1, "title": "Walking totals"}),
    );
    block(w.store.reindex_write(&batch)).unwrap();
    assert_eq!(search_numbers(&w, "walked"), [1]);
    assert!(search_numbers(&w, "release").is_empty());
    assert_eq!(
        search_numbers(&w, "deploying"),
        [2],
        "the others are written"
    );
}

/// Text PostgreSQL's types cannot hold as given behaves as on SQLite: a
/// NUL character (U+0000, which no `text` holds) is refused as input on
/// both engines, naming the field, and stores nothing; a word longer than
/// PostgreSQL's longest lexeme (2,046 bytes) is stored whole and found by
/// its prefix on both (it failed the create on PostgreSQL).
fn text_one_engine_cannot_store_is_refused_or_kept_alike<E: Engine>() {
    let w = world::<E>();
    for (input, field) in [
        (
            json!({"channel": "eng", "tasks": [{"title": "a\u{0}b"}]}),
            "tasks/0/title",
        ),
        (
            json!({"channel": "eng", "tasks": [{"title": "t", "labels": ["x\u{0}"]}]}),
            "tasks/0/labels/0",
        ),
        (
            json!({"channel": "eng", "filters": {"labels": ["\u{0}"]}}),
            "filters/labels/0",
        ),
    ] {
        let verb = if input.get("tasks").is_some() {
            "create"
        } else {
            "list"
        };
        let refused = w.call(&w.alice, verb, input).unwrap_err();
        assert_eq!(refused.code, "invalid_input");
        assert_eq!(
            refused.field_errors[field], "Must not contain the NUL character (U+0000).",
            "{:?}",
            refused.field_errors
        );
    }
    let long = "w".repeat(3000);
    let made = w.ok(
        &w.alice,
        "create",
        json!({"channel": "eng", "tasks": [{"title": "long word", "description": long}]}),
    );
    assert_eq!(made["tasks"][0]["number"], 1, "the refusals stored nothing");
    assert_eq!(search_numbers(&w, "wwww"), [1]);
    let updated = w.call(
        &w.alice,
        "update",
        json!({"channel": "eng", "number": 1, "description": "q".repeat(3000)}),
    );
    assert!(updated.is_ok(), "{updated:?}");
    assert_eq!(search_numbers(&w, "qqq"), [1]);
    assert!(search_numbers(&w, "wwww").is_empty());
}

/// Opening migrates once; `migrate` on a current store applies nothing and
/// the status says every migration is applied.
fn migrations_are_recorded_and_reapplying_changes_nothing<E: Engine>() {
    let place = E::place();
    let store = E::open(&place);
    let status = block(store.schema_status()).unwrap();
    assert!(status.latest >= 1);
    assert_eq!(status.version, status.latest);
    assert!(status.migrations.iter().all(|m| m.applied), "{status:?}");
    assert!(block(store.migrate()).unwrap().is_empty());
    drop(store);
    let again = E::open(&place);
    assert_eq!(block(again.schema_status()).unwrap(), status);
}

/// Reads one after another run on one backend, the one used last, though
/// the whole pool is open: handed out in turn, each read woke a backend
/// whose caches had gone cold, and task.get served a sixth to two fifths fewer
/// requests a second (docs/performance.md).
#[test]
fn postgres_reads_in_turn_reuse_the_connection_used_last() {
    let world = world::<PgStore>();
    block(world.store.warm());
    let pids: Vec<i32> = (0..6)
        .map(|_| block(world.store.backend_pid()).unwrap())
        .collect();
    assert!(pids.iter().all(|&pid| pid == pids[0]), "{pids:?}");
}

/// A read whose backend stops answering is answered from another: the
/// backend a replica's reads run on (the one used last) is stopped
/// outright (SIGSTOP; on a saturated machine the kernel can keep a runnable
/// backend waiting for a CPU for hundreds of milliseconds), and a task.get
/// is answered while it stays stopped. A watchdog resumes it after a
/// minute, so that a read waiting for it fails the test rather than hangs
/// it. Resumed, the pool serves reads again.
#[test]
fn postgres_a_read_whose_backend_stalls_is_answered_by_another() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, mpsc};
    let world = world::<PgStore>();
    world.titles(&world.alice, "eng", &["stalled"]);
    block(world.store.warm());
    let pid = block(world.store.backend_pid()).unwrap();
    let signal = |signal| assert_eq!(unsafe { libc::kill(pid, signal) }, 0, "kill {pid}");
    signal(libc::SIGSTOP);
    let (done, finished) = mpsc::channel::<()>();
    let rescued = Arc::new(AtomicBool::new(false));
    let watchdog = std::thread::spawn({
        let rescued = rescued.clone();
        move || {
            if finished
                .recv_timeout(std::time::Duration::from_secs(60))
                .is_err()
            {
                rescued.store(true, Ordering::SeqCst);
                assert_eq!(unsafe { libc::kill(pid, libc::SIGCONT) }, 0);
            }
        }
    });
    let got = world.call(&world.alice, "get", json!({"channel": "eng", "number": 1}));
    // The watchdog has gone if it resumed the backend.
    let _ = done.send(());
    watchdog.join().unwrap();
    signal(libc::SIGCONT);
    assert!(
        !rescued.load(Ordering::SeqCst),
        "the get waited for the stopped backend"
    );
    assert_eq!(got.unwrap()["title"], "stalled");
    for _ in 0..4 {
        let again = world.ok(&world.alice, "get", json!({"channel": "eng", "number": 1}));
        assert_eq!(again["title"], "stalled");
    }
}

/// A batch of gets reads each task by its board's unique `(channel_id,
/// number)` even before the tables' first `ANALYZE`: without the lateral
/// read's `OFFSET 0`, PostgreSQL merged the batch into one join and, with
/// no statistics, scanned the whole board for each request
/// (docs/performance.md, task.get on PostgreSQL).
#[test]
fn postgres_batched_gets_read_by_number_without_statistics() {
    let world = world::<PgStore>();
    for batch in 0..20 {
        let titles: Vec<Value> = (1..=50)
            .map(|i| json!({"title": format!("t{batch}.{i}")}))
            .collect();
        world.ok(
            &world.alice,
            "create",
            json!({"channel": "eng", "tasks": titles}),
        );
    }
    let tables = "('tasks', 'channels', 'agents', 'checkpoints', 'channel_members')";
    block(world.store.run_sql(&format!(
        "UPDATE pg_class SET reltuples = -1, relpages = 0 WHERE relname IN {tables}; \
         DELETE FROM pg_statistic WHERE starelid IN \
           (SELECT oid FROM pg_class WHERE relname IN {tables})"
    )))
    .unwrap();
    for n in [1, 3, 32] {
        let gets: Vec<(Principal, TaskLocator)> = (1..=n)
            .map(|number| {
                let input = TaskLocator {
                    channel: "eng".to_string(),
                    number,
                    checkpoints_before: None,
                };
                (world.alice.clone(), input)
            })
            .collect();
        for by_token in [false, true] {
            let plan = block(world.store.explain_gets(&gets, by_token)).unwrap();
            // Found by board and number together, not by board and then
            // filtered (a scan of the board per request).
            assert!(
                plan.contains("(channel_id = c.id) AND (number = "),
                "{n} gets, by token {by_token}:\n{plan}"
            );
            assert!(
                !plan.contains("Seq Scan on tasks"),
                "{n} gets, by token {by_token}:\n{plan}"
            );
        }
    }
}

/// A list of one task's subtasks reads them through `tasks_by_parent`,
/// even before the tables' first `ANALYZE`: with the board named in the
/// query too, PostgreSQL ANDed the subtasks' index with a scan of the whole
/// board's index (docs/performance.md, "Query plans").
#[test]
fn postgres_a_parents_subtasks_are_listed_without_reading_the_board() {
    let world = world::<PgStore>();
    world.titles(&world.alice, "eng", &["parent"]);
    world.ok(
        &world.alice,
        "create",
        json!({"channel": "eng", "parent": 1, "tasks": [{"title": "a"}, {"title": "b"}]}),
    );
    // A board of 40,000 more tasks, copies of the parent, written at once
    // (the plan, not the path each create takes, is under test).
    block(world.store.run_sql(
        "INSERT INTO tasks (channel_id, number, scope_id, title, status, priority, labels, \
           checklist, urls, attachments, created_by, created_at, updated_at, search) \
         SELECT channel_id, 10 + g, 'copy-' || g, title, status, priority, labels, checklist, \
           urls, attachments, created_by, created_at + g, updated_at + g, search \
         FROM tasks, generate_series(1, 40000) g WHERE title = 'parent'",
    ))
    .unwrap();
    block(world.store.run_sql(
        "UPDATE pg_class SET reltuples = -1, relpages = 0 WHERE relname = 'tasks'; \
         DELETE FROM pg_statistic WHERE starelid = 'tasks'::regclass",
    ))
    .unwrap();
    for sort in ["updated_desc", "created_desc", "number_asc"] {
        let input = json!({"channel": "eng", "filters": {"parent": 1}, "sort": sort});
        let action = find("task", "list").unwrap();
        let input = crate::validate::validate(action, input).unwrap();
        let q = ListQuery::from_input(&world.alice, input).unwrap();
        let plan = block(world.store.explain_list(&world.alice, &q)).unwrap();
        assert!(plan.contains("tasks_by_parent"), "{sort}:\n{plan}");
        assert!(
            !plan.contains("tasks_by_board") && !plan.contains("Seq Scan on tasks t"),
            "{sort}: reads the board:\n{plan}"
        );
    }
}

/// Creates that queue while a group waits for its board's counter row
/// join that group once it holds the row, rather than wait for a group of
/// their own behind it: all of them commit in one transaction, so they
/// share its one time (postgres/writer.rs).
#[test]
fn postgres_creates_queued_behind_a_held_board_join_the_waiting_group() {
    use futures_util::future::join;
    use std::time::Duration;
    let world = world::<PgStore>();
    let none = WorkflowContext::default();
    let create = |title: String| {
        let action = find("task", "create").unwrap();
        let input = json!({"channel": "eng", "tasks": [{"title": title}]});
        let input = crate::validate::validate(action, input).unwrap();
        dispatch(&world.store, action, &world.alice, input, &none)
    };
    // The first create goes once the row is held; the others once the
    // first's group waits for it.
    let (stage, gate) = tokio::sync::watch::channel(0);
    let creates = futures_util::future::join_all((1..=8).map(|i| {
        let mut gate = gate.clone();
        let create = &create;
        async move {
            gate.wait_for(|&at| at >= i.min(2)).await.unwrap();
            create(format!("queued {i}")).await.unwrap()
        }
    }));
    let holder = async {
        let holder = hold_board(&world._place).await;
        stage.send(1).unwrap();
        until_blocked(&holder, 1).await;
        stage.send(2).unwrap();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
        while world.store.waiting_creates() != Some(7) {
            assert!(tokio::time::Instant::now() < deadline, "never queued");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        holder.batch_execute("ROLLBACK").await.unwrap();
    };
    let (created, ()) = block(join(creates, holder));
    let mut numbers: Vec<i64> = created
        .iter()
        .map(|c| c["tasks"][0]["number"].as_i64().unwrap())
        .collect();
    numbers.sort_unstable();
    assert_eq!(numbers, (1..=8).collect::<Vec<_>>());
    let times: std::collections::BTreeSet<&str> = created
        .iter()
        .map(|c| c["tasks"][0]["created_at"].as_str().unwrap())
        .collect();
    assert_eq!(times.len(), 1, "one group, one transaction: {times:?}");
}

/// A claim and a retitling of a subtask do not wait for a mutation that
/// holds its parent. A retitling writes the subtask's row twice (the
/// fields, then the search terms), as a claim did (the holder, then the
/// time), and PostgreSQL checks a row's foreign keys again on its second
/// write in a transaction, taking
/// `FOR KEY SHARE` on the parent: a parent held `FOR UPDATE` made them
/// wait, and, held by a delete or a claim that then wanted the subtask, a
/// deadlock (a second of `deadlock_timeout` each). Mutations lock tasks
/// `FOR NO KEY UPDATE`, which that check does not wait for.
#[test]
fn postgres_a_subtasks_mutation_does_not_wait_for_its_parents_lock() {
    use std::time::Duration;
    let world = world::<PgStore>();
    world.titles(&world.alice, "eng", &["parent"]);
    world.create(
        &world.alice,
        json!({"channel": "eng", "parent": 1, "tasks": [{"title": "child"}]}),
    );
    let none = WorkflowContext::default();
    let call = |verb: &str, input: Value| {
        let action = find("task", verb).unwrap();
        let input = crate::validate::validate(action, input).unwrap();
        dispatch(&world.store, action, &world.alice, input, &none)
    };
    block(async {
        // The parent, held as a mutation of it (a delete, a claim) holds it.
        let holder = hold(&world._place, "SELECT 1").await;
        let board: i64 = holder
            .query_one("SELECT channel_id FROM tasks WHERE title = 'child'", &[])
            .await
            .unwrap()
            .get(0);
        let held = holder
            .query_opt(super::postgres::tasks::LOCK_TASK, &[&board, &1i64])
            .await
            .unwrap();
        assert!(held.is_some(), "the parent is held");
        let claim = call(
            "set_claim",
            json!({"channel": "eng", "numbers": [2], "claimed": true}),
        );
        let retitle = call(
            "update",
            json!({"channel": "eng", "number": 2, "title": "renamed"}),
        );
        let both = futures_util::future::join(claim, retitle);
        let (claimed, retitled) = tokio::time::timeout(Duration::from_secs(20), both)
            .await
            .expect("a subtask's mutation waited for its parent's lock");
        holder.batch_execute("ROLLBACK").await.unwrap();
        assert_eq!(claimed.unwrap()["updated_count"], 1);
        assert_eq!(retitled.unwrap()["title"], "renamed");
    });
}

/// A move locks the task and its new parent in number order, as a claim
/// of both does: locking the task first, it held task 3 while it waited
/// for task 1, which a claim of `[1, 3]` held while it waited for task 3
/// (a deadlock; 2 of 31 in an audit's mixed soak).
#[test]
fn postgres_a_move_locks_the_task_and_its_new_parent_in_number_order() {
    let world = world::<PgStore>();
    world.titles(&world.alice, "eng", &["one", "two", "three"]);
    let input = json!({"channel": "eng", "number": 3, "parent": 1});
    let (moved, free) = asked_while_waiting(&world, "update", input, 1, 3);
    assert!(
        free.is_ok(),
        "the move held task 3 while it waited: {free:?}"
    );
    assert_eq!(moved.unwrap()["parent_number"], 1);
}

/// A recursive delete locks each level of subtasks at once, in number
/// order, as a claim locks its tasks: walking one subtask's branch after
/// another, it held task 5 while it waited for task 4, which a claim of
/// `[4, 5]` held while it waited for task 5 (a deadlock).
#[test]
fn postgres_a_recursive_delete_locks_each_level_in_number_order() {
    let world = world::<PgStore>();
    // 1 → 2, 3; 2 → 4; 3 → 5.
    world.titles(&world.alice, "eng", &["root"]);
    for parent in [1, 1, 2, 3] {
        world.create(
            &world.alice,
            json!({"channel": "eng", "parent": parent, "tasks": [{"title": format!("under {parent}")}]}),
        );
    }
    let input = json!({"channel": "eng", "number": 1, "subtask_mode": "delete"});
    let (deleted, free) = asked_while_waiting(&world, "delete", input, 4, 5);
    assert!(
        free.is_ok(),
        "the delete held task 5 while it waited: {free:?}"
    );
    assert_eq!(deleted.unwrap()["deleted_numbers"], json!([1, 2, 3, 4, 5]));
}

/// A delete locks its task and the subtasks it changes in number order,
/// as a claim of them does, whatever the tree: a task moved under a
/// parent with a higher number was locked after that parent, so the
/// delete held task 2 while it waited for task 1, which a claim of
/// `[1, 2]` held while it waited for task 2 (a deadlock).
#[test]
fn postgres_a_delete_locks_a_parent_after_its_lower_numbered_subtask() {
    for mode in ["promote", "delete"] {
        let world = world::<PgStore>();
        world.titles(&world.alice, "eng", &["one", "two"]);
        let moved = json!({"channel": "eng", "number": 1, "parent": 2});
        world.ok(&world.alice, "update", moved);
        let input = json!({"channel": "eng", "number": 2, "subtask_mode": mode});
        let (deleted, free) = asked_while_waiting(&world, "delete", input, 1, 2);
        assert!(
            free.is_ok(),
            "the {mode} held task 2 while it waited: {free:?}"
        );
        let deleted = deleted.unwrap();
        assert_eq!(
            deleted["deleted_numbers"].as_array().unwrap().len(),
            1 + usize::from(mode == "delete")
        );
    }
}

/// Runs alice's `verb` while a session holds task `held` of the board last
/// written to, with the mutations' own lock (`tasks::LOCK_TASK`); once the
/// call waits for it, the session asks for task `asked` without waiting,
/// as a claim of both would next. The call's answer, and whether `asked`
/// was free (an error: the waiting call held it, the makings of a
/// deadlock).
fn asked_while_waiting(
    world: &World<PgStore>,
    verb: &str,
    input: Value,
    held: i64,
    asked: i64,
) -> (Result<Value, Failure>, Result<(), tokio_postgres::Error>) {
    let none = WorkflowContext::default();
    let (stage, gate) = tokio::sync::watch::channel(0);
    let call = alice_at(world, &gate, 1, verb, input, &none);
    let lock = super::postgres::tasks::LOCK_TASK;
    let holder = async {
        let holder = hold(&world._place, "SELECT 1").await;
        let board: i64 = holder
            .query_one("SELECT channel_id FROM tasks ORDER BY id DESC LIMIT 1", &[])
            .await
            .unwrap()
            .get(0);
        holder.query_opt(lock, &[&board, &held]).await.unwrap();
        stage.send(1).unwrap();
        until_blocked(&holder, 1).await;
        let free = holder
            .query_opt(&format!("{lock} NOWAIT"), &[&board, &asked])
            .await
            .map(|_| ());
        holder.batch_execute("ROLLBACK").await.unwrap();
        free
    };
    block(futures_util::future::join(call, holder))
}

/// A session of its own holding the counter row of every board named
/// `eng`, until it rolls back.
async fn hold_board(place: &str) -> tokio_postgres::Client {
    hold(
        place,
        "SELECT 1 FROM channels WHERE name = 'eng' FOR UPDATE",
    )
    .await
}

/// A session of its own holding what `lock` locks, until it rolls back.
async fn hold(place: &str, lock: &str) -> tokio_postgres::Client {
    let (holder, connection) = tokio_postgres::connect(place, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    holder.batch_execute("BEGIN").await.unwrap();
    holder.batch_execute(lock).await.unwrap();
    holder
}

/// Waits until `n` sessions of the test's own database (other tests share
/// the server) wait for a lock; fails after a minute rather than hang.
async fn until_blocked(holder: &tokio_postgres::Client, n: i64) {
    const BLOCKED: &str = "SELECT count(*) FROM pg_stat_activity \
         WHERE datname = current_database() AND cardinality(pg_blocking_pids(pid)) > 0";
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(60);
    // The holder is inside a transaction, where PostgreSQL keeps answering
    // from its first look at the sessions: look afresh each time.
    let fresh = async || {
        holder
            .batch_execute("SELECT pg_stat_clear_snapshot()")
            .await
            .unwrap();
        holder
            .query_one(BLOCKED, &[])
            .await
            .unwrap()
            .get::<_, i64>(0)
    };
    while fresh().await < n {
        assert!(tokio::time::Instant::now() < deadline, "never {n} blocked");
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
}

/// A subtask's create and a move of its parent, at once, do not deadlock:
/// both take the board's counter row before the parent task (a create's
/// group locks the row, then the parent; `update_task` the row, then the
/// task). The database here never breaks a deadlock (`deadlock_timeout` of
/// an hour), so a deadlock fails the test when the statement timeout ends
/// it, instead of being retried.
#[test]
fn postgres_a_subtask_create_and_a_move_of_its_parent_do_not_deadlock() {
    // Board held: the move must not take task 1 before the board's row.
    let board = "SELECT 1 FROM channels WHERE name = 'eng' FOR UPDATE";
    subtask_create_and_parent_move(|_| json!({"channel": "eng", "parent": 1}), board);
    // Task 1 held: a task scope's create must not take it before the row.
    let task = "SELECT 1 FROM tasks WHERE number = 1 FOR UPDATE";
    subtask_create_and_parent_move(
        |scope| json!({"parent_task_scope": {"kind": "task", "scope_id": scope}}),
        task,
    );
}

/// A subtask of task 1 created (at `locator(task 1's scope id)`) while task
/// 1 moves under task 2, both waiting for what `held` locks.
fn subtask_create_and_parent_move(locator: impl Fn(&str) -> Value, held: &str) {
    let world = world::<PgStore>();
    assert_eq!(
        world.titles(&world.alice, "eng", &["moved", "new parent"]),
        [1, 2]
    );
    let scope = world.ok(&world.alice, "get", json!({"channel": "eng", "number": 1}))["scope_id"]
        .as_str()
        .unwrap()
        .to_string();
    let mut subtask = locator(&scope);
    subtask["tasks"] = json!([{"title": "sub"}]);
    let never = "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET deadlock_timeout = ''1h''', \
         current_database()); END $$";
    block(world.store.run_sql(never)).unwrap();
    // Every connection from here on opens with that setting.
    let world = world.reopen(<PgStore as Engine>::open);
    let none = WorkflowContext::default();
    let (stage, gate) = tokio::sync::watch::channel(0);
    let call = async |at: i32, verb: &str, input: Value| {
        let mut gate = gate.clone();
        gate.wait_for(|&stage| stage >= at).await.unwrap();
        let action = find("task", verb).unwrap();
        let input = crate::validate::validate(action, input).unwrap();
        dispatch(&world.store, action, &world.alice, input, &none).await
    };
    // The create waits for the row first, the move second; then the row is
    // let go and both run.
    let create = call(1, "create", subtask);
    let update = call(
        2,
        "update",
        json!({"channel": "eng", "number": 1, "parent": 2}),
    );
    let holder = async {
        let holder = hold(&world._place, held).await;
        stage.send(1).unwrap();
        until_blocked(&holder, 1).await;
        stage.send(2).unwrap();
        until_blocked(&holder, 2).await;
        holder.batch_execute("ROLLBACK").await.unwrap();
    };
    let (created, updated, ()) = block(futures_util::future::join3(create, update, holder));
    let created = created.unwrap_or_else(|f| panic!("create: {f:?}"));
    assert_eq!(created["tasks"][0]["parent_number"], 1, "{created}");
    let updated = updated.unwrap_or_else(|f| panic!("update: {f:?}"));
    assert_eq!(updated["parent_number"], 2, "{updated}");
}

/// A `dispatch` of `verb` by alice once `gate` reaches `at`.
async fn alice_at<E: Engine>(
    world: &World<E>,
    gate: &tokio::sync::watch::Receiver<i32>,
    at: i32,
    verb: &str,
    input: Value,
    workflow: &WorkflowContext,
) -> Result<Value, Failure> {
    let mut gate = gate.clone();
    gate.wait_for(|&stage| stage >= at).await.unwrap();
    let action = find("task", verb).unwrap();
    let input = crate::validate::validate(action, input).unwrap();
    dispatch(&world.store, action, &world.alice, input, workflow).await
}

/// A session of its own that runs `settings`, then holds task `number` of
/// `eng` and, under savepoint `board`, the board's counter row: `ROLLBACK TO
/// SAVEPOINT board` lets the row go and keeps the task.
async fn hold_task_and_board(place: &str, settings: &str, number: i64) -> tokio_postgres::Client {
    let holder = hold(place, settings).await;
    holder
        .batch_execute(&format!(
            "SELECT 1 FROM tasks WHERE number = {number} FOR UPDATE; SAVEPOINT board; \
             SELECT 1 FROM channels WHERE name = 'eng' FOR UPDATE"
        ))
        .await
        .unwrap();
    holder
}

/// Lets the create gated at 1 wait for the counter row `holder` holds, then
/// the one gated at 2 queue behind its group: the two run as one group once
/// the row is let go.
async fn two_creates_in_one_group(
    world: &World<PgStore>,
    holder: &tokio_postgres::Client,
    stage: &tokio::sync::watch::Sender<i32>,
) {
    stage.send(1).unwrap();
    until_blocked(holder, 1).await;
    stage.send(2).unwrap();
    until_queued(world, 1).await;
}

/// Waits until `n` creates queue behind a group; fails after a minute.
async fn until_queued(world: &World<PgStore>, n: usize) {
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(60);
    while world.store.waiting_creates() != Some(n) {
        assert!(tokio::time::Instant::now() < deadline, "never {n} queued");
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
}

/// A group of subtask creates and a claim of their parents, at once, do
/// not deadlock: the group locks its parents in the order of their numbers,
/// as `set_claim` does, not in the order its creates came (here task 2's
/// create first, then task 1's, while the claim takes 1 and then 2). The
/// database never breaks a deadlock here (`deadlock_timeout` of an hour),
/// so one fails the test when the statement timeout ends it.
#[test]
fn postgres_a_group_of_subtask_creates_and_a_claim_do_not_deadlock() {
    let world = world::<PgStore>();
    assert_eq!(world.titles(&world.alice, "eng", &["one", "two"]), [1, 2]);
    let never = "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET deadlock_timeout = ''1h''', \
         current_database()); END $$";
    block(world.store.run_sql(never)).unwrap();
    let world = world.reopen(<PgStore as Engine>::open);
    let none = WorkflowContext::default();
    let (stage, gate) = tokio::sync::watch::channel(0);
    let sub =
        |parent: i64| json!({"channel": "eng", "parent": parent, "tasks": [{"title": "sub"}]});
    let under_2 = alice_at(&world, &gate, 1, "create", sub(2), &none);
    let under_1 = alice_at(&world, &gate, 2, "create", sub(1), &none);
    let claim = json!({"channel": "eng", "numbers": [1, 2], "claimed": true});
    let claim = alice_at(&world, &gate, 3, "set_claim", claim, &none);
    let holder = async {
        // Task 1 held, and the board's counter row until the creates queue.
        let holder = hold_task_and_board(&world._place, "", 1).await;
        two_creates_in_one_group(&world, &holder, &stage).await;
        stage.send(3).unwrap();
        // The claim waits for task 1; then the group, holding the row, too.
        until_blocked(&holder, 2).await;
        holder
            .batch_execute("ROLLBACK TO SAVEPOINT board")
            .await
            .unwrap();
        until_blocked(&holder, 2).await;
        holder.batch_execute("ROLLBACK").await.unwrap();
    };
    let (under_2, under_1, claimed, ()) =
        block(futures_util::future::join4(under_2, under_1, claim, holder));
    for created in [under_2, under_1] {
        let created = created.unwrap_or_else(|f| panic!("create: {f:?}"));
        assert_eq!(created["tasks"][0]["title"], "sub", "{created}");
    }
    let claimed = claimed.unwrap_or_else(|f| panic!("claim: {f:?}"));
    assert_eq!(claimed["updated_count"], 2, "{claimed}");
}

/// A group of creates that loses a deadlock runs again, each create
/// answered as if alone: here the group waits for task 2 (held by another
/// session) while that session waits for the group's counter row, and the
/// group is the victim. Its other create, under deleted task 1, had its
/// statements fail with 25P02 behind the deadlock; that was answered 500
/// for the whole group instead of the retry.
#[test]
fn postgres_a_group_of_creates_that_loses_a_deadlock_runs_again() {
    let world = world::<PgStore>();
    assert_eq!(world.titles(&world.alice, "eng", &["gone", "two"]), [1, 2]);
    world.ok(
        &world.alice,
        "delete",
        json!({"channel": "eng", "number": 1}),
    );
    let deadlocks = "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()";
    let none = WorkflowContext::default();
    let (stage, gate) = tokio::sync::watch::channel(0);
    let sub =
        |parent: i64| json!({"channel": "eng", "parent": parent, "tasks": [{"title": "sub"}]});
    let under_1 = alice_at(&world, &gate, 1, "create", sub(1), &none);
    let under_2 = alice_at(&world, &gate, 2, "create", sub(2), &none);
    let holder = async {
        // This session's own deadlock check waits ten seconds, so the
        // group's (after one) finds the cycle and is the victim.
        let holder =
            hold_task_and_board(&world._place, "SET LOCAL deadlock_timeout = '10s'", 2).await;
        let before: i64 = holder.query_one(deadlocks, &[]).await.unwrap().get(0);
        two_creates_in_one_group(&world, &holder, &stage).await;
        holder
            .batch_execute("ROLLBACK TO SAVEPOINT board")
            .await
            .unwrap();
        // The group holds the row and waits for task 2: take the row.
        until_blocked(&holder, 1).await;
        holder
            .batch_execute("SELECT 1 FROM channels WHERE name = 'eng' FOR UPDATE")
            .await
            .unwrap();
        holder.batch_execute("ROLLBACK").await.unwrap();
        // The victim's backend counts the deadlock in its pending
        // statistics, flushed at most about once a second: look until it
        // shows, within a bound.
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(15);
        loop {
            let after: i64 = holder.query_one(deadlocks, &[]).await.unwrap().get(0);
            if after > before {
                break;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "no deadlock happened"
            );
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    };
    let (under_1, under_2, ()) = block(futures_util::future::join3(under_1, under_2, holder));
    let refused = under_1.unwrap_err();
    assert_eq!(refused.code, "parent_not_found", "{refused:?}");
    let created = under_2.unwrap_or_else(|f| panic!("create under 2: {f:?}"));
    assert_eq!(created["tasks"][0]["parent_number"], 2, "{created}");
}

/// A keyed create in flight when its callback completes is refused, not
/// committed after `callback complete` returned: the create reads the
/// callback again, held, in its transaction. Here it waits for the board's
/// counter row (held by another session) while the callback completes.
#[test]
fn postgres_a_keyed_create_in_flight_when_its_callback_completes_is_refused() {
    let world = world::<PgStore>();
    let ws = world.alice.workspace_id.clone();
    let cb = block(world.store.open_callback(&ws, &world.alice.agent_id)).unwrap();
    let workflow = WorkflowContext {
        workflow_run_id: Some(cb.workflow_run_id.clone()),
        callback_effect_id: Some(cb.callback_effect_id.clone()),
    };
    let (stage, gate) = tokio::sync::watch::channel(0);
    let input = json!({"channel": "eng", "tasks": [{"title": "effect"}], "idempotency_key": "k"});
    let create = alice_at(&world, &gate, 1, "create", input.clone(), &workflow);
    let holder = async {
        let holder = hold_board(&world._place).await;
        stage.send(1).unwrap();
        until_blocked(&holder, 1).await;
        world
            .store
            .complete_callback(&ws, &cb.callback_effect_id)
            .await
            .unwrap();
        holder.batch_execute("ROLLBACK").await.unwrap();
    };
    let (created, ()) = block(futures_util::future::join(create, holder));
    let refused = created.unwrap_err();
    assert_eq!(refused.code, "callback_not_active", "{refused:?}");
    assert_eq!(world.store.events("created"), 0);
    // Nothing was committed, so nothing replays either.
    let again = world.call_with(&world.alice, "create", input, &workflow);
    assert_eq!(again.unwrap_err().code, "callback_not_active");
}

/// A mutation takes its time once it holds its locks, not when its
/// transaction starts: one that waited for a lock is stamped after the
/// holder let go, so times follow the order in which mutations of the same
/// rows commit (a checkpoint's time its place among the task's, newest
/// first; a board's numbers their creation times; a recursive delete's
/// tombstones after a descendant's last write).
#[test]
fn postgres_a_mutation_is_stamped_once_it_holds_its_locks() {
    let world = world::<PgStore>();
    world.titles(&world.alice, "eng", &["one"]);
    // #2 under #1, #3 under #2: a recursive delete of #1 locks #3 last.
    for parent in [1, 2] {
        world.create(
            &world.alice,
            json!({"channel": "eng", "parent": parent, "tasks": [{"title": "below"}]}),
        );
    }
    let none = WorkflowContext::default();
    let checkpoint = json!({"channel": "eng", "number": 1, "summary": "waited"});
    let create = json!({"channel": "eng", "tasks": [{"title": "waited"}]});
    let delete = json!({"channel": "eng", "number": 1, "subtask_mode": "delete"});
    for (verb, input, held) in [
        (
            "checkpoint",
            checkpoint,
            "SELECT 1 FROM tasks WHERE number = 1 FOR UPDATE",
        ),
        (
            "create",
            create,
            "SELECT 1 FROM channels WHERE name = 'eng' FOR UPDATE",
        ),
        (
            "delete",
            delete,
            "SELECT 1 FROM tasks WHERE number = 3 FOR UPDATE",
        ),
    ] {
        let (stage, gate) = tokio::sync::watch::channel(0);
        let call = alice_at(&world, &gate, 1, verb, input, &none);
        let holder = async {
            let holder = hold(&world._place, held).await;
            stage.send(1).unwrap();
            until_blocked(&holder, 1).await;
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            let released: i64 = holder
                .query_one(
                    "SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint",
                    &[],
                )
                .await
                .unwrap()
                .get(0);
            holder.batch_execute("ROLLBACK").await.unwrap();
            released
        };
        let (answer, released) = block(futures_util::future::join(call, holder));
        let answer = answer.unwrap_or_else(|f| panic!("{verb}: {f:?}"));
        let stamped = match verb {
            "checkpoint" => &answer["checkpoint"]["created_at"],
            "create" => &answer["tasks"][0]["created_at"],
            // A delete answers no time: its tombstone's, on the task it
            // waited for.
            _ => {
                assert_eq!(answer["deleted_numbers"], json!([1, 2, 3]), "{answer}");
                let held = block(hold(&world._place, "SELECT 1"));
                let row =
                    block(held.query_one("SELECT deleted_at FROM tasks WHERE number = 3", &[]))
                        .unwrap();
                let deleted: i64 = row.get(0);
                assert!(
                    deleted >= released,
                    "delete stamped {} µs early",
                    released - deleted
                );
                continue;
            }
        };
        let stamped = time::OffsetDateTime::parse(
            stamped.as_str().unwrap(),
            &time::format_description::well_known::Rfc3339,
        )
        .unwrap();
        let stamped = (stamped.unix_timestamp_nanos() / 1000) as i64;
        assert!(
            stamped >= released,
            "{verb} stamped {} µs before the lock it waited for was let go",
            released - stamped
        );
    }
}

/// A callback's completion is stamped once it holds the callback's row:
/// after the keyed creates that found it open (each holds it `FOR SHARE`,
/// as this test's session does) have committed, not before their effects.
#[test]
fn postgres_a_callback_completion_is_stamped_after_the_creates_it_waited_for() {
    let world = world::<PgStore>();
    let ws = world.alice.workspace_id.clone();
    let cb = block(world.store.open_callback(&ws, &world.alice.agent_id)).unwrap();
    let clock_now = "SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint";
    let (released, completed) = block(async {
        let holder = hold(&world._place, "SELECT 1 FROM callbacks FOR SHARE").await;
        let complete = world.store.complete_callback(&ws, &cb.callback_effect_id);
        let release = async {
            until_blocked(&holder, 1).await;
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            let released: i64 = holder.query_one(clock_now, &[]).await.unwrap().get(0);
            holder.batch_execute("ROLLBACK").await.unwrap();
            released
        };
        let (completed, released) = futures_util::future::join(complete, release).await;
        completed.unwrap();
        let completed: i64 = holder
            .query_one("SELECT completed_at FROM callbacks", &[])
            .await
            .unwrap()
            .get(0);
        (released, completed)
    });
    assert!(
        completed >= released,
        "completion stamped {} µs before the create it waited for let go",
        released - completed
    );
}

/// PostgreSQL's search index has no pending list (migration 4): no create
/// pays for merging one (docs/performance.md, task.create p99).
#[test]
fn postgres_search_index_takes_new_words_at_once() {
    let place = <PgStore as Engine>::place();
    let store = <PgStore as Engine>::open(&place);
    block(store.run_sql(
        "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_class WHERE relname = 'tasks_search' \
         AND 'fastupdate=off' = ANY (reloptions)) THEN \
         RAISE EXCEPTION 'tasks_search keeps a pending list'; END IF; END $$",
    ))
    .unwrap();
}

#[test]
fn a_create_naming_its_parent_1_0_is_the_same_intent_as_1() {
    let create = find("task", "create").unwrap();
    let digest = |parent: Value| {
        let input = json!({"channel": "eng", "parent": parent, "tasks": [{"title": "t"}]});
        let valid = crate::validate::validate(create, input).unwrap();
        let typed = CreateInput::from_input(valid).unwrap();
        (typed.parent, typed.payload_digest)
    };
    assert_eq!(digest(json!(1.0)), digest(json!(1)));
    assert_eq!(digest(json!(1.0)).0, Some(1));
}

/// An update naming every field the registry lists reads into one change
/// per field, in the registry's order: the typed input, its changes and the
/// registry's list agree, so an engine cannot silently drop a field.
#[test]
fn every_update_field_of_the_registry_becomes_one_change() {
    use crate::registry::task::update::Field;
    let update = find("task", "update").unwrap();
    let mut input = json!({"channel": "eng", "number": 1});
    for field in Field::ALL {
        input[field.name()] = match field {
            Field::Title => json!("t"),
            Field::Description | Field::Blocker => json!(null),
            Field::Status => json!("done"),
            Field::Priority => json!("high"),
            Field::Assignee => json!("@alice"),
            Field::Labels => json!(["x"]),
            Field::Checklist => json!([{"text": "c"}]),
            Field::Urls => json!(["https://example.com"]),
            Field::Attachments => json!([{"name": "n", "url": "https://example.com"}]),
            Field::Parent => json!(2),
        };
    }
    let valid = crate::validate::validate(update, input).unwrap();
    let typed: UpdateInput = typed(valid).unwrap();
    let fields: Vec<Field> = typed.changes().iter().map(Change::field).collect();
    assert_eq!(fields, Field::ALL);
}

/// A field the schema admits but a typed input does not know is a server
/// error, never a silent drop.
#[test]
fn typed_inputs_refuse_fields_they_do_not_know() {
    let refused = |input: Value| typed::<UpdateInput>(input).unwrap_err().code;
    assert_eq!(
        refused(json!({"channel": "eng", "number": 1, "title": "t", "colour": "red"})),
        code::SERVER_ERROR.code
    );
    let create = json!({"channel": "eng", "tasks": [{"title": "t", "colour": "red"}]});
    assert!(CreateInput::from_input(create).is_err());
    let locator = json!({"channel": "eng", "number": 1, "extra": 1});
    assert!(typed::<TaskLocator>(locator).is_err());
    let claim = json!({"channel": "eng", "numbers": [1], "claimed": true, "extra": 1});
    assert!(typed::<SetClaimInput>(claim).is_err());
    let checkpoint = json!({"channel": "eng", "number": 1, "summary": "s", "extra": 1});
    assert!(typed::<CheckpointInput>(checkpoint).is_err());
    let delete = json!({"channel": "eng", "number": 1, "extra": 1});
    assert!(typed::<DeleteInput>(delete).is_err());
    let principal = Principal {
        workspace_id: "ws_1".into(),
        agent_id: "ag_1".into(),
        handle: "alice".into(),
    };
    let list = json!({"channel": "eng", "filters": {"assigned_to_me": true, "extra": 1}});
    assert!(ListQuery::from_input(&principal, list).is_err());
}

/// libpq's key=value form is refused whatever its spacing or keys; a path
/// written as one (`./NAME`) is a path, whatever its name holds.
#[test]
fn a_conninfo_string_is_no_path_but_a_path_may_hold_an_equals_sign() {
    use std::ffi::OsStr;
    for db in [
        "host=h user=u",
        "host = h",
        "target_session_attrs=any",
        "SSLMODE=disable",
    ] {
        let refused = Location::parse(OsStr::new(db)).unwrap_err();
        assert!(refused.message.contains("key=value"), "{db}: {refused:?}");
        assert!(!refused.message.contains(db), "{db} is quoted");
    }
    for path in ["./my user=x.db", "/tmp/user=x.db", "store.db", "a=b.db"] {
        assert!(
            matches!(Location::parse(OsStr::new(path)), Ok(Location::Sqlite(_))),
            "{path}"
        );
    }
}

/// The admin listings: every workspace oldest first (two of one name told
/// apart by id), a workspace's agents by handle and its channels by name,
/// a private board's members by handle and a public one's none; an
/// unknown workspace refused as every admin command refuses it.
fn admin_lists_show_workspaces_agents_and_channels<E: Engine>() {
    let w = world::<E>();
    let again = block(w.store.create_workspace("w")).unwrap();
    let workspaces = block(w.store.list_workspaces()).unwrap();
    let names: Vec<&str> = workspaces.iter().map(|ws| ws.name.as_str()).collect();
    assert_eq!(names, ["w", "other", "w"]);
    assert_eq!(workspaces[0].workspace_id, w.alice.workspace_id);
    assert_eq!(workspaces[2].workspace_id, again);
    assert!(
        workspaces
            .windows(2)
            .all(|p| p[0].created_at <= p[1].created_at)
    );

    let agents = block(w.store.list_agents(&w.alice.workspace_id)).unwrap();
    let handles: Vec<&str> = agents.iter().map(|a| a.handle.as_str()).collect();
    assert_eq!(handles, ["alice", "bob", "carol"]);
    assert_eq!(agents[0].agent_id, w.alice.agent_id);
    assert!(block(w.store.list_agents(&again)).unwrap().is_empty());

    block(w.store.create_channel(
        &w.alice.workspace_id,
        "pair",
        Some(&["@bob".to_string(), "@alice".to_string()]),
    ))
    .unwrap();
    let channels = block(w.store.list_channels(&w.alice.workspace_id)).unwrap();
    let shown: Vec<(&str, Option<Vec<&str>>)> = channels
        .iter()
        .map(|c| {
            let members = c.members.as_ref();
            (
                c.name.as_str(),
                members.map(|m| m.iter().map(String::as_str).collect()),
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            ("eng", None),
            ("ops", None),
            ("pair", Some(vec!["alice", "bob"])),
            ("secret", Some(vec!["alice"])),
        ]
    );
    let other = block(w.store.list_channels(&w.mallory.workspace_id)).unwrap();
    assert_eq!(other.len(), 1, "{other:?}");

    for failure in [
        block(w.store.list_agents("ws_none")).unwrap_err(),
        block(w.store.list_channels("ws_none")).unwrap_err(),
    ] {
        assert_eq!(failure.code, code::INVALID_INPUT.code, "{failure:?}");
        assert_eq!(failure.field_errors["workspace"], "No such workspace.");
    }
    // A workspace's name where its id belongs: its id is named, or the
    // ids of every workspace of that name, oldest first.
    let failure = block(w.store.list_channels("other")).unwrap_err();
    assert_eq!(
        failure.field_errors["workspace"],
        format!(
            "No such workspace id: `other` is the name of workspace {}; pass its id.",
            w.mallory.workspace_id
        )
    );
    let ws = &w.alice.workspace_id;
    let failure = block(w.store.list_agents("w")).unwrap_err();
    assert_eq!(
        failure.field_errors["workspace"],
        format!(
            "No such workspace id: `w` is the name of workspaces {ws}, {again}; pass the id of the one meant."
        )
    );
}

/// The admin listings order text byte by byte on PostgreSQL as SQLite does,
/// whatever the database's collation: on an ICU `en-US` database `a_b`
/// sorted before `a-b` (punctuation weighs little there), on SQLite after.
#[test]
fn postgres_admin_lists_order_text_as_sqlite_does_whatever_the_collation() {
    let cluster = cluster::Cluster::shared();
    let name = format!("{}_icu", cluster.new_database());
    cluster.psql(
        "postgres",
        &format!(
            "CREATE DATABASE {name} TEMPLATE template0 LOCALE_PROVIDER icu \
             ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'"
        ),
    );
    let store = <PgStore as Engine>::open(&cluster.socket_uri(&name));
    let ws = block(store.create_workspace("w")).unwrap();
    for handle in ["ab", "a_b", "a-b"] {
        let (_, hash) = crate::runtime::auth::new_token().unwrap();
        block(store.create_agent(&ws, handle, &NewToken::new(hash))).unwrap();
        block(store.create_channel(&ws, &format!("x{handle}"), None)).unwrap();
    }
    let agents = block(store.list_agents(&ws)).unwrap();
    let handles: Vec<&str> = agents.iter().map(|a| a.handle.as_str()).collect();
    assert_eq!(handles, ["a-b", "a_b", "ab"]);
    let channels = block(store.list_channels(&ws)).unwrap();
    let names: Vec<&str> = channels.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["xa-b", "xa_b", "xab"]);
}

/// An admin command's agent given as a bare word: told to write `@word`
/// when that agent exists (the word shown: a handle is no secret), else
/// where agents are listed; an id or a member ref that is not there gets
/// neither.
fn a_bare_handle_is_named_with_its_at_only_when_it_exists<E: Engine>() {
    let w = world::<E>();
    let ws = w.alice.workspace_id.clone();
    let problem = |f: Failure, field: &str| f.field_errors[field].clone();
    let members = |member: &str| {
        let refused = block(
            w.store
                .create_channel(&ws, "p", Some(&[member.to_string()])),
        );
        problem(refused.unwrap_err(), "members")
    };
    assert_eq!(
        members("alice"),
        "No agent `alice` in the workspace. Its member ref is `@alice`: write the `@`."
    );
    assert!(members("zed").ends_with("`agent list --workspace …` lists them."));
    assert_eq!(members("@zed"), "No agent `@zed` in the workspace.");
    let agent = |agent: &str| {
        problem(
            block(w.store.count_tokens(&ws, agent)).unwrap_err(),
            "agent",
        )
    };
    assert!(agent("bob").contains("`@bob`"));
    assert_eq!(
        agent("ag_000000000000000000000000"),
        "No such agent in the workspace."
    );
    // Of another workspace: not there.
    assert!(agent("mallory").contains("agent list"));
    // A handle that starts as a token does is shown once it is known to be
    // one; a token given in its place is not.
    let (_, hash) = crate::runtime::auth::new_token().unwrap();
    block(
        w.store
            .create_agent(&ws, "at_home-2024-builder", &NewToken::new(hash)),
    )
    .unwrap();
    assert_eq!(
        members("at_home-2024-builder"),
        "No agent `at_home-2024-builder` in the workspace. Its member ref is `@at_home-2024-builder`: write the `@`."
    );
    let (token, _) = crate::runtime::auth::new_token().unwrap();
    let refused = members(&token);
    assert!(!refused.contains(&token[3..]), "{refused}");
}
