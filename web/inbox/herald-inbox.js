// <herald-inbox>: a subscriber's in-app notifications from Herald, as a bell with a live unread badge
// and a popover list. Plain JavaScript, no dependencies, no build step: load this file with
// <script type="module" src="https://herald.example/inbox/herald-inbox.js"></script> and write
// <herald-inbox application-identifier="…" subscriber-id="…" subscriber-hash="…"></herald-inbox>.
//
// It uses only the inbox routes (a session token, never an API key) and their event stream: the
// stream carries every arrival and change with the exact unread count, and is resumed from the last
// event it saw after a disconnection, so nothing that happened meanwhile is missed; a `reset` event
// (the server no longer holds what was missed) refetches the list. Attributes: `herald-url` (default:
// the page's origin), `application-identifier`, `subscriber-id`, `subscriber-hash` (required when the
// environment's in-app integration has `hmac: true`). Events it dispatches: `herald-inbox:click`
// ({notification}), `herald-inbox:error` ({message}).

const PAGE_SIZE = 20;
const RECONNECT_MS = 2000;
const CHANNELS = [
  ["in_app", "In-app"],
  ["email", "Email"],
  ["sms", "SMS"],
  ["chat", "Chat"],
  ["push", "Push"],
];

const STYLE = `
:host { position: relative; display: inline-block; font: 14px/1.4 system-ui, sans-serif; color: #1f2430; }
button { font: inherit; cursor: pointer; }
.bell { position: relative; border: 0; background: transparent; padding: 6px; border-radius: 50%; }
.bell:hover { background: #eef0f4; }
.bell svg { width: 24px; height: 24px; display: block; }
.badge { position: absolute; top: 0; right: 0; min-width: 18px; height: 18px; padding: 0 5px; box-sizing: border-box;
  border-radius: 9px; background: #d93025; color: #fff; font-size: 11px; font-weight: 600; line-height: 18px; text-align: center; }
.badge[hidden] { display: none; }
.popover { position: absolute; right: 0; top: calc(100% + 6px); width: 360px; max-width: 90vw; background: #fff;
  border: 1px solid #d8dce3; border-radius: 8px; box-shadow: 0 8px 24px rgba(0,0,0,.14); z-index: 1000; }
.popover[hidden] { display: none; }
header { display: flex; align-items: center; gap: 4px; padding: 8px 10px; border-bottom: 1px solid #eceef2; }
header .spacer { flex: 1; }
.tab, .link { border: 0; background: transparent; padding: 4px 6px; border-radius: 4px; color: #4a5160; }
.tab[aria-selected="true"] { color: #1f2430; font-weight: 600; background: #eef0f4; }
.link:hover, .tab:hover { background: #eef0f4; }
.list { list-style: none; margin: 0; padding: 0; max-height: 420px; overflow-y: auto; }
.item { padding: 10px 12px; border-bottom: 1px solid #f0f1f4; display: grid; grid-template-columns: 1fr auto; gap: 4px 8px; }
.item.unread { background: #f3f7ff; }
.item .content { cursor: pointer; min-width: 0; }
.item .subject { font-weight: 600; }
.item.unread .subject::before { content: ""; display: inline-block; width: 8px; height: 8px; border-radius: 50%;
  background: #1a73e8; margin-right: 6px; vertical-align: middle; }
.item .body { color: #4a5160; overflow-wrap: anywhere; }
.item time { color: #8a91a0; font-size: 12px; }
.item .marks { display: flex; flex-direction: column; gap: 2px; align-items: flex-end; }
.item .marks button { border: 0; background: transparent; color: #4a5160; font-size: 12px; padding: 2px 4px; border-radius: 4px; }
.item .marks button:hover { background: #eef0f4; }
.actions { grid-column: 1 / -1; display: flex; gap: 6px; }
.actions button { border: 1px solid #c9ced8; background: #fff; border-radius: 4px; padding: 3px 10px; }
.actions button.primary { background: #1a73e8; border-color: #1a73e8; color: #fff; }
.actions button:disabled { opacity: .55; cursor: default; }
.empty, .status { padding: 16px; text-align: center; color: #8a91a0; }
.status:empty { display: none; }
.preferences { padding: 8px 14px 12px; }
.preferences[hidden] { display: none; }
.preferences label { display: flex; justify-content: space-between; padding: 6px 0; }
`;

const BELL = `<svg viewBox="0 0 24 24" aria-hidden="true"><path fill="currentColor" d="M12 22a2.5 2.5 0 0 0 2.5-2.5h-5A2.5 2.5 0 0 0 12 22zm7-6V11a7 7 0 0 0-5.5-6.84V3.5a1.5 1.5 0 0 0-3 0v.66A7 7 0 0 0 5 11v5l-2 2v1h18v-1l-2-2z"/></svg>`;

