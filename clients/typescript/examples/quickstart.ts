// Herald over gRPC: a subscriber, a workflow with an in-app step, a trigger, the in-app message read
// back and marked read. Reads HERALD_URL (default http://127.0.0.1:3000) and HERALD_API_KEY; exits
// non-zero on any failure. Run: `npm run quickstart`.
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";

import {
  ChannelTypeEnum_ChannelType,
  Herald,
  MarkAsEnum_MarkAs,
  StepTypeEnum_StepType,
  recipient,
  type Message,
} from "../src/index.js";

async function waitForInAppMessage(herald: Herald, subscriberId: string, transactionId: string): Promise<Message> {
  // Delivery runs on Herald's workers after the trigger is stored: poll briefly for the message.
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const page = await herald.messages.listMessages({
      subscriberId,
      transactionId: [transactionId],
      channel: ChannelTypeEnum_ChannelType.in_app,
    });
    if (page.data.length > 0) return page.data[0];
    await sleep(200);
  }
  throw new Error(`no in-app message for transaction ${transactionId} within 15 s`);
}

async function main(): Promise<void> {
  const key = process.env.HERALD_API_KEY;
  if (!key) throw new Error("set HERALD_API_KEY");
  const herald = new Herald(process.env.HERALD_URL ?? "http://127.0.0.1:3000", key);
  const run = randomUUID().slice(0, 8);

  const { subscriber } = await herald.subscribers.createSubscriber({ subscriberId: `ada-${run}`, firstName: "Ada" });
  console.log(`subscriber ${subscriber?.subscriberId} (_id ${subscriber?.id})`);

  const { workflow } = await herald.workflows.createWorkflow({
    workflow: {
      name: `Quickstart ${run}`,
      workflowId: `quickstart-${run}`,
      active: true,
      steps: [
        {
          name: "Inbox",
          type: StepTypeEnum_StepType.in_app,
          controlValues: { subject: "Welcome", body: "Hello {{ subscriber.firstName }}" },
        },
      ],
    },
  });
  if (!workflow) throw new Error("no workflow in the response");
  console.log(`workflow ${workflow.workflowId}`);

  // A recipient is a oneof: recipient.subscriberId(id) is {kind: {case: "subscriberId", value: id}}.
  const triggered = await herald.events.triggerEvent({
    name: workflow.workflowId,
    to: [recipient.subscriberId(`ada-${run}`)],
    transactionId: `quickstart-${run}`,
  });
  if (!triggered.acknowledged) throw new Error(`trigger not accepted: status ${triggered.status}`);
  console.log(`triggered, transaction ${triggered.transactionId}`);

  const message = await waitForInAppMessage(herald, `ada-${run}`, triggered.transactionId ?? "");
  const content = message.content?.kind.case === "stringValue" ? message.content.kind.value : undefined;
  console.log(`in-app message ${message.id}: ${JSON.stringify(content)}`);
  if (content !== "Hello Ada") throw new Error(`unexpected content ${JSON.stringify(message.content)}`);

  const { messages } = await herald.messages.markMessagesAs({
    subscriberId: `ada-${run}`,
    messageId: [message.id],
    markAs: MarkAsEnum_MarkAs.read,
  });
  if (!(messages.length === 1 && messages[0].read)) throw new Error("message not marked read");
  console.log("marked read");
}

main().catch((error: unknown) => {
  console.error("quickstart failed:", error);
  process.exit(1);
});
