//! Workflows (v2) over REST and gRPC.