class HeraldInbox extends HTMLElement {
  static get observedAttributes() {
    return ["herald-url", "application-identifier", "subscriber-id", "subscriber-hash"];
  }

  constructor() {
    super();
    this.attachShadow({ mode: "open" });
    this.shadowRoot.innerHTML = `<style>${STYLE}</style>
      <button class="bell" part="bell" aria-label="Notifications" aria-haspopup="true" aria-expanded="false">${BELL}
        <span class="badge" part="badge" hidden>0</span></button>
      <div class="popover" part="popover" hidden role="dialog" aria-label="Notifications">
        <header>
          <button class="tab" data-view="inbox" aria-selected="true">Inbox</button>
          <button class="tab" data-view="archived" aria-selected="false">Archived</button>
          <span class="spacer"></span>
          <button class="link read-all">Mark all read</button>
          <button class="link open-preferences" aria-label="Preferences" title="Preferences">⚙</button>
        </header>
        <ul class="list"></ul>
        <div class="preferences" hidden></div>
        <div class="status" role="status"></div>
      </div>`;
    const root = this.shadowRoot;
    this.badge = root.querySelector(".badge");
    this.panel = root.querySelector(".popover");
    this.list = root.querySelector(".list");
    this.status = root.querySelector(".status");
    this.preferencesPanel = root.querySelector(".preferences");
    this.view = "inbox";
    this.items = [];
    this.next = null;
    this.hasMore = false;
    this.loading = false;
    this.lastEventId = null;
    this.generation = 0;
    root.querySelector(".bell").addEventListener("click", () => this.toggle());
    root.querySelectorAll(".tab").forEach((tab) => tab.addEventListener("click", () => this.showView(tab.dataset.view)));
    root.querySelector(".read-all").addEventListener("click", () => this.readAll());
    root.querySelector(".open-preferences").addEventListener("click", () => this.togglePreferences());
    this.list.addEventListener("scroll", () => {
      if (this.list.scrollTop + this.list.clientHeight >= this.list.scrollHeight - 40) this.loadMore();
    });
  }

  connectedCallback() {
    this.start();
  }

  disconnectedCallback() {
    this.stop();
  }

  attributeChangedCallback(_name, previous, current) {
    if (previous !== current && this.isConnected && this.started) this.start();
  }

  get baseUrl() {
    return (this.getAttribute("herald-url") || window.location.origin).replace(/\/+$/, "");
  }

  /** The unread count the badge shows. */
  get unreadCount() {
    return this.unread || 0;
  }

  stop() {
    this.generation += 1;
    if (this.source) this.source.close();
    this.source = null;
    clearTimeout(this.reconnectTimer);
  }

  async start() {
    this.stop();
    this.started = true;
    const generation = this.generation;
    const application = this.getAttribute("application-identifier");
    const subscriber = this.getAttribute("subscriber-id");
    if (!application || !subscriber) {
      this.setStatus("Set application-identifier and subscriber-id.");
      return;
    }
    try {
      await this.openSession();
      if (generation !== this.generation) return;
      // The stream first: its `counts` event (the resume point) loads the list, so nothing that
      // arrives between the two is missed.
      this.lastEventId = null;
      this.connect();
    } catch (error) {
      this.fail(error);
      if (generation === this.generation) this.reconnectTimer = setTimeout(() => this.start(), RECONNECT_MS * 2);
    }
  }

  async openSession() {
    const body = {
      applicationIdentifier: this.getAttribute("application-identifier"),
      subscriberId: this.getAttribute("subscriber-id"),
    };
    const hash = this.getAttribute("subscriber-hash");
    if (hash) body.subscriberHash = hash;
    const answer = await this.request("POST", "/v1/inbox/session", body, false);
    this.token = answer.data.token;
    this.setUnread(answer.data.totalUnreadCount);
  }

