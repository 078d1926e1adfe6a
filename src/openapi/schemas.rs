//! JSON Schemas of the proto messages, generated from the same descriptor set pbjson's serde code is
//! generated from (`crate::proto::FILE_DESCRIPTOR_SET`), so they follow every rename (`json_name`),
//! enum value and field added to `proto/` without a line changing here.
//!
//! A message has two schemas:
//! - as the server writes it (`Subscriber`): pbjson with `emit_fields` writes every field that is
//!   neither `optional`, in a oneof, nor a message, so those are `required`; nothing else is written
//!   (`additionalProperties: false`), so a field the document does not know fails validation;
//! - as the server reads it (`SubscriberInput`; a `…Request` is only ever read): nothing is required
//!   (an absent field is its default), unknown fields are ignored, and every text, list and enum
//!   carries the bound `crate::domain::limits::check_bounds` enforces, so clients and fuzzers see them.

use std::collections::{BTreeMap, HashMap};

use prost::Message as _;
use prost_types::field_descriptor_proto::{Label, Type};
use prost_types::{DescriptorProto, EnumDescriptorProto, FieldDescriptorProto, FileDescriptorSet};
use serde_json::{json, Map, Value};

use crate::domain::limits::{is_free_form, is_secret_context, text_bound, MAX_ITEMS};

/// Identifiers may not hold control characters (`char::is_control`: the Unicode `Cc` category).
const NO_CONTROL_CHARACTERS: &str = "^[^\\u0000-\\u001f\\u007f-\\u009f]*$";
/// Other text may not hold the NUL character, which PostgreSQL cannot store.
const NO_NUL: &str = "^[^\\u0000]*$";

