"""schemathesis hooks for scripts/schemathesis.sh (loaded through SCHEMATHESIS_HOOKS).

task_create has branch rules a flat JSON Schema does not state (docs/contract.md
§4.2): exactly one locator (`channel` or `parentTaskScope`), `parent` only with
`channel`, and a batch of several tasks carries titles only. Left alone, almost
every schema-valid body breaks one of them and is answered 422, so the success
answers (201, and 200 for a replay) would never be checked. This hook makes a
positive case obey them by removing optional fields (or adding the seeded
board as the missing locator), so it stays valid against openapi.json;
negative cases are left as generated.
"""

import schemathesis


@schemathesis.hook
def map_case(context, case):
    operation = context.operation
    if operation is None or operation.definition.raw.get("operationId") != "task_create":
        return case
    if case.meta is None or case.meta.generation.mode.is_negative:
        return case
    body = case.body
    if not isinstance(body, dict):
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