  /** An inbox call; an expired session is opened again once. */
  async request(method, path, body, authenticated = true, retried = false) {
    const headers = { accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (authenticated) headers.authorization = `Bearer ${this.token}`;
    const response = await fetch(this.baseUrl + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (response.status === 401 && authenticated && !retried) {
      await this.openSession();
      return this.request(method, path, body, authenticated, true);
    }
    if (!response.ok) {
      let message = `${response.status}`;
      try {
        message = (await response.json()).message || message;
      } catch (_) {
        // Not a JSON error body (a proxy's page): the status says enough.
      }
      throw new Error(`${method} ${path}: ${message}`);
    }
    return response.status === 204 ? null : response.json();
  }

  /** The event stream, resumed from the last event seen: EventSource sends `Last-Event-ID` on its
   * own reconnections; after it gives up (the server answered an error), a new one starts from
   * `lastEventId`. */
  connect() {
    const generation = this.generation;
    let url = `${this.baseUrl}/v1/inbox/events?token=${encodeURIComponent(this.token)}`;
    if (this.lastEventId !== null) url += `&lastEventId=${encodeURIComponent(this.lastEventId)}`;
    const source = new EventSource(url);
    this.source = source;
    const handle = (kind) => (message) => {
      if (generation !== this.generation) return;
      if (message.lastEventId) this.lastEventId = message.lastEventId;
      this.onEvent(kind, JSON.parse(message.data));
    };
    for (const kind of ["received", "changed", "reset", "counts"]) source.addEventListener(kind, handle(kind));
    source.addEventListener("open", () => {
      if (generation === this.generation) this.dataset.connected = "true";
    });
    source.addEventListener("error", () => {
      if (generation !== this.generation) return;
      this.dataset.connected = "false";
      if (source.readyState === EventSource.CLOSED) {
        // The server refused the stream (an expired token, a restart's 503): a new session, the same resume point.
        this.reconnectTimer = setTimeout(async () => {
          if (generation !== this.generation) return;
          try {
            await this.openSession();
          } catch (error) {
            this.fail(error);
          }
          if (generation === this.generation) this.connect();
        }, RECONNECT_MS);
      }
    });
  }

  onEvent(kind, event) {
    if (typeof event.unreadCount === "number") this.setUnread(event.unreadCount);
    if (kind === "reset" || kind === "counts") {
      this.reload().catch((error) => this.fail(error));
      return;
    }
    const notification = event.notification;
    if (!notification) return;
    if (kind === "received") {
      // In the list's order, not the events': two workers may commit their messages, and so number
      // their events, in the other order than the messages were created.
      if (this.view === "inbox" && !this.items.some((item) => item.id === notification.id)) {
        this.insertInOrder(notification);
        this.render();
      }
      return;
    }
    // A deleted notification is gone from every view; a snoozed one until it comes back (`unsnooze`).
    if (event.change === "delete" || event.change === "snooze") this.remove(notification.id);
    else this.applyChange(notification);
  }

  remove(id) {
    this.items = this.items.filter((item) => item.id !== id);
    this.render();
  }

  /** Puts a changed notification where it now belongs: updated in place, or out of this view. */
  applyChange(notification) {
    const index = this.items.findIndex((item) => item.id === notification.id);
    const belongs = !notification.isSnoozed && notification.isArchived === (this.view === "archived");
    if (index >= 0 && belongs) this.items[index] = notification;
    else if (index >= 0) this.items.splice(index, 1);
    else if (belongs) this.insertInOrder(notification);
    this.render();
  }

  /** Adds a notification where the API's list would show it: newest first, then by id. */
  insertInOrder(notification) {
    this.items.push(notification);
    this.items.sort(newestFirst);
  }

  setUnread(count) {
    this.unread = count;
    this.badge.textContent = count > 99 ? "99+" : String(count);
    this.badge.hidden = count === 0;
    this.dataset.unread = String(count);
  }

  async reload() {
    this.items = [];
    this.next = null;
    this.hasMore = false;
    await this.loadPage();
  }

  async loadMore() {
    if (this.hasMore && !this.loading) await this.loadPage().catch((error) => this.fail(error));
  }

  async loadPage() {
    this.loading = true;
    const view = this.view;
    try {
      let path = `/v1/inbox/notifications?limit=${PAGE_SIZE}&archived=${view === "archived"}`;
      if (this.next) path += `&after=${encodeURIComponent(this.next)}`;
      const page = await this.request("GET", path);
      if (view !== this.view) return;
      for (const notification of page.data) {
        if (!this.items.some((item) => item.id === notification.id)) this.items.push(notification);
      }
      this.next = page.next || null;
      this.hasMore = Boolean(page.hasMore && page.next);
      this.setStatus("");
      this.render();
    } finally {
      this.loading = false;
    }
    // A first page shorter than the box cannot scroll: fetch on until it can, or nothing is left.
    if (this.hasMore && !this.panel.hidden && this.list.scrollHeight <= this.list.clientHeight) await this.loadMore();
  }

  toggle() {
    const open = this.panel.hidden;
    this.panel.hidden = !open;
    this.shadowRoot.querySelector(".bell").setAttribute("aria-expanded", String(open));
    if (open) this.loadMore();
  }

  showView(view) {
    this.view = view;
    this.shadowRoot.querySelectorAll(".tab").forEach((tab) => tab.setAttribute("aria-selected", String(tab.dataset.view === view)));
    this.preferencesPanel.hidden = true;
    this.list.hidden = false;
    this.reload().catch((error) => this.fail(error));
  }

  render() {
    this.list.replaceChildren();
    if (this.items.length === 0) {
      const empty = document.createElement("li");
      empty.className = "empty";
      empty.textContent = this.view === "archived" ? "No archived notifications" : "No notifications";
      this.list.append(empty);
      return;
    }
    for (const notification of this.items) this.list.append(this.renderItem(notification));
  }

  renderItem(notification) {
    const item = document.createElement("li");
    item.className = `item${notification.isRead ? "" : " unread"}`;
    item.dataset.id = notification.id;
    const content = document.createElement("div");
    content.className = "content";
    if (notification.subject) content.append(element("div", "subject", notification.subject));
    content.append(element("div", "body", notification.body));
    const time = element("time", "", new Date(notification.createdAt).toLocaleString());
    time.dateTime = notification.createdAt;
    content.append(time);
    content.addEventListener("click", () => {
      if (!notification.isRead) this.mark(notification, "read");
      this.dispatchEvent(new CustomEvent("herald-inbox:click", { detail: { notification }, bubbles: true, composed: true }));
    });
    const marks = document.createElement("div");
    marks.className = "marks";
    marks.append(
      button(notification.isRead ? "Mark unread" : "Mark read", "toggle-read", () =>
        this.mark(notification, notification.isRead ? "unread" : "read"),
      ),
      button(notification.isArchived ? "Unarchive" : "Archive", "toggle-archive", () =>
        this.mark(notification, notification.isArchived ? "unarchive" : "archive"),
      ),
    );
    item.append(content, marks);
    const actions = document.createElement("div");
    actions.className = "actions";
    for (const [type, action] of [["primary", notification.primaryAction], ["secondary", notification.secondaryAction]]) {
      if (!action || !action.label) continue;
      const control = button(action.label, type, () => this.complete(notification, type));
      control.disabled = Boolean(action.isCompleted);
      actions.append(control);
    }
    if (actions.childElementCount) item.append(actions);
    return item;
  }

  async mark(notification, change) {
    try {
      const answer = await this.request("PATCH", `/v1/inbox/notifications/${encodeURIComponent(notification.id)}/${change}`);
      this.applyChange(answer.data);
    } catch (error) {
      this.fail(error);
    }
  }

  async complete(notification, actionType) {
    try {
      const path = `/v1/inbox/notifications/${encodeURIComponent(notification.id)}/complete`;
      const answer = await this.request("PATCH", path, { actionType });
      if (!answer.data.isRead) await this.mark(answer.data, "read");
      else this.applyChange(answer.data);
    } catch (error) {
      this.fail(error);
    }
  }

  async readAll() {
    try {
      await this.request("POST", "/v1/inbox/notifications/read", {});
      // The events bring the count; the list is marked here at once.
      this.items = this.items.map((item) => ({ ...item, isRead: true }));
      this.render();
    } catch (error) {
      this.fail(error);
    }
  }

  async togglePreferences() {
    const open = this.preferencesPanel.hidden;
    this.preferencesPanel.hidden = !open;
    this.list.hidden = open;
    if (!open) return;
    try {
      const answer = await this.request("GET", "/v1/inbox/preferences");
      const global = answer.data.find((preference) => preference.level === "global") || { channels: {} };
      this.renderPreferences(global.channels || {});
    } catch (error) {
      this.fail(error);
    }
  }

  renderPreferences(channels) {
    this.preferencesPanel.replaceChildren(element("div", "subject", "Notify me by"));
    for (const [channel, label] of CHANNELS) {
      const row = document.createElement("label");
      const toggle = document.createElement("input");
      toggle.type = "checkbox";
      toggle.name = channel;
      toggle.checked = channels[channel] !== false;
      toggle.addEventListener("change", async () => {
        try {
          const answer = await this.request("PATCH", "/v1/inbox/preferences", { [channel]: toggle.checked });
          this.renderPreferences(answer.data.channels || {});
        } catch (error) {
          toggle.checked = !toggle.checked;
          this.fail(error);
        }
      });
      row.append(document.createTextNode(label), toggle);
      this.preferencesPanel.append(row);
    }
  }

  setStatus(text) {
    this.status.textContent = text;
  }

  fail(error) {
    const message = error && error.message ? error.message : String(error);
    this.setStatus(message);
    this.dispatchEvent(new CustomEvent("herald-inbox:error", { detail: { message }, bubbles: true, composed: true }));
  }
}

/** The inbox's order, as the API lists it: newest first, then by id (ids grow with time). */
function newestFirst(a, b) {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  node.textContent = text;
  return node;
}

function button(label, className, onClick) {
  const node = element("button", className, label);
  node.type = "button";
  node.addEventListener("click", (event) => {
    event.stopPropagation();
    onClick();
  });
  return node;
}

if (!customElements.get("herald-inbox")) customElements.define("herald-inbox", HeraldInbox);
