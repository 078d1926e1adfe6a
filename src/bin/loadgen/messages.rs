//! Waiting for the in-app messages of the accepted triggers through `GET /v1/messages`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Duration;

use chrono::{DateTime, Utc};
use futures_util::{stream, StreamExt};
use serde::Deserialize;
use tokio::time::Instant;

/// Largest `limit` of the messages listing (contract: at most 1000).
pub const PAGE_LIMIT: usize = 1000;
/// Transaction ids per listing request, at most.
pub const MAX_IDS_PER_REQUEST: usize = 100;
const PARALLEL_REQUESTS: usize = 8;
const POLL_INTERVAL: Duration = Duration::from_millis(250);

/// One page of the messages listing (the fields read here).
#[derive(Debug, Deserialize)]
pub struct MessagePage {
    pub data: Vec<MessageRow>,
    #[serde(rename = "hasMore")]
    pub has_more: bool,
}

/// One message of the listing (the fields read here).
#[derive(Debug, Deserialize)]
pub struct MessageRow {
    #[serde(rename = "_id")]
    pub id: String,
    #[serde(rename = "transactionId")]
    pub transaction_id: String,
    #[serde(rename = "createdAt")]
    pub created_at: String,
    #[serde(default)]
    pub channel: Option<String>,
}

/// What the wait found.
#[derive(Debug, Default)]
pub struct Observed {
    /// Creation time of each message, by transaction id then message id.
    pub messages: HashMap<String, HashMap<String, DateTime<Utc>>>,
    /// Listing failures, by kind.
    pub errors: BTreeMap<String, u64>,
    /// Set when waiting stopped early because the listing cannot answer (e.g. 404, 401).
    pub aborted: Option<String>,
    pub timed_out: bool,
    pub waited: Duration,
}

/// Ids per listing request, so that one page (limit 1000) holds every expected message of a chunk.
pub fn ids_per_request(recipients_per_trigger: u32) -> usize {
    (PAGE_LIMIT / recipients_per_trigger.max(1) as usize).clamp(1, MAX_IDS_PER_REQUEST)
}

/// Query string of one listing request.
pub fn listing_query(ids: &[&str], page: usize) -> String {
    let mut query = form_urlencoded::Serializer::new(String::new());
    query.append_pair("channel", "in_app");
    for id in ids {
        query.append_pair("transactionId", id);
    }
    query.append_pair("page", &page.to_string()).append_pair("limit", &PAGE_LIMIT.to_string());
    query.finish()
}

/// Parses an RFC 3339 timestamp (the contract's `2026-11-21T10:00:00.000Z`, any offset accepted).
pub fn parse_timestamp(value: &str) -> Result<DateTime<Utc>, chrono::ParseError> {
    DateTime::parse_from_rfc3339(value).map(|at| at.with_timezone(&Utc))
}

/// Transaction ids of `expected` with fewer than `per_trigger` messages in `observed`, in order.
pub fn incomplete<'a>(expected: &'a [String], observed: &Observed, per_trigger: usize) -> Vec<&'a str> {
    expected
        .iter()
        .filter(|id| observed.messages.get(id.as_str()).map_or(0, HashMap::len) < per_trigger)
        .map(String::as_str)
        .collect()
}

/// Records the rows of `page` that belong to `requested` transaction ids; counts the others.
pub fn record(observed: &mut Observed, requested: &HashSet<&str>, page: MessagePage) {
    for row in page.data {
        if !requested.contains(row.transaction_id.as_str()) || row.channel.as_deref().is_some_and(|c| c != "in_app") {
            *observed.errors.entry("row not matching the filter".into()).or_default() += 1;
            continue;
        }
        match parse_timestamp(&row.created_at) {
            Ok(at) => {
                observed.messages.entry(row.transaction_id).or_default().insert(row.id, at);
            }
            Err(_) => *observed.errors.entry("unparsable createdAt".into()).or_default() += 1,
        }
    }
}

/// Where the listing is and how to call it.
pub struct Listing {
    pub http: reqwest::Client,
    pub endpoint: String,
    pub authorization: String,
}

enum Fetch {
    Page(MessagePage),
    /// Worth retrying (transport error, 5xx).
    Retry(String),
    /// Will not get better (4xx): stop waiting.
    Fatal(String),
}

impl Listing {
    pub fn new(base_url: &str, api_key: &str, timeout: Duration) -> anyhow::Result<Self> {
        Ok(Self {
            http: reqwest::Client::builder().timeout(timeout).build()?,
            endpoint: format!("{}/v1/messages", base_url.trim_end_matches('/')),
            authorization: format!("ApiKey {api_key}"),
        })
    }

