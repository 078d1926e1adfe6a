//! Business rules, below the gRPC layer: the REST and gRPC fronts both end up here.

pub mod seed;
pub mod tenancy;
