#!/usr/bin/env python3
"""Check messages a server sent against the MCP specification's JSON Schema.

validate.py SCHEMA MESSAGES: MESSAGES holds one JSON-RPC message per line (as
tests/unit/test_features writes them). Each is checked against the schema's
definition for its kind, chosen from its method (notifications and requests
to the client) or its result (responses): notifications/message ->
LoggingMessageNotification, notifications/progress -> ProgressNotification,
notifications/cancelled -> CancelledNotification, sampling/createMessage ->
CreateMessageRequest, elicitation/create -> ElicitRequest, ping -> PingRequest;
notifications/*/list_changed -> ToolListChangedNotification (and the
resource and prompt ones); a result with "content" -> CallToolResult (which
checks every content block), "tools" -> ListToolsResult, "supportedVersions"
-> DiscoverResult (2026-07-28),
an empty result -> EmptyResult, an error -> JSONRPCErrorResponse (or
JSONRPCError). Exit status 1 when a message does not validate or is of no
known kind; the schema is the spec's own file (tests/spec/mcp-schema-*.json).
"""
import json
import sys

import jsonschema

BY_METHOD = {
    "notifications/message": "LoggingMessageNotification",
    "notifications/progress": "ProgressNotification",
    "notifications/cancelled": "CancelledNotification",
    "sampling/createMessage": "CreateMessageRequest",
    "elicitation/create": "ElicitRequest",
    "ping": "PingRequest",
    "notifications/resources/updated": "ResourceUpdatedNotification",
    "notifications/tools/list_changed": "ToolListChangedNotification",
    "notifications/resources/list_changed": "ResourceListChangedNotification",
    "notifications/prompts/list_changed": "PromptListChangedNotification",
}

# A result's type, by the member that only it has.
BY_RESULT_KEY = {
    "content": "CallToolResult",
    "protocolVersion": "InitializeResult",
    "tools": "ListToolsResult",
    "supportedVersions": "DiscoverResult",
    "resources": "ListResourcesResult",
    "resourceTemplates": "ListResourceTemplatesResult",
    "contents": "ReadResourceResult",
    "prompts": "ListPromptsResult",
    "messages": "GetPromptResult",
    "completion": "CompleteResult",
}


def main():
    schema_path, messages_path = sys.argv[1], sys.argv[2]
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    defs = schema["$defs"]

    def check(instance, name):
        sub = {"$schema": schema.get("$schema"), "$defs": defs, "$ref": "#/$defs/" + name}
        cls = jsonschema.validators.validator_for(sub)
        return [e.message for e in cls(sub).iter_errors(instance)]

    error_def = "JSONRPCErrorResponse" if "JSONRPCErrorResponse" in defs else "JSONRPCError"
    problems, counts = [], {}
    with open(messages_path, encoding="utf-8") as f:
        lines = [l for l in f.read().split("\n") if l.strip()]
    if not lines:
        print("validate.py: no messages in %s" % messages_path)
        return 1
    for n, text in enumerate(lines, 1):
        m = json.loads(text)
        errs = []
        if "method" in m:
            name = BY_METHOD.get(m["method"])
            if not name:
                problems.append("line %d: unknown method %s" % (n, m["method"]))
                continue
            errs = check(m, name)
        elif "error" in m:
            name = error_def
            errs = check(m, name)
        elif "result" in m:
            r = m["result"]
            name = next((v for k, v in BY_RESULT_KEY.items() if k in r), None)
            if name is None and r == {}:
                name = "EmptyResult"
            if name is None:
                problems.append("line %d: a result of unknown kind" % n)
                continue
            errs = check(m, "JSONRPCResultResponse" if "JSONRPCResultResponse" in defs
                         else "JSONRPCResponse") + check(r, name)
        else:
            problems.append("line %d: not a JSON-RPC message" % n)
            continue
        counts[name] = counts.get(name, 0) + 1
        for e in errs:
            problems.append("line %d (%s): %s\n    %s" % (n, name, e, text[:300]))
    for p in problems:
        print(p)
    print("validate.py: %d messages, %s; %d problems"
          % (len(lines), ", ".join("%s %d" % kv for kv in sorted(counts.items())), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
