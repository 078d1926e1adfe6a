"""Schemathesis hooks for Herald (scripts/schemathesis.sh loads them through SCHEMATHESIS_HOOKS)."""

import os
import uuid

import schemathesis

KEY = "Idempotency-Key"
# The inbox routes take an inbox session token instead of the API key (scripts/schemathesis.sh opens
# a session and passes its token here).
INBOX = ("/v1/inbox/notifications", "/v1/inbox/preferences")
INBOX_TOKEN = os.environ.get("HERALD_INBOX_TOKEN")


@schemathesis.hook
def before_call(context, case, kwargs):
    # A key names one request: Herald answers another request with a used key 422 (README, "API
    # conventions"). Generated keys repeat ("0", "00…"), so a valid key gets a fresh value; an invalid
    # one (empty, over 255 characters) is left for the negative checks to see refused; a long one keeps
    # its length. The probe leaving out Authorization is sent as generated: setting a header rebuilds
    # the request with the configured ones.
    data = getattr(getattr(case.meta, "phase", None), "data", None)
    if getattr(data, "parameter", None) == "Authorization":
        return
    if INBOX_TOKEN and case.path.startswith(INBOX):
        bearer = f"Bearer {INBOX_TOKEN}"
        case.headers = {**(case.headers or {}), "Authorization": bearer}
        if isinstance(kwargs.get("headers"), dict):
            kwargs["headers"]["Authorization"] = bearer
    key = (case.headers or {}).get(KEY)
    if key is not None and 1 <= len(key) <= 255:
        fresh = str(uuid.uuid4())
        case.headers[KEY] = (uuid.uuid4().hex * 8)[: len(key)] if len(key) > len(fresh) else fresh
