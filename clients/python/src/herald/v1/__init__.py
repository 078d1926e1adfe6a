"""Messages and service stubs of herald.v1, generated from proto/herald/v1 by grpcio-tools."""
