//! Failures a client's SDK can show. rmcp answers a failure of its own
//! (a session it cannot restore because the store is down, a session
//! worker gone) with a bare `500 Internal Server Error` whose text names
//! the cause; SDKs show the status and drop the text. Here every such
//! answer becomes a JSON-RPC error with the request's id and that text (a
//! resumed call's stream gets its call's error result), so the client's
//! error names the store.

use std::convert::Infallible;

use bytes::Bytes;
use http::{Method, StatusCode};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use rmcp::transport::StreamableHttpService;
use serde_json::{Value, json};

use crate::mcp::replicas::Sessions;
use crate::mcp::replicas::calls::{self, CallTag};
use crate::mcp::server::Connection;

type Response = http::Response<BoxBody<Bytes, Infallible>>;

/// The largest request body read: rmcp's own limit.
const MAX_BODY: usize = 4 * 1024 * 1024;

/// `request` served by `service`, with a `500` turned into an answer an
/// SDK shows (see the module docs).
pub(super) async fn handled(
    service: &StreamableHttpService<Connection, Sessions>,
    request: hyper::Request<Incoming>,
) -> Response {
    let (parts, body) = request.into_parts();
    match parts.method {
        Method::POST => {
            // Read whole (rmcp reads it whole too), so the request's id is
            // at hand if rmcp fails it.
            let bytes = match Limited::new(body, MAX_BODY).collect().await {
                Ok(collected) => collected.to_bytes(),
                Err(err) if err.is::<http_body_util::LengthLimitError>() => {
                    return plain(StatusCode::PAYLOAD_TOO_LARGE, &err.to_string());
                }
                // The client went away, or sent a broken body.
                Err(err) => return plain(StatusCode::BAD_REQUEST, &err.to_string()),
            };
            let request = hyper::Request::from_parts(parts, Full::new(bytes.clone()));
            let response = service.handle(request).await;
            if response.status() != StatusCode::INTERNAL_SERVER_ERROR {
                return response;
            }
            let why = reason(response).await;
            let id = serde_json::from_slice::<Value>(&bytes)
                .ok()
                .and_then(|message| message.get("id").cloned());
            json_rpc_error(id, &why)
        }
        Method::GET => {
            let resumed = parts
                .headers
                .get("last-event-id")
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned);
            let tag = resumed
                .as_deref()
                .map(calls::split_event_id)
                .and_then(|(base, tag)| Some((base.to_owned(), tag?)));
            if let Some((base, _)) = &tag
                && base.ends_with(&format!("#{}", crate::mcp::replicas::LOST))
            {
                // After the answer a replica gave for a lost request there
                // is nothing more: an error status ends the client's
                // retries (an empty stream would have it poll forever).
                return plain(
                    StatusCode::NOT_FOUND,
                    "this stream ended: its request was answered",
                );
            }
            let request = hyper::Request::from_parts(parts, body);
            let response = service.handle(request).await;
            if response.status() != StatusCode::INTERNAL_SERVER_ERROR {
                return response;
            }
            let why = reason(response).await;
            match tag {
                Some((base, tag)) => resumed_call_failed(&base, &tag, &why),
                None => {
                    let mut response = json_rpc_error(None, &why);
                    *response.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
                    response
                }
            }
        }
        _ => {
            service
                .handle(hyper::Request::from_parts(parts, body))
                .await
        }
    }
}

/// What rmcp's `500` says (`Encounter an error when <step>: <cause>`), as
/// a sentence.
async fn reason(response: Response) -> String {
    let text = match response.into_body().collect().await {
        Ok(body) => String::from_utf8_lossy(&body.to_bytes()).into_owned(),
        Err(never) => match never {},
    };
    match text
        .strip_prefix("Encounter an error when ")
        .and_then(|rest| rest.split_once(": "))
    {
        Some((step, cause)) => format!("the server could not {step}: {cause}"),
        None => format!("the server failed: {text}"),
    }
}

/// A JSON-RPC error answering `id` (`null` when the message had none).
/// A session that could not be restored or created ran nothing; a
/// failure after rmcp took the message (its session worker gone) cannot
/// say whether the request ran, and says so.
fn json_rpc_error(id: Option<Value>, why: &str) -> Response {
    // rmcp's steps before a message reaches its session (its own words).
    const BEFORE_RUNNING: [&str; 5] = [
        "check session",
        "restore session",
        "get session",
        "get service",
        "create session",
    ];
    let before_running = BEFORE_RUNNING
        .iter()
        .any(|step| why.contains(&format!("could not {step}")));
    let outcome = match before_running {
        true => "the request was not run and may be retried",
        false => "the request may or may not have run",
    };
    let body = json!({
        "jsonrpc": "2.0",
        "id": id.unwrap_or(Value::Null),
        "error": {
            "code": -32603,
            "message": format!("{why}; {outcome}"),
        },
    });
    let mut response = http::Response::new(Full::new(Bytes::from(body.to_string())).boxed());
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    response
}

/// A resumed stream of a call that rmcp could not serve: one event
/// answering the call, saying its stream is lost and it may have run.
fn resumed_call_failed(base: &str, tag: &CallTag, why: &str) -> Response {
    let Some(answer) = calls::unknown_answer(tag, &why) else {
        return json_rpc_error(None, why);
    };
    let stream = base.rsplit_once('#').map_or(base, |(stream, _)| stream);
    let data = serde_json::to_string(&answer).unwrap_or_default();
    let event = format!(
        "id: {stream}#{}{}\ndata: {data}\n\n",
        crate::mcp::replicas::LOST,
        tag.suffix()
    );
    let mut response = http::Response::new(Full::new(Bytes::from(event)).boxed());
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("text/event-stream"),
    );
    response
}

fn plain(status: StatusCode, text: &str) -> Response {
    let mut response = http::Response::new(Full::new(Bytes::from(format!("{text}\n"))).boxed());
    *response.status_mut() = status;
    response
}
