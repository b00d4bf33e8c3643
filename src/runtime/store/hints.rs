//! `task_list`, and what its empty first page names: the call that finds
//! what the list's defaults left out (`subtasks_match`, `closed_match`) or
//! what a slip in it missed (`labels_match`, `filter_match`,
//! `spelling_match`, `channel_match`, `words_match`). Engine-agnostic: each
//! look is a read through [`Store`], made on such pages only.

use serde_json::{Value, json};

use super::{ListQuery, Principal, Sort, Store, UpdateInput, View, fold_labels, refusals, search};
use crate::error::Failure;
use crate::registry::task::list::MAX_LIMIT;

/// `task_list`. An empty first page also names the call that finds what
/// its defaults left out, when something matches there: the subtasks
/// (`include_subtasks` left out or given its default, `false`:
/// `subtasks_match`, the same call with subtasks included), else for a
/// search the done and canceled tasks (`status` left out or `active`:
/// `closed_match`, the same call with `status: "all"`), else what
/// a slip in it missed: the label meant ([`labels_match`], a browse's
/// empty first page too), the filter its query names ([`filter_match`]),
/// the words as the board spells them ([`spelling_match`]), another board
/// ([`channel_match`]), a word fewer ([`words_match`]). One call is named,
/// the first of these that finds a task. An agent that searches before it creates would otherwise take
/// the empty page for "no such task" and create a duplicate. Each look
/// costs reads, on such pages only.
pub(super) async fn list<S: Store>(
    store: &S,
    principal: &Principal,
    input: Value,
    given: &Value,
) -> Result<Value, Failure> {
    use crate::registry::task::fields::{
        CHANNEL_MATCH, CLOSED_MATCH, FILTER_MATCH, LABELS_MATCH, SPELLING_MATCH, SUBTASKS_MATCH,
        WORDS_MATCH,
    };
    let query = ListQuery::from_input(principal, input)?;
    let mut page = store.list(principal, &query).await?;
    let first_page = query.after.is_none() && query.cursor_refused.is_none();
    if !(first_page && found_none(&page)) {
        return Ok(page);
    }
    // Each default that leaves a page's matches out, when the caller did
    // not give its field: the field's widest value, and the query with it.
    let search = query.search.is_some();
    struct Widening {
        field: &'static str,
        key: &'static str,
        // The field's default: given as it is (a tool framework writes
        // every parameter), it is no choice to honour.
        default: Value,
        value: Value,
        leaves_out: bool,
        widen: fn(ListQuery) -> ListQuery,
    }
    let widenings = [
        Widening {
            field: SUBTASKS_MATCH,
            key: "include_subtasks",
            default: json!(false),
            value: json!(true),
            // A browse too: `filters.assignee: "@bob"` read as "bob holds
            // nothing" when bob holds subtasks alone.
            leaves_out: !query.include_subtasks,
            widen: |q| ListQuery {
                include_subtasks: true,
                ..q
            },
        },
        Widening {
            field: CLOSED_MATCH,
            key: "status",
            default: json!("active"),
            value: json!("all"),
            leaves_out: search && query.view != View::All,
            widen: |q| ListQuery {
                view: View::All,
                ..q
            },
        },
    ];
    for w in widenings {
        if !w.leaves_out || given.get(w.key).is_some_and(|value| *value != w.default) {
            continue;
        }
        let mut arguments = given.clone();
        arguments[w.key] = w.value;
        let wider = (w.widen)(query.clone());
        if let Some(call) = call_if_found(store, principal, wider, arguments).await? {
            page[w.field] = call;
            return Ok(page);
        }
    }
    if let Some(call) = labels_match(store, principal, &query, given).await? {
        page[LABELS_MATCH] = call;
    } else if let Some(call) = filter_match(store, principal, &query, given).await? {
        page[FILTER_MATCH] = call;
    } else if query.search.as_deref().is_some_and(is_member_ref) {
        // A member ref is no words to mend, move or shorten.
    } else if let Some(call) = spelling_match(store, principal, &query, given).await? {
        page[SPELLING_MATCH] = call;
    } else if let Some(call) = channel_match(store, principal, &query, given).await? {
        page[CHANNEL_MATCH] = call;
    } else if let Some(call) = words_match(store, principal, &query, given).await? {
        page[WORDS_MATCH] = call;
    }
    Ok(page)
}