/// `{"$ref": …}` to the component `name`.
pub fn reference(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

/// The schema of `message` as the server writes it.
pub fn output(message: &str) -> Value {
    reference(message)
}

/// The schema of `message` as the server reads it.
pub fn input(message: &str) -> Value {
    reference(&input_name(message, false))
}

/// `{type: array, items}`: bare JSON arrays the REST layer answers with.
pub fn array_of(items: Value) -> Value {
    json!({ "type": "array", "items": items })
}

/// Text under the JSON key `key` (a body field or a query parameter of that name), bounded as
/// `check_bounds` bounds it, and never holding a NUL, which PostgreSQL cannot store (a 400).
pub fn limited_text(key: &str) -> Value {
    bounded_text(key, false)
}

fn bounded_text(key: &str, secret: bool) -> Value {
    let (max, identifier) = text_bound(key, secret);
    let pattern = if identifier { NO_CONTROL_CHARACTERS } else { NO_NUL };
    json!({ "type": "string", "maxLength": max, "pattern": pattern })
}

/// The component of `message` as read: requests and `…Input` messages are only ever read, so they
/// keep their names; others get `Input` (`SecretInput` under a secret context).
fn input_name(message: &str, secret: bool) -> String {
    match (read_only(message), secret) {
        (true, false) => message.to_string(),
        (_, true) => format!("{message}SecretInput"),
        (false, false) => format!("{message}Input"),
    }
}

fn read_only(message: &str) -> bool {
    message.ends_with("Request") || message.ends_with("Input")
}

/// A message or enum of the descriptor set, with where its comments are.
struct Declared<T> {
    descriptor: T,
    file: usize,
    location: Vec<i32>,
}

/// Generates component schemas on demand from the descriptor set.
pub struct Generator {
    messages: HashMap<String, Declared<DescriptorProto>>,
    enums: HashMap<String, Declared<EnumDescriptorProto>>,
    /// Component name → full proto name (`Subscriber` → `.herald.v1.Subscriber`).
    names: HashMap<String, String>,
    comments: HashMap<(usize, Vec<i32>), String>,
    /// Fields left out of a request's schema because the REST layer fills them (path parameters).
    omitted: HashMap<String, Vec<String>>,
    pub schemas: BTreeMap<String, Value>,
}

impl Generator {
    pub fn new() -> Self {
        let set = FileDescriptorSet::decode(crate::proto::FILE_DESCRIPTOR_SET).expect("the embedded descriptor set");
        let mut generator = Self {
            messages: HashMap::new(),
            enums: HashMap::new(),
            names: HashMap::new(),
            comments: HashMap::new(),
            omitted: HashMap::new(),
            schemas: BTreeMap::new(),
        };
        for (index, file) in set.file.into_iter().enumerate() {
            let package = format!(".{}", file.package());
            for location in file.source_code_info.iter().flat_map(|info| &info.location) {
                let text = location.leading_comments().trim();
                if !text.is_empty() {
                    let text = text.lines().map(str::trim).collect::<Vec<_>>().join(" ");
                    generator.comments.insert((index, location.path.clone()), text);
                }
            }
            for (position, message) in file.message_type.into_iter().enumerate() {
                generator.index_message(index, &package, message, vec![4, position as i32]);
            }
            for (position, enumeration) in file.enum_type.into_iter().enumerate() {
                generator.index_enum(index, &package, enumeration, vec![5, position as i32]);
            }
        }
        generator
    }

    fn index_message(&mut self, file: usize, scope: &str, message: DescriptorProto, location: Vec<i32>) {
        let full = format!("{scope}.{}", message.name());
        for (position, nested) in message.nested_type.iter().enumerate() {
            let mut nested_location = location.clone();
            nested_location.extend([3, position as i32]);
            self.index_message(file, &full, nested.clone(), nested_location);
        }
        for (position, enumeration) in message.enum_type.iter().enumerate() {
            let mut enum_location = location.clone();
            enum_location.extend([4, position as i32]);
            self.index_enum(file, &full, enumeration.clone(), enum_location);
        }
        if full.starts_with(".herald.") && !message.options.as_ref().is_some_and(|options| options.map_entry()) {
            self.names.insert(message.name().to_string(), full.clone());
        }
        self.messages.insert(full, Declared { descriptor: message, file, location });
    }

    fn index_enum(&mut self, file: usize, scope: &str, enumeration: EnumDescriptorProto, location: Vec<i32>) {
        let full = format!("{scope}.{}", enumeration.name());
        if full.starts_with(".herald.") {
            self.names.insert(enumeration.name().to_string(), full.clone());
        }
        self.enums.insert(full, Declared { descriptor: enumeration, file, location });
    }

    /// Leaves `fields` (JSON names) out of the request `message`'s schema.
    pub fn omit(&mut self, message: &str, fields: Vec<String>) {
        self.omitted.entry(message.to_string()).or_default().extend(fields);
    }

    /// Generates the component `name` (and every component it refers to) unless it exists. Panics
    /// on a name that is no message or enum: the document's own test meets it first.
    pub fn ensure(&mut self, name: &str) {
        if self.schemas.contains_key(name) {
            return;
        }
        let (message, input, secret) = if self.names.contains_key(name) {
            (name, read_only(name), false)
        } else if let Some(message) = name.strip_suffix("SecretInput") {
            (message, true, true)
        } else {
            (name.strip_suffix("Input").unwrap_or(name), true, false)
        };
        let full = self.names.get(message).unwrap_or_else(|| panic!("no proto message or enum {name}")).clone();
        // A placeholder first: messages may refer to themselves.
        self.schemas.insert(name.to_string(), Value::Null);
        let schema = if self.enums.contains_key(&full) {
            self.enum_schema(&full)
        } else {
            let omitted = if input { self.omitted.get(message).cloned().unwrap_or_default() } else { Vec::new() };
            self.message_schema(&full, Variant { input, secret }, &omitted)
        };
        self.schemas.insert(name.to_string(), schema);
    }

    /// A copy of the generated component `name`, to reshape under another name.
    pub fn component(&mut self, name: &str) -> Value {
        self.ensure(name);
        self.schemas[name].clone()
    }

    fn comment(&self, file: usize, location: &[i32]) -> Option<String> {
        self.comments.get(&(file, location.to_vec())).cloned()
    }

    fn enum_schema(&self, full: &str) -> Value {
        let declared = &self.enums[full];
        let values: Vec<&str> = declared
            .descriptor
            .value
            .iter()
            .map(|value| value.name())
            .filter(|name| !name.ends_with("_UNSPECIFIED"))
            .collect();
        let mut schema = json!({ "type": "string", "enum": values });
        if let Some(description) = self.comment(declared.file, &declared.location) {
            schema["description"] = json!(description);
        }
        schema
    }

    fn message_schema(&mut self, full: &str, variant: Variant, omitted: &[String]) -> Value {
        let (fields, file, location, description) = {
            let declared = &self.messages[full];
            let description = self.comment(declared.file, &declared.location);
            (declared.descriptor.field.clone(), declared.file, declared.location.clone(), description)
        };
        let mut properties = Map::new();
        let mut required = Vec::new();
        for (position, field) in fields.iter().enumerate() {
            let name = field.json_name().to_string();
            if omitted.contains(&name) || (variant.input && field.type_name() == ".google.protobuf.FieldMask") {
                continue;
            }
            let mut schema = self.field_schema(field, &name, variant);
            if variant.input && has_presence(field) {
                // pbjson reads `null` as unset for these (a PATCH clears them with it).
                schema = nullable(schema);
            }
            let mut field_location = location.clone();
            field_location.extend([2, position as i32]);
            if let (Some(description), Value::Object(object)) = (self.comment(file, &field_location), &mut schema) {
                object.insert("description".into(), json!(description));
            }
            if !variant.input && always_written(field) {
                required.push(json!(name));
            }
            properties.insert(name, schema);
        }
        let mut schema = json!({ "type": "object", "properties": properties });
        if !variant.input {
            schema["required"] = Value::Array(required);
            schema["additionalProperties"] = json!(false);
        }
        if let Some(description) = description {
            schema["description"] = json!(description);
        }
        schema
    }

    fn field_schema(&mut self, field: &FieldDescriptorProto, name: &str, variant: Variant) -> Value {
        if let Some(entry) = self.map_entry(field) {
            let value_field = entry.field.iter().find(|field| field.number() == 2).expect("a map value").clone();
            let values = self.single_schema(&value_field, name, variant);
            return json!({ "type": "object", "additionalProperties": values });
        }
        let single = self.single_schema(field, name, variant);
        if field.label() == Label::Repeated {
            let mut array = array_of(single);
            if variant.input {
                array["maxItems"] = json!(MAX_ITEMS);
            }
            array
        } else {
            single
        }
    }

    fn map_entry(&self, field: &FieldDescriptorProto) -> Option<&DescriptorProto> {
        let declared = self.messages.get(field.type_name())?;
        declared.descriptor.options.as_ref().is_some_and(|options| options.map_entry()).then_some(&declared.descriptor)
    }

    /// The schema of one value of `field` (an item, for a repeated field).
    fn single_schema(&mut self, field: &FieldDescriptorProto, name: &str, variant: Variant) -> Value {
        match field.r#type() {
            Type::String => {
                if variant.input {
                    bounded_text(name, variant.secret)
                } else {
                    json!({ "type": "string" })
                }
            }
            Type::Bool => json!({ "type": "boolean" }),
            Type::Int32 | Type::Sint32 | Type::Sfixed32 => json!({ "type": "integer", "format": "int32" }),
            Type::Uint32 | Type::Fixed32 => json!({ "type": "integer", "format": "int32", "minimum": 0 }),
            // The proto JSON mapping writes 64-bit integers as strings.
            Type::Int64 | Type::Sint64 | Type::Sfixed64 | Type::Uint64 | Type::Fixed64 => {
                json!({ "type": "string", "pattern": "^-?[0-9]+$" })
            }
            Type::Double | Type::Float => json!({ "type": "number" }),
            Type::Bytes => json!({ "type": "string", "contentEncoding": "base64" }),
            Type::Enum => {
                let full = field.type_name();
                let short = full.rsplit('.').next().unwrap_or(full).to_string();
                self.ensure(&short);
                reference(&short)
            }
            Type::Message | Type::Group => match field.type_name() {
                ".google.protobuf.Struct" => json!({ "type": "object" }),
                ".google.protobuf.Value" => json!({}),
                ".google.protobuf.ListValue" => json!({ "type": "array" }),
                ".google.protobuf.FieldMask" => json!({ "type": "string" }),
                ".google.protobuf.Timestamp" => json!({ "type": "string", "format": "date-time" }),
                full => {
                    let short = full.rsplit('.').next().unwrap_or(full);
                    let secret = variant.secret || is_secret_context(name);
                    let component = match (variant.input, is_free_form(name)) {
                        (false, _) => short.to_string(),
                        (true, false) => input_name(short, secret),
                        (true, true) => return json!({ "type": "object" }),
                    };
                    self.ensure(&component);
                    reference(&component)
                }
            },
        }
    }
}

