"""The quickstart over Herald's REST API with the standard library only (plain HTTP, the spec's JSON
shapes). Reads HERALD_URL (default http://127.0.0.1:3000) and HERALD_API_KEY; exits non-zero on any
failure, printing Herald's error body."""

import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

URL = os.environ.get("HERALD_URL", "http://127.0.0.1:3000").rstrip("/")
HEADERS = {"Authorization": f"ApiKey {os.environ['HERALD_API_KEY']}", "Content-Type": "application/json"}


def call(method: str, path: str, body: object = None) -> object:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(URL + path, data=data, method=method, headers=HEADERS)
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def main() -> None:
    run = uuid.uuid4().hex[:8]
    subscriber = call("POST", "/v2/subscribers", {"subscriberId": f"ada-{run}", "firstName": "Ada"})
    print(f"subscriber {subscriber['subscriberId']} (_id {subscriber['_id']})")

    workflow = call("POST", "/v2/workflows", {
        "name": f"Quickstart {run}",
        "workflowId": f"quickstart-{run}",
        "active": True,
        "steps": [{"name": "Inbox", "type": "in_app", "controlValues": {"body": "Hello {{ subscriber.firstName }}"}}],
    })
    print(f"workflow {workflow['workflowId']}")

    # REST takes a subscriberId string (or a subscriber object, or an array of either) as `to`.
    triggered = call("POST", "/v1/events/trigger", {
        "name": workflow["workflowId"], "to": subscriber["subscriberId"], "transactionId": f"quickstart-{run}",
    })
    if not triggered["acknowledged"]:
        raise RuntimeError(f"trigger not accepted: {triggered}")
    print(f"triggered, transaction {triggered['transactionId']}")

    query = urllib.parse.urlencode(
        {"subscriberId": subscriber["subscriberId"], "transactionId": triggered["transactionId"], "channel": "in_app"}
    )
    deadline = time.monotonic() + 15  # delivery runs on Herald's workers, after the trigger is stored
    while not (page := call("GET", f"/v1/messages?{query}"))["data"]:
        if time.monotonic() > deadline:
            raise TimeoutError("no in-app message within 15 s")
        time.sleep(0.2)
    message = page["data"][0]
    print(f"in-app message {message['_id']}: {message['content']!r}")
    if message["content"] != "Hello Ada":
        raise RuntimeError(f"unexpected content {message['content']!r}")

    marked = call("POST", f"/v1/subscribers/{subscriber['subscriberId']}/messages/mark-as",
                  {"messageId": message["_id"], "markAs": "read"})
    if not (len(marked) == 1 and marked[0]["read"]):
        raise RuntimeError(f"message not marked read: {marked}")
    print("marked read")


if __name__ == "__main__":
    try:
        main()
    except urllib.error.HTTPError as error:
        print(f"REST quickstart failed: {error.code} {error.read().decode()}", file=sys.stderr)
        sys.exit(1)
    except Exception as error:
        print(f"REST quickstart failed: {error!r}", file=sys.stderr)
        sys.exit(1)