/// For an empty first page of a search whose whole query names what a
/// filter selects rather than words of a task: a member ref (`@bob`; a
/// word for the caller, `@me`, is refused in a query by `list::check`), a
/// status (`done`, `in progress`) or a label of the board (`frontend`).
/// The same call with the query given as that filter (`filters.assignee`,
/// `status`, `filters.labels`) in its place, when that call finds a task
/// (`filter_match`). A search matches words of titles and descriptions,
/// so `query: "@bob"` answers an empty page an agent takes for "bob holds
/// nothing". One member ref among words (`@bob login`) is that filter
/// too, the other words still the query. A filter the call already gives
/// is not replaced. Read on such pages only: the board's labels when the
/// query is one word, and the page of the call named.
async fn filter_match<S: Store>(
    store: &S,
    principal: &Principal,
    query: &ListQuery,
    given: &Value,
) -> Result<Option<Value>, Failure> {
    use crate::registry::task::fields::STATUSES;
    let Some(text) = query.search.as_deref() else {
        return Ok(None);
    };
    let filters = given.get("filters");
    let has = |key: &str| filters.and_then(|f| f.get(key)).is_some();
    // One member ref among words (`@bob login`): the member as the filter,
    // the other words still searched.
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut members = words.iter().filter(|word| is_member_ref(word));
    let (member, rest) = match (members.next(), members.next()) {
        (Some(member), None) if words.len() > 1 => {
            let rest: Vec<&str> = words.iter().copied().filter(|w| w != member).collect();
            (Some(*member), Some(rest.join(" ")))
        }
        _ => (is_member_ref(text).then_some(text), None),
    };
    // The call as a browse: what only a search takes goes with the query.
    let mut arguments = given.clone();
    if let Some(rest) = rest {
        arguments["query"] = json!(rest);
    } else if let Some(object) = arguments.as_object_mut() {
        object.remove("query");
        if object.get("sort").and_then(Value::as_str) == Some("relevance") {
            object.remove("sort");
        }
        if object.get("status").and_then(Value::as_str) == Some("all") && !has("parent") {
            object.remove("status");
        }
    }
    // As a board's status column or a person writes it: `In progress`,
    // `in-review`, the British `cancelled`.
    let status = text.to_ascii_lowercase().replace([' ', '-'], "_");
    let status = if status == "cancelled" {
        "canceled".into()
    } else {
        status
    };
    // With a member, its tasks with its subtasks too are tried next when
    // the browse would leave them out (the subtasks a member holds alone
    // are its tasks as much as `assigned_to_me`'s are).
    let mut subtasks_too = false;
    if let Some(member) = member {
        if has("assignee") || has("assigned_to_me") {
            return Ok(None);
        }
        // A word for the caller (`@me`) never gets here: `list::check`
        // refuses it in a query.
        arguments["filters"] = filters.cloned().unwrap_or_else(|| json!({}));
        arguments["filters"]["assignee"] = json!(member);
        subtasks_too = given.get("include_subtasks").is_none();
    } else if let Some(status) = STATUSES.iter().find(|s| **s == status) {
        // A status the call gives is not replaced.
        if given.get("status").is_some_and(|s| s != "all") {
            return Ok(None);
        }
        arguments["status"] = json!(status);
    } else if !text.contains(char::is_whitespace) {
        let board = store.board_labels(principal, &query.channel).await?;
        let Some(label) = board.into_iter().find(|l| l.eq_ignore_ascii_case(text)) else {
            return Ok(None);
        };
        let mut labels = filters
            .and_then(|f| f.get("labels"))
            .cloned()
            .unwrap_or_else(|| json!([]));
        if let Some(list) = labels.as_array_mut() {
            list.push(json!(label));
        }
        arguments["filters"] = filters.cloned().unwrap_or_else(|| json!({}));
        arguments["filters"]["labels"] = labels;
    } else {
        return Ok(None);
    }
    let mut tries = vec![arguments.clone()];
    if subtasks_too {
        arguments["include_subtasks"] = json!(true);
        tries.push(arguments);
    }
    // Each call is judged as any input is, then read as the store reads
    // it: a member no one is, a label list over its bound, is no call to
    // name.
    let action = &crate::registry::task::list::ACTION;
    for arguments in tries {
        let Ok(valid) = crate::validate::validate(action, arguments.clone()) else {
            continue;
        };
        let Ok(browse) = ListQuery::from_input(principal, valid) else {
            continue;
        };
        if let Ok(Some(call)) = call_if_found(store, principal, browse, arguments).await {
            return Ok(Some(call));
        }
    }
    Ok(None)
}

/// Whether a query is one member ref (`@bob`) and no words: what only
/// [`filter_match`] reads, the words' hints leaving it alone (`@men`
/// would be searched for as `men`, which `menu` begins).
fn is_member_ref(text: &str) -> bool {
    text.starts_with('@') && !text.contains(char::is_whitespace)
}

/// The fewest letters of a word [`spelling_match`] mends, or mends to.
const MIN_MENDED: usize = 3;

