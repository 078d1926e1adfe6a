//! REST routes of messages: the listing and mark-as (201 with a bare JSON array).

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::Extension;
use http::StatusCode;
use serde::ser::{Error as _, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::{json, Value};

use super::query::{OutOfRange, QueryParams};
use super::shapes::{fill_nulls, fill_subscriber_nulls};
use super::{grpc_request, json_response, parse_json, RestResult};
use crate::domain::integrations::providers::CHANNELS;
use crate::domain::limits::MAX_ITEMS;
use crate::domain::messages::MAX_LIMIT;
use crate::domain::tenancy::Tenant;
use crate::domain::validation::Validator;
use crate::error::AppError;
use crate::grpc::Services;
use crate::openapi::schemas::{array_of, limited_text, output, reference};
use crate::openapi::{ApiRoutes, Operation, Reshape};
use crate::proto::herald::v1 as pb;
use pb::messages_service_server::MessagesService;

pub fn routes() -> ApiRoutes<Services> {
    const TAG: &str = "Messages";
    let list = Operation::get("/v1/messages", "listMessages", TAG)
        .summary("Messages, newest first (offset paging)")
        .query("channel", reference("ChannelType"))
        .query_text("subscriberId")
        .query_list("transactionId", limited_text("transactionId"))
        .query("page", json!({"type": "integer", "minimum": 0, "default": 0}))
        .query("limit", json!({"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": 10}))
        .answers(200, output("ListMessagesResponse"));
    let mut ids = array_of(limited_text("messageId"));
    ids["minItems"] = json!(1);
    ids["maxItems"] = json!(MAX_ITEMS);
    let mark_as = Operation::post("/v1/subscribers/{subscriber_id}/messages/mark-as", "markMessagesAs", TAG)
        .summary("Mark a subscriber's messages read, seen, unread or unseen")
        .body(json!({
            "type": "object",
            "required": ["messageId", "markAs"],
            "properties": {
                "messageId": {"anyOf": [limited_text("messageId"), ids]},
                "markAs": {"type": "string", "enum": ["read", "seen", "unread", "unseen"]},
            },
        }))
        .answers(201, array_of(output("Message")))
        .errors(&[404]);
    ApiRoutes::new()
        .add(list, list_messages)
        .add(mark_as, mark_messages_as)
        .reshape("Message", Reshape::Nullable(&NULLABLE_MESSAGE_FIELDS))
        .reshape("Message", Reshape::Optional(&["contextKeys"]))
        .reshape("Message", Reshape::Required(&["cta"]))
}

/// Spec fields of a Message that are "string or null": `null` when unset.
const NULLABLE_MESSAGE_FIELDS: [&str; 3] = ["_templateId", "_messageTemplateId", "_feedId"];

/// The REST shape of a message: nullable fields present, the subscriber's too; `contextKeys` only
/// where the spec shows them (the mark-as answer).
fn message_json(message: &pb::Message, with_context_keys: bool) -> Result<Value, serde_json::Error> {
    let mut json = serde_json::to_value(message)?;
    fill_nulls(&mut json, &NULLABLE_MESSAGE_FIELDS);
    if let Some(subscriber) = json.get_mut("subscriber") {
        fill_subscriber_nulls(subscriber);
    }
    if let (false, Value::Object(fields)) = (with_context_keys, &mut json) {
        fields.remove("contextKeys");
    }
    Ok(json)
}

/// Messages in their REST shape, each shaped as it is written: a page of 1,000 shaped whole first held
/// some 5 MB of `Value`s at once.
struct InRestShape<'a> {
    messages: &'a [pb::Message],
    with_context_keys: bool,
}

impl Serialize for InRestShape<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut sequence = serializer.serialize_seq(Some(self.messages.len()))?;
        for message in self.messages {
            let json = message_json(message, self.with_context_keys).map_err(S::Error::custom)?;
            sequence.serialize_element(&json)?;
        }
        sequence.end()
    }
}

/// A page of the listing: its messages beside the page's other fields.
#[derive(Serialize)]
struct Listing<'a> {
    data: InRestShape<'a>,
    #[serde(flatten)]
    page: Value,
}

async fn list_messages(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    query: QueryParams,
) -> RestResult {
    use pb::channel_type_enum::ChannelType;
    let mut validator = Validator::new();
    let channel = match query.string("channel") {
        None => None,
        Some(name) => match ChannelType::from_str_name(&name).filter(|channel| *channel != ChannelType::Unspecified) {
            Some(channel) => Some(channel as i32),
            None => {
                validator.reject("channel", format!("channel must be one of {}", CHANNELS.join(", ")), name);
                None
            }
        },
    };
    let page = validator.take(query.int32("page", OutOfRange::Clamp));
    let limit = validator.take(query.int32("limit", OutOfRange::Clamp));
    validator.finish()?;
    let request = pb::ListMessagesRequest {
        channel,
        subscriber_id: query.string("subscriberId"),
        transaction_id: query.list("transactionId"),
        page,
        limit,
    };
    let mut response = services.messages.list_messages(grpc_request(tenant, request)).await?.into_inner();
    let messages = std::mem::take(&mut response.data);
    let mut page = serde_json::to_value(response).map_err(AppError::internal)?;
    if let Value::Object(fields) = &mut page {
        fields.remove("data");
    }
    let data = InRestShape { messages: &messages, with_context_keys: false };
    Ok(json_response(StatusCode::OK, &Listing { data, page }))
}

/// Body: `messageId` (one id or an array of ids) and `markAs`. A wrong JSON type is a 400 naming
/// the field; a missing or empty `messageId` and a missing or unknown `markAs` are 422s.
async fn mark_messages_as(
    State(services): State<Services>,
    Extension(tenant): Extension<Tenant>,
    Path(subscriber_id): Path<String>,
    body: Bytes,
) -> RestResult {
    use pb::mark_as_enum::MarkAs;
    let body: Value = parse_json(&body)?;
    if !body.is_object() {
        return Err(AppError::BadRequest("The request body must be a JSON object".into()));
    }
    let message_id = match &body["messageId"] {
        Value::Null => Vec::new(),
        Value::String(id) => vec![id.clone()],
        Value::Array(ids) => ids
            .iter()
            .map(|id| id.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| AppError::BadRequest("Invalid value for field 'messageId': expected strings".into()))?,
        _ => {
            let message = "Invalid value for field 'messageId': expected a string or an array of strings";
            return Err(AppError::BadRequest(message.into()));
        }
    };
    let mark_as = match &body["markAs"] {
        Value::Null => MarkAs::Unspecified,
        Value::String(name) => {
            MarkAs::from_str_name(name).filter(|mark| *mark != MarkAs::Unspecified).ok_or_else(|| {
                AppError::invalid_field("markAs", "markAs must be one of read, seen, unread, unseen", name.as_str())
            })?
        }
        _ => return Err(AppError::BadRequest("Invalid value for field 'markAs': expected a string".into())),
    };
    let request = pb::MarkMessagesAsRequest { subscriber_id, message_id, mark_as: mark_as as i32 };
    let response = services.messages.mark_messages_as(grpc_request(tenant, request)).await?.into_inner();
    let messages = InRestShape { messages: &response.messages, with_context_keys: true };
    Ok(json_response(StatusCode::CREATED, &messages))
}
