//! Integrations (provider connections) over REST and gRPC.
