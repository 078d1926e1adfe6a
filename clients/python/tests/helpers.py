"""Steps several tests share."""

import time

from google.protobuf import struct_pb2

from herald import Herald
from herald.v1 import common_pb2, messages_pb2, workflows_pb2


def create_in_app_workflow(herald: Herald, workflow_id: str, body: str) -> workflows_pb2.Workflow:
    controls = struct_pb2.Struct()
    controls.update({"body": body})
    step = workflows_pb2.WorkflowStepInput(name="Inbox", type=common_pb2.StepTypeEnum.in_app, control_values=controls)
    workflow = workflows_pb2.WorkflowInput(name=workflow_id, workflow_id=workflow_id, active=True, steps=[step])
    return herald.workflows.CreateWorkflow(workflows_pb2.CreateWorkflowRequest(workflow=workflow)).workflow


def wait_for_messages(herald: Herald, request: messages_pb2.ListMessagesRequest) -> messages_pb2.ListMessagesResponse:
    deadline = time.monotonic() + 15
    while not (page := herald.messages.ListMessages(request)).data:
        assert time.monotonic() < deadline, f"no message for {request} within 15 s"
        time.sleep(0.2)
    return page
