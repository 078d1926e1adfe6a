// Herald's gRPC API for Node: the protobuf-es messages and service descriptors generated from
// proto/herald/v1 (re-exported below), plus the few things every caller needs: the API key on each
// call, one client per service, and recipients that cannot be written in a shape that sends nothing.
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";

import { EnvironmentsService } from "./gen/herald/v1/environments_pb.js";
import {
  EventsService,
  TriggerRecipientSchema,
  type StreamTriggerEventsRequest,
  type TriggerEventBulkRequest,
  type TriggerEventRequest,
  type TriggerSubscriberSchema,
} from "./gen/herald/v1/events_pb.js";
import { IntegrationsService } from "./gen/herald/v1/integrations_pb.js";
import { MessagesService } from "./gen/herald/v1/messages_pb.js";
import { NotificationsService } from "./gen/herald/v1/notifications_pb.js";
import { SubscribersService } from "./gen/herald/v1/subscribers_pb.js";
import { TopicsService } from "./gen/herald/v1/topics_pb.js";
import { WorkflowsService } from "./gen/herald/v1/workflows_pb.js";

export * from "./gen/herald/v1/common_pb.js";
export * from "./gen/herald/v1/environments_pb.js";
export * from "./gen/herald/v1/events_pb.js";
export * from "./gen/herald/v1/inbox_pb.js";
export * from "./gen/herald/v1/integrations_pb.js";
export * from "./gen/herald/v1/messages_pb.js";
export * from "./gen/herald/v1/notifications_pb.js";
export * from "./gen/herald/v1/subscribers_pb.js";
export * from "./gen/herald/v1/topics_pb.js";
export * from "./gen/herald/v1/workflows_pb.js";
export { Code, ConnectError } from "@connectrpc/connect";

/** Sends `authorization: ApiKey <key>` with every call, the metadata Herald authenticates. */
export function apiKey(key: string): Interceptor {
  return (next) => (request) => {
    request.header.set("authorization", `ApiKey ${key}`);
    return next(request);
  };
}

/**
 * Recipients of a trigger (`to`). A recipient is a oneof, written
 * `{kind: {case: "subscriberId", value: "u1"}}`; these build that shape.
 */
export const recipient = {
  subscriberId: (subscriberId: string) =>
    create(TriggerRecipientSchema, { kind: { case: "subscriberId", value: subscriberId } }),
  subscriber: (subscriber: MessageInitShape<typeof TriggerSubscriberSchema>) =>
    create(TriggerRecipientSchema, { kind: { case: "subscriber", value: subscriber } }),
  topic: (topicKey: string) => create(TriggerRecipientSchema, { kind: { case: "topic", value: { topicKey } } }),
};

/**
 * Refuses, before anything is sent, a trigger whose recipient, actor or tenant has no `kind`. That
 * is what `{subscriberId: "u1"}` (the REST shape) becomes once protobuf-es ignores the unknown key:
 * sent as is, Herald could only answer `invalid_recipients` or drop the actor.
 */
export const requireOneofKinds: Interceptor = (next) => (request) => {
  if (request.stream) {
    if (request.method !== EventsService.method.streamTriggerEvents) return next(request);
    const requests = request.message as AsyncIterable<StreamTriggerEventsRequest>;
    return next({ ...request, message: checkedStream(requests) } as typeof request);
  }
  if (request.method === EventsService.method.triggerEvent) {
    requireKinds(request.message as TriggerEventRequest, "");
  } else if (request.method === EventsService.method.triggerEventBulk) {
    const { events } = request.message as TriggerEventBulkRequest;
    events.forEach((event, index) => requireKinds(event, `events[${index}].`));
  }
  return next(request);
};

/** The triggers of a stream, each checked as it is sent: a bad one ends the stream with its error. */
async function* checkedStream(
  requests: AsyncIterable<StreamTriggerEventsRequest>,
): AsyncIterable<StreamTriggerEventsRequest> {
  let index = 0;
  for await (const request of requests) {
    if (request.event) requireKinds(request.event, `[${index}].event.`);
    index += 1;
    yield request;
  }
}

function requireKinds(event: TriggerEventRequest, where: string): void {
  event.to.forEach((to, position) => requireKind(to.kind.case, `${where}to[${position}]`));
  if (event.actor) requireKind(event.actor.kind.case, `${where}actor`);
  if (event.tenant) requireKind(event.tenant.kind.case, `${where}tenant`);
}

function requireKind(chosen: string | undefined, path: string): void {
  if (chosen === undefined) {
    throw new ConnectError(
      `${path} has no kind: write {kind: {case: "subscriberId", value: "u1"}} (or use recipient.subscriberId("u1")), ` +
        `not the REST shape {subscriberId: "u1"}`,
      Code.InvalidArgument,
    );
  }
}

/** One client per Herald service over one gRPC (HTTP/2) connection, authenticated with `apiKey`. */
export class Herald {
  readonly environments: Client<typeof EnvironmentsService>;
  readonly events: Client<typeof EventsService>;
  readonly integrations: Client<typeof IntegrationsService>;
  readonly messages: Client<typeof MessagesService>;
  readonly notifications: Client<typeof NotificationsService>;
  readonly subscribers: Client<typeof SubscribersService>;
  readonly topics: Client<typeof TopicsService>;
  readonly workflows: Client<typeof WorkflowsService>;

  /** `url`: `http://host:port` (h2c) or `https://host`. */
  constructor(url: string, key: string) {
    const transport = createGrpcTransport({ baseUrl: url, interceptors: [apiKey(key), requireOneofKinds] });
    this.environments = createClient(EnvironmentsService, transport);
    this.events = createClient(EventsService, transport);
    this.integrations = createClient(IntegrationsService, transport);
    this.messages = createClient(MessagesService, transport);
    this.notifications = createClient(NotificationsService, transport);
    this.subscribers = createClient(SubscribersService, transport);
    this.topics = createClient(TopicsService, transport);
    this.workflows = createClient(WorkflowsService, transport);
  }
}
