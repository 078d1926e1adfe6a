// node --test against a running Herald: HERALD_URL (default http://127.0.0.1:3000) and
// HERALD_API_KEY, as scripts/test-clients.sh sets them.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";

import { createRegistry, toJson, type DescFile } from "@bufbuild/protobuf";

import {
  Code,
  ConnectError,
  EnvironmentSchema,
  Herald,
  StepTypeEnum_StepType,
  TriggerEventStatusEnum_TriggerEventStatus,
  recipient,
  type TriggerRecipient,
} from "../src/index.js";
import * as exported from "../src/index.js";

const url = process.env.HERALD_URL ?? "http://127.0.0.1:3000";
const key = process.env.HERALD_API_KEY;
assert.ok(key, "set HERALD_API_KEY");
const herald = new Herald(url, key);

async function inAppWorkflow(workflowId: string, body: string) {
  const { workflow } = await herald.workflows.createWorkflow({
    workflow: {
      name: workflowId,
      workflowId,
      active: true,
      steps: [{ name: "Inbox", type: StepTypeEnum_StepType.in_app, controlValues: { body } }],
    },
  });
  assert.ok(workflow);
  return workflow;
}

async function rejection(call: Promise<unknown>): Promise<ConnectError> {
  const error = await call.then(() => assert.fail("expected the call to fail"), (error: unknown) => error);
  assert.ok(error instanceof ConnectError, `not a ConnectError: ${error}`);
  return error;
}

// Importing the index already decoded every embedded descriptor; a registry also resolves the types.
test("every generated file loads into one protobuf-es registry", () => {
  const files = Object.entries(exported)
    .filter(([name]) => name.startsWith("file_herald_v1_"))
    .map(([, file]) => file as DescFile);
  assert.deepEqual(
    files.map((file) => file.name).sort(),
    [
      "common",
      "environments",
      "events",
      "inbox",
      "integrations",
      "messages",
      "notifications",
      "subscribers",
      "topics",
      "workflows",
    ].map((name) => `herald/v1/${name}`),
  );
  const registry = createRegistry(...files);
  assert.equal(registry.getMessage("herald.v1.NotificationTemplate")?.field.id.jsonName, "_id");
});

test("the API key reaches the server and JSON names are the spec's", async () => {
  const { environment } = await herald.environments.getCurrentEnvironment({});
  assert.ok(environment);
  assert.equal(environment.name, "development");
  const json = toJson(EnvironmentSchema, environment) as Record<string, unknown>;
  assert.equal(json._id, environment.id);
  assert.ok("_organizationId" in json);
});

test("a wrong API key is a ConnectError with code Unauthenticated", async () => {
  const stranger = new Herald(url, "hk_not_a_key");
  const error = await rejection(stranger.environments.getCurrentEnvironment({}));
  assert.equal(error.code, Code.Unauthenticated);
});

test("an unknown subscriber is a ConnectError with code NotFound", async () => {
  const subscriberId = `nobody-${randomUUID()}`;
  const error = await rejection(herald.subscribers.getSubscriber({ subscriberId }));
  assert.equal(error.code, Code.NotFound);
  assert.match(error.rawMessage, new RegExp(subscriberId));
});

test("a triggered in-app message is read back with its workflow", async () => {
  const run = randomUUID().slice(0, 8);
  const workflow = await inAppWorkflow(`ts-${run}`, "Order {{ payload.order }} shipped");
  const triggered = await herald.events.triggerEvent({
    name: workflow.workflowId,
    to: [recipient.subscriber({ subscriberId: `lin-${run}`, firstName: "Lin" })],
    payload: { order: "A-17" },
  });
  assert.equal(triggered.status, TriggerEventStatusEnum_TriggerEventStatus.processed);
  assert.ok(triggered.transactionId);

  const request = { subscriberId: `lin-${run}`, transactionId: [triggered.transactionId] };
  const deadline = Date.now() + 15_000;
  let page = await herald.messages.listMessages(request);
  while (page.data.length === 0 && Date.now() < deadline) {
    await sleep(200);
    page = await herald.messages.listMessages(request);
  }
  assert.equal(page.data.length, 1, "one in-app message within 15 s");
  const [message] = page.data;
  assert.deepEqual(message.content?.kind, { case: "stringValue", value: "Order A-17 shipped" });
  assert.equal(message.transactionId, triggered.transactionId);
  assert.equal(message.read, false);
  assert.equal(message.template?.id, workflow.id);
});

test("triggers sent over one stream are answered in order", async () => {
  const run = randomUUID().slice(0, 8);
  const workflow = await inAppWorkflow(`ts-stream-${run}`, "Hi");
  async function* triggers() {
    for (let n = 0; n < 30; n += 1) {
      const to = n === 3 ? [] : [recipient.subscriberId(`sam-${run}-${n}`)];
      yield { event: { name: workflow.workflowId, to, transactionId: `${run}-${n}` } };
    }
  }
  const answers = [];
  for await (const answer of herald.events.streamTriggerEvents(triggers())) answers.push(answer.result);
  assert.deepEqual(
    answers.map((answer) => answer?.transactionId),
    Array.from({ length: 30 }, (_, n) => `${run}-${n}`),
  );
  const statuses = answers.map((answer) => answer?.status);
  assert.equal(statuses[3], TriggerEventStatusEnum_TriggerEventStatus.invalid_recipients);
  statuses.splice(3, 1);
  assert.deepEqual(statuses, Array(29).fill(TriggerEventStatusEnum_TriggerEventStatus.processed));
});

test("a recipient in the REST shape is refused before it is sent", async () => {
  const run = randomUUID().slice(0, 8);
  const workflow = await inAppWorkflow(`ts-shape-${run}`, "Hi");
  // What a JavaScript caller (or a cast) can write; TypeScript itself rejects the literal.
  const restShape = { subscriberId: `lin-${run}` } as unknown as TriggerRecipient;
  const error = await rejection(herald.events.triggerEvent({ name: workflow.workflowId, to: [restShape] }));
  assert.equal(error.code, Code.InvalidArgument);
  assert.match(error.rawMessage, /to\[0\] has no kind: write \{kind: \{case: "subscriberId"/);

  const bulk = await rejection(
    herald.events.triggerEventBulk({
      events: [{ name: workflow.workflowId, to: [recipient.subscriberId("a")], actor: { kind: { case: undefined } } }],
    }),
  );
  assert.match(bulk.rawMessage, /^events\[0\]\.actor has no kind/);

  async function* streamed() {
    yield { event: { name: workflow.workflowId, to: [recipient.subscriberId(`ok-${run}`)] } };
    yield { event: { name: workflow.workflowId, to: [restShape] } };
  }
  const stream = await rejection(
    (async () => {
      for await (const _answer of herald.events.streamTriggerEvents(streamed()));
    })(),
  );
  assert.equal(stream.code, Code.InvalidArgument);
  assert.match(stream.rawMessage, /^\[1\]\.event\.to\[0\] has no kind/);

  // Nothing reached Herald: the subscriber of the refused trigger does not exist.
  const missing = await rejection(herald.subscribers.getSubscriber({ subscriberId: `lin-${run}` }));
  assert.equal(missing.code, Code.NotFound);
});
