"""The inbox stream's load (scripts/bench-inbox-sse.sh runs it; a measurement, not a test).

Standard library only: raw HTTP/1.1 over asyncio streams, so 10,000 connections cost the client little.

  idle      three steps, each printing one line and then waiting for a line on stdin while the shell
            measures Herald's memory (RSS only grows, so the steps' costs add up):
            1. opens --idle Server-Sent Event streams, each on a connection of its own (as an
               `EventSource` on its own connection does: Herald's lean writer serves them), spread over
               the `idle-*` subscribers, each having received its opening `counts` event;
            2. opens --reused keep-alive connections, each answered one `GET /healthz` (hyper
               serves them: what a hyper connection costs);
            3. opens a stream on each of those (a browser reusing a keep-alive connection: what a stream
               adds to a hyper connection), and holds everything until stdin closes.
  latency   opens one stream per `live-*` subscriber, sends --rate triggers/s for --seconds to them in
            turn over --connections keep-alive connections, and reports the trigger-to-event latency:
            from the trigger's request being written to its `received` event arriving.
"""

import argparse
import asyncio
import json
import os
import sys
import time
from urllib.parse import urlsplit


async def http_request(host, port, method, path, headers, body=b""):
    """One request on a fresh connection; returns (status, body)."""
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(request_bytes(host, method, path, headers, body, close=True))
        await writer.drain()
        status, _, payload = await read_response(reader)
        return status, payload
    finally:
        writer.close()


def request_bytes(host, method, path, headers, body, close=False):
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}", f"Content-Length: {len(body)}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    if close:
        lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


async def read_response(reader):
    """Status, headers and body of one Content-Length (or to-close) response."""
    status_line = await reader.readline()
    status = int(status_line.split()[1])
    headers = {}
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b""):
            break
        name, _, value = line.decode().partition(":")
        headers[name.strip().lower()] = value.strip()
    if "content-length" in headers:
        payload = await reader.readexactly(int(headers["content-length"]))
    else:
        payload = await reader.read()
    return status, headers, payload


async def session_token(args, subscriber_id):
    body = json.dumps({"applicationIdentifier": args.app, "subscriberId": subscriber_id}).encode()
    status, payload = await http_request(
        args.host, args.port, "POST", "/v1/inbox/session", {"Content-Type": "application/json"}, body
    )
    if status != 201:
        sys.exit(f"session of {subscriber_id}: {status} {payload[:300]!r}")
    return json.loads(payload)["data"]["token"]


async def open_stream(args, token, connection=None):
    """Opens an event stream (on `connection`, a keep-alive (reader, writer), or a new one); returns
    its reader and writer once the response head has arrived."""
    reader, writer = connection or await asyncio.open_connection(args.host, args.port, limit=1 << 20)
    path = f"/v1/inbox/events?token={token}"
    writer.write(request_bytes(args.host, "GET", path, {"Accept": "text/event-stream"}, b""))
    await writer.drain()
    status_line = await reader.readline()
    if b" 200 " not in status_line:
        sys.exit(f"stream: {status_line!r}")
    while (await reader.readline()) not in (b"\r\n", b""):
        pass
    return reader, writer


async def events(reader):
    """Yields (event name, data) of a chunked text/event-stream body."""
    kind, data = None, []
    while True:
        line = await reader.readline()
        if not line:
            return
        line = line.rstrip(b"\r\n")
        # Chunk-size lines of the chunked encoding hold hex digits only; event lines have a colon.
        if line.startswith(b"event:"):
            kind = line[6:].strip().decode()
        elif line.startswith(b"data:"):
            data.append(line[5:].strip())
        elif line == b"" and kind is not None:
            yield kind, b"\n".join(data)
            kind, data = None, []


async def first_event(reader):
    async for kind, _ in events(reader):
        return kind


