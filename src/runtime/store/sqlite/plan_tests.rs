//! Query plans of `task_list`, the one query whose cost could grow with the
//! board: searches must start from the FTS index and browsing must read a
//! board index in page order and stop at the limit. The store
//! never runs ANALYZE, so these plans, made from the schema alone, are the
//! plans a real store uses at any size. Pruning dead tokens, which every
//! token issue does, reads only the dead tokens through an index.

use serde_json::{Value, json};

use super::tasks::list_sql;
use super::*;
use crate::registry::find;

fn store() -> (tempfile::TempDir, SqliteStore, Principal) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("rt.db"), OnOpen::Migrate).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let ws = rt.block_on(store.create_workspace("w")).unwrap();
    let (_, hash) = auth::new_token().unwrap();
    rt.block_on(store.create_agent(&ws, "alice", &crate::runtime::store::NewToken::new(hash)))
        .unwrap();
    rt.block_on(store.create_channel(&ws, "eng", None)).unwrap();
    let alice = rt
        .block_on(store.find_agent(&ws, "@alice"))
        .unwrap()
        .unwrap();
    (dir, store, alice)
}

fn query(who: &Principal, input: Value) -> ListQuery {
    let action = find("task", "list").unwrap();
    let input = crate::validate::validate(action, input).unwrap();
    ListQuery::from_input(who, input).unwrap()
}

/// The EXPLAIN QUERY PLAN detail lines of the page query for `q`.
fn plan(store: &SqliteStore, q: &ListQuery) -> Vec<String> {
    let (sql, args) = list_sql(1, q).expect("a query with words");
    store
        .read(|c| {
            let mut stmt = c.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
            let rows = stmt.query_map(rusqlite::params_from_iter(args.iter()), |r| {
                r.get::<_, String>(3)
            })?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
        .unwrap()
}

fn with_cursor(mut q: ListQuery) -> ListQuery {
    q.after = Some(match q.sort {
        Sort::UpdatedDesc => After::Updated { at: 5, number: 3 },
        Sort::CreatedDesc => After::Created { at: 5, number: 3 },
        Sort::NumberAsc => After::Number { number: 3 },
        Sort::Relevance => After::Relevance {
            score: -1.0,
            number: 3,
        },
    });
    q
}

/// The query of `input`'s first page, and of a next one (with a cursor).
fn first_and_next(who: &Principal, input: &Value) -> [ListQuery; 2] {
    [
        query(who, input.clone()),
        with_cursor(query(who, input.clone())),
    ]
}

/// The step of `plan` that reads the tasks table.
fn tasks_step<'a>(plan: &'a [String], input: &Value) -> &'a String {
    plan.iter()
        .find(|line| line.contains(" t USING"))
        .unwrap_or_else(|| panic!("{input}: no step reads tasks: {plan:?}"))
}

#[test]
fn browsing_reads_a_board_index_in_page_order() {
    let (_dir, store, alice) = store();
    let cases = [
        (json!({"channel": "eng"}), "tasks_by_board_updated"),
        (
            json!({"channel": "eng", "sort": "created_desc", "status": "done"}),
            "tasks_by_board_created",
        ),
        (
            json!({"channel": "eng", "sort": "number_asc", "include_subtasks": true}),
            "sqlite_autoindex_tasks_",
        ),
        (
            json!({"channel": "eng", "filters": {"assignee": "@alice", "labels": ["x"]}}),
            "tasks_by_board_updated",
        ),
    ];
    for (input, index) in cases {
        for q in first_and_next(&alice, &input) {
            let plan = plan(&store, &q);
            let tasks = tasks_step(&plan, &input);
            assert!(
                tasks.starts_with("SEARCH t USING INDEX") && tasks.contains(index),
                "{input} (cursor: {}): tasks read by {tasks:?}, not {index}: {plan:?}",
                q.after.is_some()
            );
            assert!(
                !plan.iter().any(|line| line.contains("TEMP B-TREE")),
                "{input}: sorts instead of reading in page order: {plan:?}"
            );
            if q.after.is_some() && index != "sqlite_autoindex_tasks_" {
                // The cursor is part of the index range, not a filter on a
                // walk from the first page.
                assert!(
                    tasks.contains("(channel_id=? AND ("),
                    "{input}: the cursor does not bound the index range: {tasks:?}"
                );
            }
        }
    }
}

