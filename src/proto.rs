//! Generated protobuf types, tonic services and pbjson serde impls for `proto/herald/v1`.

#[allow(clippy::all, clippy::pedantic, missing_docs)]
pub mod herald {
    pub mod v1 {
        tonic::include_proto!("herald.v1");
        include!(concat!(env!("OUT_DIR"), "/herald.v1.serde.rs"));
    }
}

/// Encoded `FileDescriptorSet` of every Herald proto, served through gRPC reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/herald_descriptor.bin"));
