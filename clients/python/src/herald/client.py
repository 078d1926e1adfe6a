"""The entry point: one channel to a Herald server, authenticated with an API key."""

from __future__ import annotations

from typing import Any, Callable
from urllib.parse import urlsplit

import grpc

from herald.v1 import (
    environments_pb2_grpc,
    events_pb2_grpc,
    integrations_pb2_grpc,
    messages_pb2_grpc,
    notifications_pb2_grpc,
    subscribers_pb2_grpc,
    topics_pb2_grpc,
    workflows_pb2_grpc,
)


class ApiKeyInterceptor(grpc.UnaryUnaryClientInterceptor, grpc.StreamStreamClientInterceptor):
    """Sends ``authorization: ApiKey <key>`` with every call (the trigger stream's too), the metadata
    Herald authenticates."""

    def __init__(self, api_key: str) -> None:
        self._metadata = ("authorization", f"ApiKey {api_key}")

    def _authorized(self, client_call_details: grpc.ClientCallDetails) -> grpc.ClientCallDetails:
        metadata = [*(client_call_details.metadata or ()), self._metadata]
        return client_call_details._replace(metadata=metadata)

    def intercept_unary_unary(
        self,
        continuation: Callable[[grpc.ClientCallDetails, Any], Any],
        client_call_details: grpc.ClientCallDetails,
        request: Any,
    ) -> Any:
        return continuation(self._authorized(client_call_details), request)

    def intercept_stream_stream(
        self,
        continuation: Callable[[grpc.ClientCallDetails, Any], Any],
        client_call_details: grpc.ClientCallDetails,
        request_iterator: Any,
    ) -> Any:
        return continuation(self._authorized(client_call_details), request_iterator)


def _channel(url: str) -> grpc.Channel:
    """``http://host:port`` (or a bare ``host:port``) is plaintext h2c, ``https://`` is TLS."""
    parts = urlsplit(url if "://" in url else f"http://{url}")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"Herald URL must look like http://host:port or https://host, not {url!r}")
    secure = parts.scheme == "https"
    target = f"{parts.hostname}:{parts.port or (443 if secure else 80)}"
    if secure:
        return grpc.secure_channel(target, grpc.ssl_channel_credentials())
    return grpc.insecure_channel(target)


class Herald:
    """Stubs of every Herald service over one authenticated channel.

    >>> with Herald("http://127.0.0.1:3000", api_key) as herald:
    ...     herald.environments.GetCurrentEnvironment(GetCurrentEnvironmentRequest())
    """

    def __init__(self, url: str, api_key: str) -> None:
        self._raw = _channel(url)
        channel = grpc.intercept_channel(self._raw, ApiKeyInterceptor(api_key))
        self.environments = environments_pb2_grpc.EnvironmentsServiceStub(channel)
        self.events = events_pb2_grpc.EventsServiceStub(channel)
        self.integrations = integrations_pb2_grpc.IntegrationsServiceStub(channel)
        self.messages = messages_pb2_grpc.MessagesServiceStub(channel)
        self.notifications = notifications_pb2_grpc.NotificationsServiceStub(channel)
        self.subscribers = subscribers_pb2_grpc.SubscribersServiceStub(channel)
        self.topics = topics_pb2_grpc.TopicsServiceStub(channel)
        self.workflows = workflows_pb2_grpc.WorkflowsServiceStub(channel)

    def close(self) -> None:
        self._raw.close()

    def __enter__(self) -> Herald:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
