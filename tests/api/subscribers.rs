//! Subscribers, their channel credentials and preferences over REST and gRPC.
