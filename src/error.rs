//! The one error type of Herald. Business code returns [`AppError`]; the gRPC layer turns it into a
//! `tonic::Status` (with `google.rpc.BadRequest` details for field violations), and the REST layer,
//! which calls the tonic methods in-process, reads the error back from that status and renders the
//! contract's HTTP error body (see [`render::error_response`]).

pub mod render;

use std::sync::Arc;

use http::StatusCode;
use serde_json::Value;
use tonic::Code;
use tonic_types::{ErrorDetails, FieldViolation, StatusExt};

/// Result of business operations.
pub type AppResult<T> = Result<T, AppError>;

/// One failing field of a validated request.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldError {
    /// Dotted path of the field in the request, e.g. `email` or `channels.0.providerId`.
    pub path: String,
    /// Every reason the field is invalid.
    pub messages: Vec<String>,
    /// The value the client sent (JSON `null` when absent).
    pub value: Value,
}

impl FieldError {
    /// `path` failing for one reason.
    pub fn new(path: impl Into<String>, message: impl Into<String>, value: impl Into<Value>) -> Self {
        Self { path: path.into(), messages: vec![message.into()], value: value.into() }
    }
}

impl From<FieldError> for AppError {
    /// A 422 for a single field.
    fn from(field: FieldError) -> Self {
        AppError::Validation(vec![field])
    }
}

/// One way a trigger payload fails the workflow's payload schema.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PayloadError {
    /// Dotted path of the offending value in the payload (empty for the payload itself).
    pub field: String,
    pub message: String,
    /// The offending value (JSON `null` when it is absent).
    pub value: Value,
}

/// Every failure Herald reports, each with a fixed HTTP status and gRPC code.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// 400: malformed input that is not a field validation (bad JSON, wrong type, bad precondition).
    #[error("{0}")]
    BadRequest(String),
    /// 401: the three authentication failures of the contract.
    #[error("{0}")]
    Unauthenticated(String),
    /// 404: an unknown resource; the message names the id.
    #[error("{0}")]
    NotFound(String),
    /// 409: a uniqueness conflict.
    #[error("{0}")]
    Conflict(String),
    /// 413: the request body is over the limit.
    #[error("{0}")]
    PayloadTooLarge(String),
    /// 415: a request body that is not JSON.
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// 422: field validation failed; every failing field is listed.
    #[error("Validation failed: {}", describe_fields(.0))]
    Validation(Vec<FieldError>),
    /// 422: the request is well formed but names something it cannot act on (a trigger of an unknown
    /// workflow answers `workflow_not_found`).
    #[error("{0}")]
    Unprocessable(String),
    /// 400: a trigger payload that fails the workflow's `payloadSchema`; every error is listed.
    #[error("Payload validation failed")]
    PayloadValidation(Vec<PayloadError>),
    /// 429: the environment's rate limit for this kind of request is reached; retry after the delay.
    #[error("{message}")]
    RateLimited { message: String, retry_after: std::time::Duration },
    /// 503: the database could not be reached.
    #[error("service unavailable")]
    Unavailable(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// 503: the database connection was lost after a write's commit may have been sent, so whether it
    /// was stored is unknown; the message says so and how to retry safely.
    #[error("{0}")]
    OutcomeUnknown(String),
    /// 500: a bug or an unexpected failure; the client sees only the `error_id`.
    #[error("Internal server error")]
    Internal {
        /// Id given to the client and logged with the cause.
        error_id: String,
        /// The cause, logged, never sent to the client.
        #[source]
        cause: Box<dyn std::error::Error + Send + Sync>,
    },
}

fn describe_fields(fields: &[FieldError]) -> String {
    fields.iter().map(|field| field.path.as_str()).collect::<Vec<_>>().join(", ")
}

impl AppError {
    /// Wraps an unexpected failure, logging it once with a fresh error id.
    pub fn internal(cause: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        let cause = cause.into();
        let error_id = new_error_id();
        tracing::error!(error_id = %error_id, error = %cause, "internal error");
        AppError::Internal { error_id, cause }
    }

    /// A 422 for a single field.
    pub fn invalid_field(path: impl Into<String>, message: impl Into<String>, value: impl Into<Value>) -> Self {
        FieldError::new(path, message, value).into()
    }

