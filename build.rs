//! Compiles `proto/` into Rust (prost messages, tonic services, pbjson serde impls) without `protoc`,
//! and writes the encoded descriptor set for gRPC server reflection.

use std::{fs, io, path::Path, path::PathBuf};

fn proto_files(dir: &Path, found: &mut Vec<PathBuf>) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            proto_files(&path, found)?;
        } else if path.extension().is_some_and(|ext| ext == "proto") {
            found.push(path);
        }
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto");
    // `embed_migrations!` (src/db/mod.rs) reads `migrations/` at compile time, but cargo only sees the
    // files it already embeds: a new migration directory would not be compiled in without this.
    println!("cargo:rerun-if-changed=migrations");
    let mut files = Vec::new();
    proto_files(Path::new("proto"), &mut files)?;
    files.sort();

    let descriptors = protox::compile(&files, ["proto"])?;
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    fs::write(out_dir.join("herald_descriptor.bin"), prost::Message::encode_to_vec(&descriptors))?;

    tonic_prost_build::configure()
        .compile_well_known_types(true)
        .extern_path(".google.protobuf", "::pbjson_types")
        .compile_fds(descriptors.clone())?;

    let mut json = pbjson_build::Builder::new();
    json.register_descriptors(&prost::Message::encode_to_vec(&descriptors))?;
    // REST clients send fields we may not know yet; ignoring them matches the contract's leniency.
    // Required fields with default values (false, 0, empty lists) must still appear on the wire;
    // proto3 `optional` fields that are unset stay omitted, as the contract wants.
    json.ignore_unknown_fields().emit_fields().build(&[".herald"])?;
    Ok(())
}
