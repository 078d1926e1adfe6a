"""Python client of Herald's gRPC API.

The messages and stubs are generated from proto/herald/v1 (``herald.v1``); this package adds only
the API-key authentication and one entry point, ``Herald(url, api_key)``. Errors are ``grpc.RpcError``
with the gRPC status in ``.code()``.
"""

from herald.client import ApiKeyInterceptor, Herald

__all__ = ["ApiKeyInterceptor", "Herald"]