    /// The HTTP status the contract gives this error.
    pub fn http_status(&self) -> StatusCode {
        match self {
            AppError::BadRequest(_) => StatusCode::BAD_REQUEST,
            AppError::Unauthenticated(_) => StatusCode::UNAUTHORIZED,
            AppError::NotFound(_) => StatusCode::NOT_FOUND,
            AppError::Conflict(_) => StatusCode::CONFLICT,
            AppError::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            AppError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            AppError::Validation(_) | AppError::Unprocessable(_) => StatusCode::UNPROCESSABLE_ENTITY,
            AppError::PayloadValidation(_) => StatusCode::BAD_REQUEST,
            AppError::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            AppError::Unavailable(_) | AppError::OutcomeUnknown(_) => StatusCode::SERVICE_UNAVAILABLE,
            AppError::Internal { .. } => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn grpc_code(&self) -> Code {
        match self {
            AppError::BadRequest(_)
            | AppError::Validation(_)
            | AppError::PayloadValidation(_)
            | AppError::UnsupportedMediaType(_) => Code::InvalidArgument,
            AppError::Unprocessable(_) => Code::FailedPrecondition,
            AppError::Unauthenticated(_) => Code::Unauthenticated,
            AppError::NotFound(_) => Code::NotFound,
            AppError::Conflict(_) => Code::AlreadyExists,
            AppError::PayloadTooLarge(_) | AppError::RateLimited { .. } => Code::ResourceExhausted,
            AppError::Unavailable(_) | AppError::OutcomeUnknown(_) => Code::Unavailable,
            AppError::Internal { .. } => Code::Internal,
        }
    }

    /// The error id of a 500, if this is one.
    pub fn error_id(&self) -> Option<&str> {
        match self {
            AppError::Internal { error_id, .. } => Some(error_id),
            _ => None,
        }
    }
}

/// Generates the id a client quotes when reporting a 500.
pub fn new_error_id() -> String {
    uuid::Uuid::now_v7().simple().to_string()
}

impl From<AppError> for tonic::Status {
    fn from(error: AppError) -> Self {
        let code = error.grpc_code();
        let message = match &error {
            AppError::Internal { error_id, .. } => format!("Internal server error (errorId {error_id})"),
            other => other.to_string(),
        };
        let mut status = match &error {
            AppError::Validation(fields) => {
                let violations: Vec<FieldViolation> = fields
                    .iter()
                    .flat_map(|field| field.messages.iter().map(|m| FieldViolation::new(&field.path, m)))
                    .collect();
                tonic::Status::with_error_details(code, message, ErrorDetails::with_bad_request(violations))
            }
            AppError::PayloadValidation(errors) => {
                let violations: Vec<FieldViolation> =
                    errors.iter().map(|error| FieldViolation::new(&error.field, &error.message)).collect();
                tonic::Status::with_error_details(code, message, ErrorDetails::with_bad_request(violations))
            }
            AppError::RateLimited { retry_after, .. } => {
                tonic::Status::with_error_details(code, message, ErrorDetails::with_retry_info(Some(*retry_after)))
            }
            _ => tonic::Status::new(code, message),
        };
        // In-process callers (the REST layer) read the full error back from the source.
        status.set_source(Arc::new(error));
        status
    }
}

impl From<tonic::Status> for AppError {
    /// Recovers the error a status was made from. Every status a tonic method returns is built from
    /// an [`AppError`] in-process, so anything else is a bug, reported as a 500.
    fn from(status: tonic::Status) -> Self {
        match std::error::Error::source(&status).and_then(|source| source.downcast_ref::<AppError>()) {
            Some(original) => original.clone_for_response(),
            None => AppError::internal(format!("{:?}: {}", status.code(), status.message())),
        }
    }
}

impl AppError {
    /// The error of a failure several callers share (a cache lookup or a batch): the error itself for
    /// the last holder, a copy for the others.
    pub fn from_shared(shared: Arc<AppError>) -> Self {
        Arc::try_unwrap(shared).unwrap_or_else(|shared| shared.clone_for_response())
    }

    /// A copy carrying everything a response needs (the cause of a 500 stays behind, already logged).
    fn clone_for_response(&self) -> Self {
        match self {
            AppError::BadRequest(m) => AppError::BadRequest(m.clone()),
            AppError::Unauthenticated(m) => AppError::Unauthenticated(m.clone()),
            AppError::NotFound(m) => AppError::NotFound(m.clone()),
            AppError::Conflict(m) => AppError::Conflict(m.clone()),
            AppError::PayloadTooLarge(m) => AppError::PayloadTooLarge(m.clone()),
            AppError::UnsupportedMediaType(m) => AppError::UnsupportedMediaType(m.clone()),
            AppError::Validation(fields) => AppError::Validation(fields.clone()),
            AppError::Unprocessable(m) => AppError::Unprocessable(m.clone()),
            AppError::PayloadValidation(errors) => AppError::PayloadValidation(errors.clone()),
            AppError::RateLimited { message, retry_after } => {
                AppError::RateLimited { message: message.clone(), retry_after: *retry_after }
            }
            AppError::Unavailable(cause) => AppError::Unavailable(cause.to_string().into()),
            AppError::OutcomeUnknown(m) => AppError::OutcomeUnknown(m.clone()),
            AppError::Internal { error_id, cause } => {
                AppError::Internal { error_id: error_id.clone(), cause: cause.to_string().into() }
            }
        }
    }
}

impl From<diesel::result::Error> for AppError {
    /// Database errors are 500s, except the two a client's data alone can cause and no field check
    /// upstream can fully rule out: text PostgreSQL cannot store (NUL characters), and a value too
    /// long for an index entry. Those are the client's 400, and nothing was written. A connection the
    /// server closed (a restart, an administrator's `pg_terminate_backend`) is a 503 the client may
    /// retry: the pool replaces the connection.
    fn from(error: diesel::result::Error) -> Self {
        // A COMMIT that failed and whose rollback failed too (the connection is gone): the commit's
        // error says why.
        let error = match error {
            diesel::result::Error::RollbackErrorOnCommit { commit_error, .. } => *commit_error,
            other => other,
        };
        if let diesel::result::Error::DatabaseError(kind, info) = &error {
            let message = info.message();
            if lost_connection(kind, message) {
                tracing::warn!(%error, "database connection lost under a request");
                return AppError::Unavailable(Box::new(error));
            }
            if message.contains("invalid byte sequence") || message.contains("unsupported Unicode escape sequence") {
                return AppError::BadRequest("Text must not contain NUL (\\u0000) characters".into());
            }
            // PostgreSQL says "index row size N exceeds maximum" or "index row requires N bytes".
            if message.contains("index row size") || message.contains("index row requires") {
                return AppError::BadRequest("A value is too long to be stored".into());
            }
        }
        AppError::internal(error)
    }
}

/// Whether a database error says the connection is gone rather than anything about the statement:
/// closed or unusable (diesel-async reports an error without an SQLSTATE as `UnableToSendCommand`), or
/// the server ending it (SQLSTATE 57P01–57P03: terminated by an administrator, a crash, a shutdown).
fn lost_connection(kind: &diesel::result::DatabaseErrorKind, message: &str) -> bool {
    use diesel::result::DatabaseErrorKind::{ClosedConnection, UnableToSendCommand};
    matches!(kind, ClosedConnection | UnableToSendCommand)
        || message.starts_with("terminating connection")
        || message.starts_with("the database system is")
}

impl From<diesel_async::pooled_connection::deadpool::PoolError> for AppError {
    fn from(error: diesel_async::pooled_connection::deadpool::PoolError) -> Self {
        tracing::warn!(%error, "database pool unavailable");
        AppError::Unavailable(Box::new(error))
    }
}

/// The name of the unique constraint (or unique index) `error` violated, if it is a unique violation.
/// Lets a domain function turn a specific violation into a 409 or a 422 while anything else stays a 500.
pub fn violated_unique_constraint(error: &diesel::result::Error) -> Option<String> {
    match error {
        diesel::result::Error::DatabaseError(diesel::result::DatabaseErrorKind::UniqueViolation, info) => {
            Some(info.constraint_name().unwrap_or_default().to_string())
        }
        _ => None,
    }
}
