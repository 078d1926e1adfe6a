import importlib
import os
import pkgutil

import grpc
import pytest
from google.protobuf import json_format

import herald.v1
from helpers import create_in_app_workflow, wait_for_messages
from herald import Herald
from herald.v1 import (
    environments_pb2,
    events_pb2,
    messages_pb2,
    subscribers_pb2,
)


PROTOS = ["common", "environments", "events", "inbox", "integrations", "messages", "notifications",
          "subscribers", "topics", "workflows"]


def test_every_generated_module_loads_in_the_official_runtime():
    names = sorted(module.name for module in pkgutil.iter_modules(herald.v1.__path__))
    # Each proto yields a *_pb2 and a *_pb2_grpc module.
    assert names == sorted([f"{proto}_pb2" for proto in PROTOS] + [f"{proto}_pb2_grpc" for proto in PROTOS])
    for name in names:
        importlib.import_module(f"herald.v1.{name}")


def test_the_api_key_reaches_the_server_and_json_names_are_the_specs(herald):
    environment = herald.environments.GetCurrentEnvironment(
        environments_pb2.GetCurrentEnvironmentRequest()
    ).environment
    assert environment.name == "development"
    as_json = json_format.MessageToDict(environment)
    assert as_json["_id"] == environment.id and "_organizationId" in as_json


def test_a_wrong_api_key_is_an_rpc_error_with_code_unauthenticated(url):
    with Herald(url, "hk_not_a_key") as stranger, pytest.raises(grpc.RpcError) as raised:
        stranger.environments.GetCurrentEnvironment(environments_pb2.GetCurrentEnvironmentRequest())
    assert raised.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_an_unknown_subscriber_is_an_rpc_error_with_code_not_found(herald, run_id):
    with pytest.raises(grpc.RpcError) as raised:
        herald.subscribers.GetSubscriber(subscribers_pb2.GetSubscriberRequest(subscriber_id=f"nobody-{run_id}"))
    assert raised.value.code() == grpc.StatusCode.NOT_FOUND
    assert f"nobody-{run_id}" in raised.value.details()


def test_a_created_subscriber_reads_back(herald, run_id):
    created = herald.subscribers.CreateSubscriber(
        subscribers_pb2.CreateSubscriberRequest(subscriber_id=f"grace-{run_id}", email="grace@example.com")
    ).subscriber
    read = herald.subscribers.GetSubscriber(subscribers_pb2.GetSubscriberRequest(subscriber_id=f"grace-{run_id}"))
    assert read.subscriber.id == created.id and read.subscriber.email == "grace@example.com"
    assert not read.subscriber.HasField("phone")  # proto3 `optional`: presence is kept


def test_a_triggered_in_app_message_is_read_back_with_its_workflow(herald, run_id):
    workflow = create_in_app_workflow(herald, f"py-{run_id}", "Order {{ payload.order }} shipped")
    payload = {"order": "A-17"}
    request = events_pb2.TriggerEventRequest(
        name=workflow.workflow_id, to=[events_pb2.TriggerRecipient(subscriber_id=f"lin-{run_id}")]
    )
    request.payload.update(payload)
    triggered = herald.events.TriggerEvent(request)
    assert triggered.acknowledged
    assert triggered.status == events_pb2.TriggerEventStatusEnum.processed

    page = wait_for_messages(
        herald,
        messages_pb2.ListMessagesRequest(subscriber_id=f"lin-{run_id}", transaction_id=[triggered.transaction_id]),
    )
    [message] = page.data
    assert message.content.string_value == "Order A-17 shipped"
    assert message.transaction_id == triggered.transaction_id
    assert not message.read
    # The workflow in template form, one of the messages whose `_id` must not be `optional`.
    assert message.template.id == workflow.id
    assert json_format.MessageToDict(message)["template"]["_id"] == workflow.id


def test_an_empty_recipient_is_answered_invalid_recipients(herald, run_id):
    workflow = create_in_app_workflow(herald, f"py-empty-{run_id}", "Hi")
    triggered = herald.events.TriggerEvent(
        events_pb2.TriggerEventRequest(name=workflow.workflow_id, to=[events_pb2.TriggerRecipient()])
    )
    assert not triggered.acknowledged
    assert triggered.status == events_pb2.TriggerEventStatusEnum.invalid_recipients


def test_triggers_sent_over_one_stream_are_answered_in_order(herald, run_id):
    workflow = create_in_app_workflow(herald, f"py-stream-{run_id}", "Hi")

    def triggers():
        for n in range(50):
            to = [] if n == 7 else [events_pb2.TriggerRecipient(subscriber_id=f"sam-{run_id}-{n}")]
            event = events_pb2.TriggerEventRequest(name=workflow.workflow_id, to=to, transaction_id=f"{run_id}-{n}")
            yield events_pb2.StreamTriggerEventsRequest(event=event)

    answers = [answer.result for answer in herald.events.StreamTriggerEvents(triggers())]
    assert [answer.transaction_id for answer in answers] == [f"{run_id}-{n}" for n in range(50)]
    statuses = [answer.status for answer in answers]
    assert statuses[7] == events_pb2.TriggerEventStatusEnum.invalid_recipients
    assert statuses[:7] + statuses[8:] == [events_pb2.TriggerEventStatusEnum.processed] * 49


def test_a_url_that_is_not_http_is_refused():
    with pytest.raises(ValueError, match="http://host:port"):
        Herald("ftp://example.com", os.environ.get("HERALD_API_KEY", "k"))