impl Default for Generator {
    fn default() -> Self {
        Self::new()
    }
}

#[derive(Debug, Clone, Copy)]
struct Variant {
    /// As the server reads it (else as it writes it).
    input: bool,
    /// Under `credentials` or `headers`: text is bounded as secret material.
    secret: bool,
}

/// Whether pbjson (with `emit_fields`) writes `field` whatever its value: lists, maps and scalars
/// without presence; not `optional` fields, oneof members or messages, which it omits when unset.
fn always_written(field: &FieldDescriptorProto) -> bool {
    field.label() == Label::Repeated || !has_presence(field)
}

/// `optional` fields, oneof members and (single) messages: unset is distinct from the default.
fn has_presence(field: &FieldDescriptorProto) -> bool {
    field.label() != Label::Repeated
        && (field.proto3_optional()
            || field.oneof_index.is_some()
            || matches!(field.r#type(), Type::Message | Type::Group))
}

/// `schema` or `null`.
pub fn nullable(schema: Value) -> Value {
    match schema.get("type").and_then(Value::as_str) {
        Some(kind) => {
            let mut schema = schema.clone();
            schema["type"] = json!([kind, "null"]);
            schema
        }
        None => json!({ "anyOf": [schema, { "type": "null" }] }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_as_written_requires_what_pbjson_always_writes() {
        let mut generator = Generator::new();
        let schema = generator.component("TriggerEventResponse");
        let required: Vec<&str> = schema["required"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
        assert_eq!(required, ["acknowledged", "status", "error"]);
        assert_eq!(schema["properties"]["transactionId"]["type"], "string");
        assert_eq!(schema["additionalProperties"], false);
        let status = &generator.schemas["TriggerEventStatus"];
        assert!(status["enum"].as_array().unwrap().contains(&json!("processed")));
        assert!(!status["enum"].as_array().unwrap().iter().any(|name| name.as_str().unwrap().ends_with("UNSPECIFIED")));
    }

    #[test]
    fn a_message_as_read_carries_the_bounds_and_requires_nothing() {
        let mut generator = Generator::new();
        let schema = generator.component("TriggerEventRequest");
        assert!(schema.get("required").is_none());
        assert_eq!(schema["properties"]["transactionId"]["maxLength"], 255);
        assert_eq!(schema["properties"]["exclude"]["maxItems"], MAX_ITEMS);
        // A message field may be sent as null (unset).
        assert_eq!(schema["properties"]["payload"]["type"], json!(["object", "null"]));
        assert!(generator.schemas.contains_key("TriggerSubscriberInput"));
    }
}
