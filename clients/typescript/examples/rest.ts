// The quickstart over Herald's REST API with Node's fetch only (plain HTTP, the spec's JSON shapes).
// Reads HERALD_URL (default http://127.0.0.1:3000) and HERALD_API_KEY; exits non-zero on any
// failure, printing Herald's error body. Run: `npm run quickstart:rest`.
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";

const url = (process.env.HERALD_URL ?? "http://127.0.0.1:3000").replace(/\/$/, "");
const headers = { authorization: `ApiKey ${process.env.HERALD_API_KEY}`, "content-type": "application/json" };

// The JSON of the spec's shapes, untyped: this example shows the wire, not a REST client library.
async function call(method: string, path: string, body?: unknown): Promise<any> {
  const json = body === undefined ? undefined : JSON.stringify(body);
  const response = await fetch(url + path, { method, headers, body: json });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

async function main(): Promise<void> {
  const run = randomUUID().slice(0, 8);
  const subscriber = await call("POST", "/v2/subscribers", { subscriberId: `ada-${run}`, firstName: "Ada" });
  console.log(`subscriber ${subscriber.subscriberId} (_id ${subscriber._id})`);

  const workflow = await call("POST", "/v2/workflows", {
    name: `Quickstart ${run}`,
    workflowId: `quickstart-${run}`,
    active: true,
    steps: [{ name: "Inbox", type: "in_app", controlValues: { body: "Hello {{ subscriber.firstName }}" } }],
  });
  console.log(`workflow ${workflow.workflowId}`);

  // REST takes a subscriberId string (or a subscriber object, or an array of either) as `to`.
  const triggered = await call("POST", "/v1/events/trigger", {
    name: workflow.workflowId,
    to: subscriber.subscriberId,
    transactionId: `quickstart-${run}`,
  });
  if (!triggered.acknowledged) throw new Error(`trigger not accepted: ${JSON.stringify(triggered)}`);
  console.log(`triggered, transaction ${triggered.transactionId}`);

  const query = new URLSearchParams({
    subscriberId: subscriber.subscriberId,
    transactionId: triggered.transactionId,
    channel: "in_app",
  });
  const deadline = Date.now() + 15_000; // delivery runs on Herald's workers, after the trigger is stored
  let page = await call("GET", `/v1/messages?${query}`);
  while (page.data.length === 0) {
    if (Date.now() > deadline) throw new Error("no in-app message within 15 s");
    await sleep(200);
    page = await call("GET", `/v1/messages?${query}`);
  }
  const message = page.data[0];
  console.log(`in-app message ${message._id}: ${JSON.stringify(message.content)}`);
  if (message.content !== "Hello Ada") throw new Error(`unexpected content ${JSON.stringify(message.content)}`);

  const marked = await call("POST", `/v1/subscribers/${subscriber.subscriberId}/messages/mark-as`, {
    messageId: message._id,
    markAs: "read",
  });
  if (!(marked.length === 1 && marked[0].read)) throw new Error(`message not marked read: ${JSON.stringify(marked)}`);
  console.log("marked read");
}

main().catch((error: unknown) => {
  console.error("REST quickstart failed:", error);
  process.exit(1);
});
