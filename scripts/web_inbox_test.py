"""The <herald-inbox> web component in headless Chromium against a live Herald (run by
scripts/test-web-inbox.sh, which starts Herald and passes it in the environment).

Notifications are sent through the server API (an API key, as a product's backend would) and the
page is watched: the badge counts arrivals live, a click marks read, archive moves a notification to
the archived view, and after a Herald restart a notification sent while the page was disconnected
shows up once it reconnects, with the right count. Any failed expectation exits non-zero.
"""

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request

from playwright.sync_api import expect, sync_playwright

URL = os.environ["HERALD_URL"]
KEY = os.environ["HERALD_API_KEY"]
SUBSCRIBER = f"web-inbox-{int(time.time())}"
WORKFLOW = "web-inbox-test"
TIMEOUT_MS = 15_000


def api(method, path, body=None):
    request = urllib.request.Request(
        URL + path,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"ApiKey {KEY}", "content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        text = response.read()
        return json.loads(text) if text else None


def trigger(n):
    api("POST", "/v1/events/trigger", {"name": WORKFLOW, "to": SUBSCRIBER, "payload": {"n": n}})


def restart_herald():
    """Stops Herald (SIGTERM: it drains and stops its cluster) and starts it again as
    start-herald.sh did: same binary, port, data directory and database."""
    pid = int(os.environ["HERALD_PID"])
    os.kill(pid, signal.SIGTERM)
    deadline = time.time() + 60
    while alive(pid):
        if time.time() > deadline:
            sys.exit("herald did not stop within 60 s")
        time.sleep(0.1)
    work = os.environ["HERALD_WORK"]
    environment = dict(
        os.environ,
        HERALD_DATA_DIR=os.path.join(work, "data"),
        HERALD_ADDR=URL.removeprefix("http://"),
        RUST_LOG=os.environ.get("RUST_LOG", "warn"),
    )
    log = open(os.path.join(work, "herald.log"), "ab")
    process = subprocess.Popen([os.environ["HERALD_BIN"], "serve"], env=environment, stdout=log, stderr=log)
    with open(os.environ["HERALD_PID_FILE"], "w") as file:
        file.write(str(process.pid))
    deadline = time.time() + 60
    while True:
        try:
            api("GET", "/v1/environments/me")
            return
        except OSError:
            if process.poll() is not None or time.time() > deadline:
                sys.exit("herald did not start again; see its log")
            time.sleep(0.1)


def alive(pid):
    """Whether `pid` runs (an exited child its shell has not reaped yet counts as stopped)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def main():
    environment = api("GET", "/v1/environments/me")
    application = environment["applicationIdentifier"]
    api("POST", "/v2/subscribers", {"subscriberId": SUBSCRIBER, "firstName": "Web"})
    api(
        "POST",
        "/v2/workflows",
        {
            "workflowId": WORKFLOW,
            "name": "Web inbox test",
            "active": True,
            "steps": [
                {
                    "name": "Inbox",
                    "type": "in_app",
                    "controlValues": {
                        "subject": "Order {{ payload.n }}",
                        "body": "Order {{ payload.n }} has shipped",
                        "primaryAction": {"label": "Track", "redirect": {"url": "/orders"}},
                    },
                }
            ],
        },
    )

    if os.environ.get("HERALD_PRIVATE_CLUSTER") == "1":
        # The zero-configuration run: the demo page's default is the seeded environment.
        with urllib.request.urlopen(URL + "/inbox/demo", timeout=10) as response:
            assert f'data-default-application="{application}"' in response.read().decode(), "demo default"
        demo = api("GET", "/v2/subscribers/inbox-demo")
        assert demo["subscriberId"] == "inbox-demo", "the demo subscriber exists"
    with urllib.request.urlopen(URL + "/inbox/herald-inbox.js", timeout=10) as response:
        assert response.headers["content-type"].startswith("text/javascript"), response.headers["content-type"]

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", headless=True)
        page = browser.new_page(viewport={"width": 900, "height": 700})
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda message: message.type == "error" and print("console:", message.text, file=sys.stderr))
        # Every event stream the page opened; its `Connection` header, `close`, marks Herald's lean
        # writer, which serves a stream only on a connection of its own (the other inbox answers close
        # theirs, so that the browser has no idle one to reuse; hyper's would keep 16 KiB of buffers).
        # The headers are read outside the event handler: a call that waits inside one can be canceled.
        stream_responses = []
        page.on(
            "response",
            lambda response: response.request.resource_type == "eventsource" and stream_responses.append(response),
        )

        def streams():
            return [response.all_headers().get("connection") for response in stream_responses]

        page.goto(f"{URL}/inbox/demo?applicationIdentifier={application}&subscriberId={SUBSCRIBER}")
        inbox = page.locator("herald-inbox")
        badge = page.locator("herald-inbox .badge")  # Playwright's CSS reaches into open shadow roots
        expect(inbox).to_have_attribute("data-connected", "true", timeout=TIMEOUT_MS)
        assert streams() == ["close"], f"the stream on a connection of its own: {streams()}"
        expect(badge).to_be_hidden()

        # Arrivals: the badge counts up live, without the popover open.
        for n in (1, 2, 3):
            trigger(n)
            expect(inbox).to_have_attribute("data-unread", str(n), timeout=TIMEOUT_MS)
        expect(badge).to_have_text("3")

        page.locator("herald-inbox .bell").click()
        items = page.locator("herald-inbox .list .item")
        expect(items).to_have_count(3)
        expect(items.first.locator(".subject")).to_have_text("Order 3")

        # A click on a notification marks it read; the badge counts down.
        items.filter(has_text="Order 2").locator(".content").click()
        expect(badge).to_have_text("2", timeout=TIMEOUT_MS)
        expect(items.filter(has_text="Order 2")).to_have_class("item")

        # The primary action completes through the API (and reads the notification).
        track = items.filter(has_text="Order 3").locator("button.primary")
        track.click()
        expect(track).to_be_disabled(timeout=TIMEOUT_MS)
        expect(badge).to_have_text("1", timeout=TIMEOUT_MS)

        # Archive moves it out of the inbox and into the archived view.
        items.filter(has_text="Order 1").locator("button.toggle-archive").click()
        expect(items).to_have_count(2, timeout=TIMEOUT_MS)
        expect(badge).to_be_hidden(timeout=TIMEOUT_MS)  # the archived one was the last unread
        page.locator('herald-inbox .tab[data-view="archived"]').click()
        expect(items).to_have_count(1, timeout=TIMEOUT_MS)
        expect(items.first.locator(".subject")).to_have_text("Order 1")
        page.locator('herald-inbox .tab[data-view="inbox"]').click()
        expect(items).to_have_count(2, timeout=TIMEOUT_MS)

        # Disconnected: the page's stream is cut (held off by the browser) while Herald restarts and a
        # notification is sent; nothing can reach the page meanwhile.
        page.route("**/v1/inbox/events**", lambda route: route.abort())
        restart_herald()
        expect(inbox).to_have_attribute("data-connected", "false", timeout=TIMEOUT_MS)
        trigger(4)
        trigger(5)
        time.sleep(1.5)
        expect(badge).to_be_hidden()
        expect(items).to_have_count(2)
        # Reconnected: resumed from its last event, it shows what it missed with the right count.
        page.unroute("**/v1/inbox/events**")
        expect(inbox).to_have_attribute("data-connected", "true", timeout=TIMEOUT_MS)
        expect(badge).to_have_text("2", timeout=TIMEOUT_MS)
        expect(items).to_have_count(4, timeout=TIMEOUT_MS)
        expect(items.first.locator(".subject")).to_have_text("Order 5")
        reconnected = streams()
        assert len(reconnected) >= 2 and set(reconnected) == {"close"}, f"reconnected on a connection of its own: {reconnected}"
        os.makedirs("target", exist_ok=True)
        page.screenshot(path=os.environ.get("WEB_INBOX_SCREENSHOT", "target/web-inbox.png"))

        # Mark all read.
        page.locator("herald-inbox .read-all").click()
        expect(badge).to_be_hidden(timeout=TIMEOUT_MS)
        expect(page.locator("herald-inbox .list .item.unread")).to_have_count(0)

        # Preferences: the global channel switches, saved through the API.
        page.locator("herald-inbox .open-preferences").click()
        email = page.locator('herald-inbox .preferences input[name="email"]')
        expect(email).to_be_checked(timeout=TIMEOUT_MS)
        # The box unchecks at once; the save is the page's PATCH, answered later: read after its answer.
        with page.expect_response(
            lambda response: response.url.endswith("/v1/inbox/preferences") and response.request.method == "PATCH",
            timeout=TIMEOUT_MS,
        ) as saved:
            email.uncheck()
        assert saved.value.ok, f"the preferences PATCH answered {saved.value.status}"
        expect(email).not_to_be_checked()
        preferences = api("GET", f"/v2/subscribers/{SUBSCRIBER}/preferences")
        global_channels = json.dumps(preferences)
        assert '"email": false' in global_channels, f"email switched off globally: {global_channels}"
        page.locator("herald-inbox .open-preferences").click()

        assert not errors, f"errors on the page: {errors}"
        browser.close()


if __name__ == "__main__":
    main()