/// For an empty first page of a search with a word no title of the board
/// has, that is a slip of exactly one word its titles have (`lgoin` for
/// `login`; the nearest-name rule boards and members use): the same call
/// with each such word spelled as the titles spell it, when that call
/// finds a task (`spelling_match`). A mistyped word would otherwise read
/// as "no such task". The titles are those of the board's [`MAX_LIMIT`]
/// tasks updated last, any status; a word of a description alone is not
/// known to it. Read on such pages only: those titles, and the page of
/// the call named.
async fn spelling_match<S: Store>(
    store: &S,
    principal: &Principal,
    query: &ListQuery,
    given: &Value,
) -> Result<Option<Value>, Failure> {
    use std::collections::BTreeSet;
    let Some(text) = query.search.as_deref() else {
        return Ok(None);
    };
    let recent = ListQuery {
        search: None,
        view: View::All,
        include_subtasks: true,
        sort: Sort::UpdatedDesc,
        assignee: None,
        parent: None,
        labels: Vec::new(),
        limit: MAX_LIMIT,
        ..query.clone()
    };
    let page = store.list(principal, &recent).await?;
    let titles = page["items"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let known: BTreeSet<String> = titles
        .iter()
        .filter_map(|task| task["title"].as_str())
        .flat_map(search::words)
        .collect();
    // Each word as the search matches it: by its stem (`logins` is no
    // slip of `login`, a form of it).
    let stem_of = |word: &str| search::stem(word).unwrap_or_else(|| word.to_string());
    let stems: BTreeSet<String> = known.iter().map(|w| stem_of(w)).collect();
    // A word of one or two letters is one slip from every other such word
    // (`me`, `x` would all be "mended" to the `e` of `e-mail`): neither is
    // mended nor offered.
    let long = |word: &str| word.chars().count() >= MIN_MENDED;
    let offered: Vec<String> = known.iter().filter(|w| long(w)).cloned().collect();
    let mut changed = false;
    let mut spelled = Vec::new();
    for token in text.split_whitespace() {
        let meant = match search::words(token).as_slice() {
            [word] if long(word) && !stems.contains(&stem_of(word)) => {
                refusals::slip_of(word, offered.clone())
            }
            _ => None,
        };
        changed |= meant.is_some();
        spelled.push(meant.unwrap_or_else(|| token.to_string()));
    }
    if !changed {
        return Ok(None);
    }
    let spelled = spelled.join(" ");
    let mut arguments = given.clone();
    arguments["query"] = json!(spelled);
    let meant = ListQuery {
        search: Some(spelled),
        ..query.clone()
    };
    call_if_found(store, principal, meant, arguments).await
}

/// The most of the boards [`Store::other_boards_with`] names that
/// `channel_match` reads a page of, for the call it names: the first
/// unless a write came between the two reads.
const BOARDS_TRIED: usize = 3;

/// For an empty first page of a search: the same call on another board
/// the caller may use, the first by name that has a match
/// (`channel_match`), so a search on the wrong board is not read as "no
/// such task" (and the task made again where it does not belong). Not for
/// a browse, nor with `filters.parent`, a number of this board. One read
/// asks every board at once, then the call named is read as any list is,
/// on such pages only.
async fn channel_match<S: Store>(
    store: &S,
    principal: &Principal,
    query: &ListQuery,
    given: &Value,
) -> Result<Option<Value>, Failure> {
    if query.search.is_none() || query.parent.is_some() {
        return Ok(None);
    }
    let boards = store.other_boards_with(principal, query).await?;
    let tries: Vec<(ListQuery, Value)> = boards
        .into_iter()
        .take(BOARDS_TRIED)
        .map(|board| {
            let mut arguments = given.clone();
            arguments["channel"] = json!(board);
            let there = ListQuery {
                channel: board,
                ..query.clone()
            };
            (there, arguments)
        })
        .collect();
    first_found(store, principal, tries).await
}

/// The most words a search's empty first page is tried without, each in
/// turn, for `words_match`.
const WORDS_TRIED: usize = 8;

/// For an empty first page of a search of several words, every one of
/// which a task must have: the same call without one of them, when that
/// finds a task (`words_match`), the last word tried first (an agent's
/// query grows at its end: `login timeout bug`). A query that says a
/// little more than the task's words would otherwise read as "no such
/// task". At most [`WORDS_TRIED`] reads, on such pages only.
async fn words_match<S: Store>(
    store: &S,
    principal: &Principal,
    query: &ListQuery,
    given: &Value,
) -> Result<Option<Value>, Failure> {
    let Some(text) = query.search.as_deref() else {
        return Ok(None);
    };
    let given_words: Vec<&str> = text.split_whitespace().collect();
    if !(2..=WORDS_TRIED).contains(&given_words.len()) {
        return Ok(None);
    }
    let tries: Vec<(ListQuery, Value)> = (0..given_words.len())
        .rev()
        .filter_map(|left_out| {
            let rest: Vec<&str> = given_words
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != left_out)
                .map(|(_, word)| *word)
                .collect();
            let rest = rest.join(" ");
            if search::words(&rest).is_empty() {
                return None;
            }
            let mut arguments = given.clone();
            arguments["query"] = json!(rest);
            let fewer = ListQuery {
                search: Some(rest),
                ..query.clone()
            };
            Some((fewer, arguments))
        })
        .collect();
    first_found(store, principal, tries).await
}

