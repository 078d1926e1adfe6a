"""Schemathesis hooks for Herald (scripts/schemathesis.sh loads them through SCHEMATHESIS_HOOKS)."""

import uuid

import schemathesis

KEY = "Idempotency-Key"


@schemathesis.hook
def before_call(context, case, **kwargs):
    # A key names one request: Herald answers another request with a used key 422 (README, "API
    # conventions"). Generated keys repeat ("0", "00…"), so a valid key gets a fresh value; an invalid
    # one (empty, over 255 characters) is left for the negative checks to see refused.
    if case.headers and 1 <= len(case.headers.get(KEY, "")) <= 255:
        case.headers[KEY] = str(uuid.uuid4())