#[test]
fn searching_starts_from_the_fts_index() {
    let (_dir, store, alice) = store();
    for input in [
        json!({"channel": "eng", "query": "deploy cache"}),
        json!({"channel": "eng", "query": "deploying caches"}),
        json!({"channel": "eng", "query": "deploy", "sort": "updated_desc", "status": "all"}),
        json!({"channel": "eng", "query": "deploy", "filters": {"labels": ["ops"]}}),
        json!({"channel": "eng", "query": "deploy", "filters": {"assignee": "@alice"}}),
    ] {
        for q in [
            query(&alice, input.clone()),
            with_cursor(query(&alice, input.clone())),
        ] {
            let plan = plan(&store, &q);
            assert!(
                plan.iter()
                    .any(|line| line.starts_with("SCAN task_fts VIRTUAL TABLE INDEX")),
                "{input}: the FTS index is not used: {plan:?}"
            );
            // Every task row is found by its id from a hit, never by a scan.
            assert!(
                plan.iter()
                    .any(|line| line.starts_with("SEARCH t USING INTEGER PRIMARY KEY (rowid=?)")),
                "{input}: tasks are not looked up by hit id: {plan:?}"
            );
            assert!(
                !plan.iter().any(|line| {
                    let words: Vec<&str> = line.split(' ').collect();
                    words.first() == Some(&"SCAN") && matches!(words.get(1), Some(&("t" | "tasks")))
                }),
                "{input}: scans the tasks table: {plan:?}"
            );
            // Channel, creator and parent are joined for the page's rows
            // only, after the hits are ranked and cut to the page.
            let page = plan
                .iter()
                .position(|line| line == "SCAN page")
                .unwrap_or_else(|| panic!("{input}: no page of hits: {plan:?}"));
            assert!(
                !plan[..page]
                    .iter()
                    .any(|line| ["SEARCH c ", "SEARCH cb ", "SEARCH p "]
                        .iter()
                        .any(|join| line.starts_with(join))),
                "{input}: every hit joins its columns: {plan:?}"
            );
        }
    }
}

#[test]
fn pruning_dead_tokens_reads_only_them_through_an_index() {
    let (_dir, store, _) = store();
    for (sql, index) in [
        (super::admin::PRUNE_EXPIRED, "tokens_by_expiry"),
        (super::admin::PRUNE_REVOKED, "tokens_by_revocation"),
    ] {
        let plan = store
            .read(|c| {
                let mut stmt = c.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
                let rows = stmt.query_map(
                    rusqlite::params_from_iter([0i64; 1].iter().take(sql.matches('?').count())),
                    |r| r.get::<_, String>(3),
                )?;
                Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
            })
            .unwrap();
        assert!(
            plan.iter().any(|line| line.contains(index))
                && !plan.iter().any(|l| l.starts_with("SCAN")),
            "{sql}: {plan:?}"
        );
    }
}

/// A list of one task's subtasks reads them through `tasks_by_parent`,
/// whatever the order asked: a walk of the board's index in page order,
/// filtered by parent, would read the whole board for a parent with a
/// handful of subtasks.
#[test]
fn filtering_by_parent_reads_the_parents_subtasks_only() {
    let (_dir, store, alice) = store();
    for sort in ["updated_desc", "created_desc", "number_asc"] {
        let input = json!({"channel": "eng", "filters": {"parent": 1}, "sort": sort});
        for q in first_and_next(&alice, &input) {
            let plan = plan(&store, &q);
            let tasks = tasks_step(&plan, &input);
            assert!(
                tasks.starts_with("SEARCH t USING INDEX tasks_by_parent (parent_id=?)"),
                "{input} (cursor: {}): tasks read by {tasks:?}: {plan:?}",
                q.after.is_some()
            );
        }
    }
}