/// Whether a `task_list` answer's page is empty.
fn found_none(page: &Value) -> bool {
    page["items"].as_array().is_some_and(Vec::is_empty)
}

/// `task_update`. An update that sets a task `done` or `canceled` while
/// subtasks of it are open also names the call that lists them
/// (`open_subtasks_match`): they stay open, and an agent that closed the
/// parent would otherwise take its work for finished. One read, on such
/// updates only.
pub(super) async fn update<S: Store>(
    store: &S,
    principal: &Principal,
    input: &UpdateInput,
) -> Result<Value, Failure> {
    use crate::registry::task::fields::OPEN_SUBTASKS_MATCH;
    let mut answer = store.update(principal, input).await?;
    if !matches!(input.status.as_deref(), Some("done" | "canceled")) {
        return Ok(answer);
    }
    // A list of the task's subtasks shows the open ones by default.
    let arguments = json!({"channel": input.channel, "filters": {"parent": input.number}});
    let query = ListQuery::from_input(principal, arguments.clone())?;
    if let Some(call) = call_if_found(store, principal, query, arguments).await?
        && let Some(task) = answer.as_object_mut()
    {
        task.insert(OPEN_SUBTASKS_MATCH.into(), call);
    }
    Ok(answer)
}

/// The first of `tries`, each the same call as the store reads it and as
/// it is given, that finds a task ([`call_if_found`]), in order.
async fn first_found<S: Store>(
    store: &S,
    principal: &Principal,
    tries: Vec<(ListQuery, Value)>,
) -> Result<Option<Value>, Failure> {
    for (query, arguments) in tries {
        if let Some(call) = call_if_found(store, principal, query, arguments).await? {
            return Ok(Some(call));
        }
    }
    Ok(None)
}

/// The `task_list` call of `arguments` (`{tool, arguments}`), when
/// `query`, the same call as the store reads it, finds a task: the call an
/// empty page names. Read for a page of one.
async fn call_if_found<S: Store>(
    store: &S,
    principal: &Principal,
    query: ListQuery,
    arguments: Value,
) -> Result<Option<Value>, Failure> {
    let probe = ListQuery { limit: 1, ..query };
    let found = !found_none(&store.list(principal, &probe).await?);
    Ok(found.then(
        || json!({"tool": crate::registry::task::list::ACTION.name(), "arguments": arguments}),
    ))
}

/// For an empty first page whose `filters.labels` names a label no live
/// task of the board has, a slip of one it has (`bgu`, `Bugs` for `bug`):
/// the same call with each such label as the board writes it, when that
/// call finds a task (`labels_match`). A label filter that matches nothing
/// because no task has the label yet would otherwise read as "no such
/// task", as an empty search did before `closed_match`. Read on such pages
/// only: the board's labels, and the page of the call named.
async fn labels_match<S: Store>(
    store: &S,
    principal: &Principal,
    query: &ListQuery,
    given: &Value,
) -> Result<Option<Value>, Failure> {
    let wanted = given.pointer("/filters/labels").and_then(Value::as_array);
    let Some(wanted) = wanted.filter(|labels| !labels.is_empty()) else {
        return Ok(None);
    };
    let board = store.board_labels(principal, &query.channel).await?;
    // A filter matches a label whatever its case, so the board's labels
    // are compared once per spelling folded (`bug` and `Bug` are one
    // label to it, not two as near as each other to `bugs`).
    let mut seen = std::collections::HashSet::new();
    let board: Vec<String> = board
        .into_iter()
        .filter(|label| seen.insert(label.to_lowercase()))
        .collect();
    let mut changed = false;
    let mut labels = Vec::with_capacity(wanted.len());
    for label in wanted {
        let text = label.as_str().unwrap_or_default();
        let meant = if board.iter().any(|b| b.eq_ignore_ascii_case(text)) {
            None
        } else {
            refusals::slip_of(text, board.clone())
        };
        changed |= meant.is_some();
        labels.push(meant.unwrap_or_else(|| text.to_string()));
    }
    if !changed {
        return Ok(None);
    }
    let meant = ListQuery {
        labels: fold_labels(&labels),
        ..query.clone()
    };
    let mut arguments = given.clone();
    arguments["filters"]["labels"] = json!(labels);
    call_if_found(store, principal, meant, arguments).await
}