    async fn fetch(&self, ids: &[&str], page: usize) -> Fetch {
        let url = format!("{}?{}", self.endpoint, listing_query(ids, page));
        let response = match self.http.get(url).header(reqwest::header::AUTHORIZATION, &self.authorization).send().await
        {
            Ok(response) => response,
            Err(error) => return Fetch::Retry(format!("transport error: {error}")),
        };
        let status = response.status();
        if status.is_client_error() {
            let body = response.text().await.unwrap_or_default();
            return Fetch::Fatal(format!("GET /v1/messages answered HTTP {}: {}", status.as_u16(), body.trim()));
        }
        if !status.is_success() {
            return Fetch::Retry(format!("HTTP {}", status.as_u16()));
        }
        match response.json::<MessagePage>().await {
            Ok(page) => Fetch::Page(page),
            Err(error) => Fetch::Fatal(format!("GET /v1/messages answered an unexpected body: {error}")),
        }
    }

    /// All pages of one chunk of ids (normally one page).
    async fn fetch_chunk(&self, ids: &[&str]) -> Vec<Fetch> {
        let mut pages = Vec::new();
        for page in 0.. {
            let fetched = self.fetch(ids, page).await;
            let more = matches!(&fetched, Fetch::Page(p) if p.has_more && !p.data.is_empty());
            pages.push(fetched);
            if !more || page >= 100 {
                break;
            }
        }
        pages
    }

    /// Polls until each of `expected` has `per_trigger` in-app messages, or `timeout` passes.
    pub async fn wait(&self, expected: &[String], per_trigger: u32, timeout: Duration) -> Observed {
        let started = Instant::now();
        let mut observed = Observed::default();
        let chunk = ids_per_request(per_trigger);
        loop {
            let pending = incomplete(expected, &observed, per_trigger as usize);
            if pending.is_empty() {
                break;
            }
            if started.elapsed() >= timeout {
                observed.timed_out = true;
                break;
            }
            let mut answers = stream::iter(pending.chunks(chunk))
                .map(|ids| async move { (ids, self.fetch_chunk(ids).await) })
                .buffer_unordered(PARALLEL_REQUESTS);
            while let Some((ids, pages)) = answers.next().await {
                let requested: HashSet<&str> = ids.iter().copied().collect();
                for fetched in pages {
                    match fetched {
                        Fetch::Page(page) => record(&mut observed, &requested, page),
                        Fetch::Retry(kind) => *observed.errors.entry(kind).or_default() += 1,
                        Fetch::Fatal(reason) => observed.aborted = Some(reason),
                    }
                }
            }
            if observed.aborted.is_some() {
                break;
            }
            if !incomplete(expected, &observed, per_trigger as usize).is_empty() {
                tokio::time::sleep(POLL_INTERVAL.min(timeout.saturating_sub(started.elapsed()))).await;
            }
        }
        observed.waited = started.elapsed();
        observed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_fit_one_page() {
        assert_eq!(ids_per_request(1), 100);
        assert_eq!(ids_per_request(10), 100);
        assert_eq!(ids_per_request(11), 90);
        assert_eq!(ids_per_request(1000), 1);
    }

    #[test]
    fn query_repeats_transaction_ids() {
        assert_eq!(
            listing_query(&["lg-a-1", "lg-a-2"], 0),
            "channel=in_app&transactionId=lg-a-1&transactionId=lg-a-2&page=0&limit=1000"
        );
        assert_eq!(listing_query(&["a b&c"], 2), "channel=in_app&transactionId=a+b%26c&page=2&limit=1000");
    }

    #[test]
    fn timestamps() {
        let at = parse_timestamp("2026-11-21T10:00:00.123Z").unwrap();
        assert_eq!(at.timestamp_millis(), 1_795_255_200_123);
        assert_eq!(parse_timestamp("2026-11-21T11:00:00.123+01:00").unwrap(), at);
        assert!(parse_timestamp("2026-11-21 10:00").is_err());
    }

    #[test]
    fn records_matching_rows_and_finds_incomplete_triggers() {
        let page: MessagePage = serde_json::from_value(serde_json::json!({
            "data": [
                {"_id": "m1", "transactionId": "t1", "createdAt": "2026-11-21T10:00:00.000Z", "channel": "in_app"},
                {"_id": "m1", "transactionId": "t1", "createdAt": "2026-11-21T10:00:00.000Z", "channel": "in_app"},
                {"_id": "m2", "transactionId": "t2", "createdAt": "2026-11-21T10:00:00.001Z"},
                {"_id": "m3", "transactionId": "other", "createdAt": "2026-11-21T10:00:00.001Z"},
                {"_id": "m4", "transactionId": "t2", "createdAt": "yesterday"}
            ],
            "hasMore": false, "page": 0, "pageSize": 1000, "totalCount": 5
        }))
        .unwrap();
        let mut observed = Observed::default();
        record(&mut observed, &HashSet::from(["t1", "t2", "t3"]), page);
        assert_eq!(observed.messages["t1"].len(), 1);
        assert_eq!(observed.messages["t2"].len(), 1);
        assert_eq!(observed.errors["row not matching the filter"], 1);
        assert_eq!(observed.errors["unparsable createdAt"], 1);

        let expected: Vec<String> = ["t1", "t2", "t3"].map(String::from).to_vec();
        assert_eq!(incomplete(&expected, &observed, 1), ["t3"]);
        assert_eq!(incomplete(&expected, &observed, 2), ["t1", "t2", "t3"]);
    }
}
