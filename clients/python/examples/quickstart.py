"""Herald over gRPC: a subscriber, a workflow with an in-app step, a trigger, the in-app message read
back and marked read. Reads HERALD_URL (default http://127.0.0.1:3000) and HERALD_API_KEY; exits
non-zero on any failure."""

import os
import sys
import time
import uuid

from google.protobuf import struct_pb2

from herald import Herald
from herald.v1 import (
    common_pb2,
    events_pb2,
    messages_pb2,
    subscribers_pb2,
    workflows_pb2,
)

IN_APP = common_pb2.ChannelTypeEnum.in_app


def wait_for_in_app_message(herald: Herald, subscriber_id: str, transaction_id: str) -> messages_pb2.Message:
    """Delivery runs on Herald's workers after the trigger is stored: poll briefly for the message."""
    request = messages_pb2.ListMessagesRequest(
        subscriber_id=subscriber_id, transaction_id=[transaction_id], channel=IN_APP
    )
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        page = herald.messages.ListMessages(request)
        if page.data:
            return page.data[0]
        time.sleep(0.2)
    raise TimeoutError(f"no in-app message for transaction {transaction_id} within 15 s")


def main() -> None:
    run = uuid.uuid4().hex[:8]
    with Herald(os.environ.get("HERALD_URL", "http://127.0.0.1:3000"), os.environ["HERALD_API_KEY"]) as herald:
        subscriber = herald.subscribers.CreateSubscriber(
            subscribers_pb2.CreateSubscriberRequest(subscriber_id=f"ada-{run}", first_name="Ada")
        ).subscriber
        print(f"subscriber {subscriber.subscriber_id} (_id {subscriber.id})")

        controls = struct_pb2.Struct()
        controls.update({"subject": "Welcome", "body": "Hello {{ subscriber.firstName }}"})
        workflow = herald.workflows.CreateWorkflow(
            workflows_pb2.CreateWorkflowRequest(
                workflow=workflows_pb2.WorkflowInput(
                    name=f"Quickstart {run}",
                    workflow_id=f"quickstart-{run}",
                    active=True,
                    steps=[
                        workflows_pb2.WorkflowStepInput(
                            name="Inbox", type=common_pb2.StepTypeEnum.in_app, control_values=controls
                        )
                    ],
                )
            )
        ).workflow
        print(f"workflow {workflow.workflow_id}")

        # A recipient is a oneof: set exactly one of subscriber_id, subscriber or other.
        triggered = herald.events.TriggerEvent(
            events_pb2.TriggerEventRequest(
                name=workflow.workflow_id,
                to=[events_pb2.TriggerRecipient(subscriber_id=subscriber.subscriber_id)],
                transaction_id=f"quickstart-{run}",
            )
        )
        if not triggered.acknowledged:
            status = events_pb2.TriggerEventStatusEnum.TriggerEventStatus.Name(triggered.status)
            raise RuntimeError(f"trigger not accepted: {status}")
        print(f"triggered, transaction {triggered.transaction_id}")

        message = wait_for_in_app_message(herald, subscriber.subscriber_id, triggered.transaction_id)
        print(f"in-app message {message.id}: {message.content.string_value!r}")
        if message.content.string_value != "Hello Ada":
            raise RuntimeError(f"unexpected content {message.content}")

        marked = herald.messages.MarkMessagesAs(
            messages_pb2.MarkMessagesAsRequest(
                subscriber_id=subscriber.subscriber_id, message_id=[message.id], mark_as=messages_pb2.MarkAsEnum.read
            )
        ).messages
        if not (len(marked) == 1 and marked[0].read):
            raise RuntimeError(f"message not marked read: {marked}")
        print("marked read")


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # any failure, gRPC errors included, must fail the run
        print(f"quickstart failed: {error!r}", file=sys.stderr)
        sys.exit(1)
