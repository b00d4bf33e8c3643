"""schemathesis hooks for scripts/schemathesis.sh (loaded through SCHEMATHESIS_HOOKS).

task_create has branch rules a flat JSON Schema does not state (docs/contract.md
§4.2): exactly one locator (`channel` or `parentTaskScope`), `parent` only with
`channel`, and a batch of several tasks carries titles only. Left alone, almost
every schema-valid body breaks one of them and is answered 422, so the success
answers (201, and 200 for a replay) would never be checked. This hook makes a
positive case obey them by removing optional fields (or adding the seeded
board as the missing locator), so it stays valid against openapi.json;
negative cases are left as generated.

task_update has one such rule: at least one field to change. A generated body
most often names none (or makes a task its own parent), so it too would be
answered 422 nearly always; a positive case gets a status to change instead.
And a generated board, number, assignee, parent or expectedUpdatedAt names no
task, member or version of one, so three positive cases in four are pointed
at a seeded task (`eng` 1–8) and member (`@bob`), without a parent or an
expected version, for the success answer to be checked.
"""

# The fields task_update may change (the registry's task::update::Field).
UPDATE_FIELDS = ("title", "description", "status", "priority", "assignee", "labels",
                 "checklist", "urls", "attachments", "blocker", "parent")

import schemathesis


@schemathesis.hook
def map_case(context, case):
    operation = context.operation
    if operation is None:
        return case
    if case.meta is None or case.meta.generation.mode.is_negative:
        return case
    body = case.body
    if not isinstance(body, dict):
        return case
    operation_id = operation.definition.raw.get("operationId")
    if operation_id == "task_update":
        return update_case(case, body)
    if operation_id != "task_create":
        return case
    if "channel" in body and "parentTaskScope" in body:
        # Keep the board most of the time: a generated scope id names no task.
        if len(repr(body)) % 4 == 0:
            body.pop("channel")
            body.pop("parent", None)
        else:
            body.pop("parentTaskScope")
    elif "parentTaskScope" in body:
        body.pop("parent", None)
    elif "channel" not in body:
        body["channel"] = "eng"
    tasks = body.get("tasks")
    if isinstance(tasks, list) and len(tasks) > 1:
        body["tasks"] = [{"title": t["title"]} for t in tasks if isinstance(t, dict) and "title" in t]
    return case


def update_case(case, body):
    if len(repr(body)) % 4 != 0 and isinstance(body.get("number"), int):
        body["channel"] = "eng"
        body["number"] = 1 + body["number"] % 8
        body.pop("parent", None)
        body.pop("expectedUpdatedAt", None)
        if body.get("assignee") is not None:
            body["assignee"] = "@bob"
    if body.get("parent") is not None and body.get("parent") == body.get("number"):
        body.pop("parent")
    if not any(field in body for field in UPDATE_FIELDS):
        body["status"] = "in_progress"
    return case