async def idle(args):
    subscribers = [f"idle-{n}" for n in range(args.subscribers)]
    tokens = await asyncio.gather(*(session_token(args, s) for s in subscribers))
    semaphore = asyncio.Semaphore(200)
    stdin = asyncio.get_running_loop().run_in_executor

    async def stream(n, connection=None):
        """Opens a stream (on `connection`, else on a new one); true once its `counts` event came."""
        async with semaphore:
            reader, writer = await open_stream(args, tokens[n % len(tokens)], connection)
            held.append(writer)
            return await first_event(reader) == "counts"

    async def streams(connections):
        started = time.monotonic()
        opened = await asyncio.gather(*(stream(n, c) for n, c in enumerate(connections)))
        return {"opened": sum(opened), "seconds": round(time.monotonic() - started, 1)}

    async def connect():
        async with semaphore:
            reader, writer = await asyncio.open_connection(args.host, args.port, limit=1 << 20)
            writer.write(request_bytes(args.host, "GET", "/healthz", {}, b""))
            await writer.drain()
            status, _, _ = await read_response(reader)
            return (reader, writer) if status == 200 else None

    held = []  # every stream's writer, so that no connection is collected and closed
    print(json.dumps(await streams([None] * args.idle)), flush=True)
    await stdin(None, sys.stdin.readline)
    connections = [c for c in await asyncio.gather(*(connect() for _ in range(args.reused))) if c]
    print(json.dumps({"connected": len(connections)}), flush=True)
    await stdin(None, sys.stdin.readline)
    print(json.dumps(await streams(connections)), flush=True)
    await stdin(None, sys.stdin.read)


async def latency(args):
    subscribers = [f"live-{n}" for n in range(args.subscribers)]
    tokens = await asyncio.gather(*(session_token(args, s) for s in subscribers))
    sent = {}
    latencies = []
    total = int(args.rate * args.seconds)

    async def listen(token):
        reader, _ = await open_stream(args, token)
        async for kind, data in events(reader):
            if kind == "received":
                transaction = json.loads(data)["notification"]["transactionId"]
                if transaction in sent:
                    latencies.append(time.monotonic() - sent[transaction])

    listeners = [asyncio.create_task(listen(token)) for token in tokens]
    await asyncio.sleep(1)  # every stream open

    connections = [await asyncio.open_connection(args.host, args.port) for _ in range(args.connections)]
    queue = asyncio.Queue()
    refused = 0

    async def sender(reader, writer):
        nonlocal refused
        while True:
            n = await queue.get()
            transaction = f"lat-{n}"
            body = json.dumps(
                {"name": "welcome", "to": subscribers[n % len(subscribers)], "transactionId": transaction}
            ).encode()
            headers = {"Content-Type": "application/json", "Authorization": f"ApiKey {args.key}"}
            writer.write(request_bytes(args.host, "POST", "/v1/events/trigger", headers, body))
            sent[transaction] = time.monotonic()
            await writer.drain()
            status, _, _ = await read_response(reader)
            if status != 201:
                refused += 1
            queue.task_done()

    senders = [asyncio.create_task(sender(r, w)) for r, w in connections]
    started = time.monotonic()
    for n in range(total):  # open loop: the schedule does not wait for answers
        await asyncio.sleep(max(0.0, started + n / args.rate - time.monotonic()))
        queue.put_nowait(n)
    await queue.join()
    deadline = time.monotonic() + 30
    while len(latencies) < total - refused and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    for task in senders + listeners:
        task.cancel()
    latencies.sort()
    quantile = lambda q: round(latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000, 1)
    print(json.dumps({
        "triggers": total, "refused": refused, "events": len(latencies),
        "send_seconds": round(time.monotonic() - started, 1),
        "p50_ms": quantile(0.50), "p99_ms": quantile(0.99), "max_ms": round(latencies[-1] * 1000, 1),
    }), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["idle", "latency"])
    parser.add_argument("--url", required=True)
    parser.add_argument("--app", required=True, help="the environment's application identifier")
    parser.add_argument("--subscribers", type=int, default=100)
    parser.add_argument("--idle", type=int, default=10000)
    parser.add_argument("--reused", type=int, default=5000)
    parser.add_argument("--rate", type=float, default=500)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--connections", type=int, default=32)
    args = parser.parse_args()
    split = urlsplit(args.url)
    args.host, args.port = split.hostname, split.port
    args.key = os.environ.get("HERALD_API_KEY", "")
    asyncio.run(idle(args) if args.mode == "idle" else latency(args))


if __name__ == "__main__":
    main()
