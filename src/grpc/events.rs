//! `herald.v1.EventsService`: trigger, bulk trigger, trigger stream ([`super::events_stream`]) and cancel.

use tonic::{Request, Response, Status, Streaming};

use super::accept;
use super::events_stream::{answer_stream, Answers};
use crate::auth::tenant_of;
use crate::engine::trigger;
use crate::error::AppError;
use crate::proto::herald::v1 as pb;
use pb::trigger_event_status_enum::TriggerEventStatus;

super::service_shell!(EventsGrpc);

#[tonic::async_trait]
impl pb::events_service_server::EventsService for EventsGrpc {
    type StreamTriggerEventsStream = Answers;

    async fn trigger_event(
        &self,
        request: Request<pb::TriggerEventRequest>,
    ) -> Result<Response<pb::TriggerEventResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let outcome = trigger::trigger_event(&self.state.pool, &self.state.engine, tenant, message.into()).await?;
        Ok(Response::new(outcome.into()))
    }

    async fn trigger_event_bulk(
        &self,
        request: Request<pb::TriggerEventBulkRequest>,
    ) -> Result<Response<pb::TriggerEventBulkResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let requests = message.events.into_iter().map(Into::into).collect();
        let outcomes = trigger::trigger_bulk(&self.state.pool, &self.state.engine, tenant, requests).await?;
        let results = outcomes.into_iter().map(entry_answer).collect::<Result<_, AppError>>()?;
        Ok(Response::new(pb::TriggerEventBulkResponse { results }))
    }

    async fn stream_trigger_events(
        &self,
        request: Request<Streaming<pb::StreamTriggerEventsRequest>>,
    ) -> Result<Response<Self::StreamTriggerEventsStream>, Status> {
        let tenant = tenant_of(&request)?;
        let authorization = request.metadata().get("authorization").map(|value| value.as_bytes());
        let authorization = authorization.and_then(|value| http::HeaderValue::from_bytes(value).ok());
        Ok(Response::new(answer_stream(self.state.clone(), tenant, authorization, request.into_inner())))
    }

    async fn cancel_triggered_event(
        &self,
        request: Request<pb::CancelTriggeredEventRequest>,
    ) -> Result<Response<pb::CancelTriggeredEventResponse>, Status> {
        let (tenant, message) = accept(request)?;
        let transaction_id = message.transaction_id;
        let mut conn = self.state.connection().await?;
        let canceled = trigger::cancel_transaction(&mut conn, &self.state.engine, tenant, &transaction_id).await?;
        tracing::info!(%transaction_id, canceled_jobs = canceled.jobs, stopped_fanouts = canceled.fanouts, "trigger canceled");
        Ok(Response::new(pb::CancelTriggeredEventResponse {
            canceled: canceled.jobs + canceled.fanouts > 0,
            canceled_job_count: canceled.jobs as i32,
        }))
    }
}

/// The answer to one trigger of a bulk request or a stream: a refused trigger (even a 4xx of its own) is
/// an `error` status naming why; only a server failure fails the whole request (or ends the stream).
pub(super) fn entry_answer(
    outcome: Result<trigger::TriggerOutcome, AppError>,
) -> Result<pb::TriggerEventResponse, AppError> {
    match outcome {
        Ok(outcome) => Ok(outcome.into()),
        Err(error @ (AppError::Internal { .. } | AppError::Unavailable(_) | AppError::OutcomeUnknown(_))) => Err(error),
        Err(error) => Ok(pb::TriggerEventResponse {
            acknowledged: false,
            status: TriggerEventStatus::Error as i32,
            error: vec![error.to_string()],
            transaction_id: None,
        }),
    }
}
