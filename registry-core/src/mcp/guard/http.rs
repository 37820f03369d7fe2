//! The guard on the HTTP transport: rmcp's HTTP client trait
//! (`StreamableHttpClient`) over reqwest, reading each answer to a POST
//! itself, so that every JSON body and SSE event passes the checks the
//! line guard runs (`Message`, `sse`) before rmcp parses it, and a bad
//! answer fails its request at once, with why, instead of being dropped
//! by rmcp (leaving the request to its timeout) or ending the stream.
//!
//! Only a POST's successful answer is read differently from rmcp's own
//! reqwest client; its failures (HTTP statuses, challenges, JSON-RPC
//! error bodies) are reported as that client reports them, with the same
//! error type, so `connect` tells them apart the same way. Standalone
//! streams (GET) and session deletion go through rmcp's client, their
//! events through the guard.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use ::http::header::{ACCEPT, CONTENT_TYPE, RETRY_AFTER, WWW_AUTHENTICATE};
use ::http::{HeaderName, HeaderValue, StatusCode};
use futures_util::stream::BoxStream;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, ErrorData, ServerJsonRpcMessage};
use rmcp::transport::common::http_header::{
    EVENT_STREAM_MIME_TYPE, HEADER_SESSION_ID, JSON_MIME_TYPE,
};
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, HttpStatusError, InsufficientScopeError, SseError, StreamableHttpClient,
    StreamableHttpError, StreamableHttpPostResponse, StreamableHttpResponseLimits,
};
use sse_stream::Sse;

use super::sse::{bounded_events, guarded_events};
use super::{InFlight, Message, TaskTools, Verdict};

type HttpError = StreamableHttpError<reqwest::Error>;

/// The most redirects followed for one request (rmcp's default client's).
const MAX_REDIRECTS: usize = 10;

/// rmcp's HTTP client trait with the guard in front; see the module.
#[derive(Clone)]
pub(crate) struct GuardedHttp {
    http: reqwest::Client,
    in_flight: InFlight,
    tasks: TaskTools,
}

impl GuardedHttp {
    /// A client for one connection, noting task tools in `tasks`; an
    /// error only when the HTTP client cannot be built (TLS). Built
    /// as rmcp builds its default client: no idle connections kept (a
    /// reused one stalls on delayed ACKs), and only same-origin 307 and
    /// 308 redirects followed (the others lose the body or leak the
    /// session to another host).
    pub(crate) fn new(tasks: TaskTools) -> Result<Self, reqwest::Error> {
        let redirects = reqwest::redirect::Policy::custom(|attempt| {
            let keeps_body = matches!(
                attempt.status(),
                StatusCode::TEMPORARY_REDIRECT | StatusCode::PERMANENT_REDIRECT
            );
            let same_origin = attempt
                .previous()
                .first()
                .is_some_and(|first| first.origin() == attempt.url().origin());
            if !keeps_body || !same_origin {
                attempt.stop()
            } else if attempt.previous().len() > MAX_REDIRECTS {
                attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
            } else {
                attempt.follow()
            }
        });
        // Fails only where TLS cannot start: then the connection fails,
        // saying so (rmcp's own client panics there).
        let http = reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            .redirect(redirects)
            .build()?;
        Ok(GuardedHttp {
            http,
            in_flight: InFlight::default(),
            tasks,
        })
    }

    /// Reads a successful answer to a POST through the guard.
    async fn answered(
        &self,
        response: reqwest::Response,
        posted: Option<Vec<u8>>,
        session: Option<String>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let content_type = response.headers().get(CONTENT_TYPE).cloned();
        let is = |mime: &str| {
            content_type
                .as_ref()
                .is_some_and(|ct| media_type_is(ct, mime))
        };
        if is(EVENT_STREAM_MIME_TYPE) {
            let events = bounded_events(response);
            let events = guarded_events(events, self.in_flight.clone(), self.tasks.clone(), posted);
            return Ok(StreamableHttpPostResponse::Sse(events, session));
        }
        let Some(expected) = posted else {
            // A notification or an answer of ours awaits nothing.
            return Ok(StreamableHttpPostResponse::Accepted);
        };
        if !is(JSON_MIME_TYPE) {
            self.in_flight.answered(&expected);
            let content_type = content_type.map(|ct| String::from_utf8_lossy(ct.as_bytes()).into());
            return Err(StreamableHttpError::UnexpectedContentType(content_type));
        }
        let mut message = Message::keeping();
        let mut response = response;
        let limit = limits.max_json_response_size.min(super::MAX_FRAME_BYTES);
        let mut read = 0usize;
        while !message.refused() {
            let Some(chunk) = response.chunk().await.inspect_err(|_| {
                self.in_flight.answered(&expected);
            })?
            else {
                break;
            };
            read = read.saturating_add(chunk.len());
            message.feed(&chunk);
            if read > limit && !message.refused() {
                // A limit set below the guard's: rmcp's error for it.
                self.in_flight.answered(&expected);
                return Err(StreamableHttpError::ResponseBodyTooLarge { max_size: limit });
            }
        }
        drop(response);
        let frame = message.take_frame();
        let verdict = message.verdict(&frame, &self.in_flight, &self.tasks, Some(&expected));
        let answer = match verdict {
            Verdict::Pass => serde_json::from_slice(&frame)?,
            Verdict::Refuse { error, .. } => serde_json::from_slice(&error)?,
            // One body, one answer: a stray or a request of the server's
            // leaves the POSTed request none, so it fails now.
            Verdict::Stray { id } => {
                self.in_flight.answered(&expected);
                refusal(
                    &expected,
                    &format!(
                        "it answers a request this client never sent (id {})",
                        String::from_utf8_lossy(&id)
                    ),
                )?
            }
            Verdict::Drop => {
                self.in_flight.answered(&expected);
                refusal(&expected, "it answers no request")?
            }
        };
        Ok(StreamableHttpPostResponse::Json(answer, session))
    }
}

/// A JSON-RPC error answering `id` (raw JSON text), saying `why`.
fn refusal(id: &[u8], why: &str) -> Result<ServerJsonRpcMessage, serde_json::Error> {
    let mut frame = super::error_frame(id, why);
    frame.pop();
    serde_json::from_slice(&frame)
}

/// Whether a `Content-Type` is `mime`, whatever its parameters.
fn media_type_is(value: &HeaderValue, mime: &str) -> bool {
    value
        .as_bytes()
        .split(|&b| b == b';')
        .next()
        .is_some_and(|essence| essence.trim_ascii().eq_ignore_ascii_case(mime.as_bytes()))
}

/// The raw JSON text of the id of a request `message` is.
fn request_id(message: &ClientJsonRpcMessage) -> Option<Vec<u8>> {
    match message {
        ClientJsonRpcMessage::Request(request) => serde_json::to_vec(&request.id).ok(),
        _ => None,
    }
}

/// A POST's failure, as rmcp's reqwest client reports it: a challenge,
/// an expired session, a status, or a JSON-RPC error in the body.
async fn failed(
    response: reqwest::Response,
    message: &ClientJsonRpcMessage,
    with_session: bool,
    limits: StreamableHttpResponseLimits,
) -> Result<StreamableHttpPostResponse, HttpError> {
    let status = response.status();
    let header = |name| {
        response
            .headers()
            .get(name)
            .and_then(|value: &HeaderValue| value.to_str().ok())
            .map(str::to_owned)
    };
    if let Some(challenge) = header(WWW_AUTHENTICATE) {
        match status {
            StatusCode::UNAUTHORIZED => {
                return Err(StreamableHttpError::AuthRequired(AuthRequiredError::new(
                    challenge,
                )));
            }
            StatusCode::FORBIDDEN => {
                return Err(StreamableHttpError::InsufficientScope(
                    InsufficientScopeError::new(challenge, None),
                ));
            }
            _ => {}
        }
    }
    if status == StatusCode::NOT_FOUND && with_session {
        return Err(StreamableHttpError::SessionExpired);
    }
    let is_json = response
        .headers()
        .get(CONTENT_TYPE)
        .is_some_and(|ct| media_type_is(ct, JSON_MIME_TYPE));
    // A rate limit, and a server error without a JSON body, are their
    // status alone; a JSON body may hold the server's JSON-RPC error.
    let as_status = (status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error())
        .then(|| HttpStatusError::new(status.as_u16(), header(RETRY_AFTER)));
    let as_status = match as_status {
        Some(err) if status == StatusCode::TOO_MANY_REQUESTS || !is_json => {
            return Err(err.into());
        }
        other => other,
    };
    let auth = matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN);
    let limit = if is_json && !auth {
        limits.max_json_response_size
    } else {
        limits.max_error_response_size
    };
    let body = read_prefix(response, limit).await;
    let body = String::from_utf8_lossy(&body);
    let error = serde_json::from_str::<ServerJsonRpcMessage>(&body)
        .ok()
        .filter(|message| matches!(message, ServerJsonRpcMessage::Error(_)));
    // A 2026 server that does not know `server/discover` answers 4xx:
    // rmcp then falls back to `initialize`, given an error for its id.
    if let ClientJsonRpcMessage::Request(request) = message
        && matches!(request.request, ClientRequest::DiscoverRequest(_))
        && !with_session
        && status.is_client_error()
        && !auth
    {
        let error = match error {
            Some(ServerJsonRpcMessage::Error(error)) => error.error,
            _ => ErrorData::invalid_request(
                format!("server/discover rejected with HTTP {status}: {body}"),
                None,
            ),
        };
        return Ok(StreamableHttpPostResponse::Json(
            ServerJsonRpcMessage::error(error, Some(request.id.clone())),
            None,
        ));
    }
    if let (Some(error), false) = (error, auth) {
        return Ok(StreamableHttpPostResponse::Json(error, None));
    }
    if let Some(as_status) = as_status {
        return Err(as_status.into());
    }
    let mut end = body.len().min(limits.max_error_response_size);
    while !body.is_char_boundary(end) {
        end -= 1;
    }
    Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(
        format!("HTTP {status}: {}", &body[..end]),
    )))
}

/// Up to `limit` bytes of a body (what could be read of it).
async fn read_prefix(mut response: reqwest::Response, limit: usize) -> Vec<u8> {
    let mut body = Vec::new();
    while body.len() < limit {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                body.extend_from_slice(&chunk[..chunk.len().min(limit - body.len())])
            }
            _ => break,
        }
    }
    body
}

impl StreamableHttpClient for GuardedHttp {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let limits = StreamableHttpResponseLimits::default();
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            limits,
        )
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let body = serde_json::to_vec(&message)?;
        let mut request = self
            .http
            .post(uri.as_ref())
            .header(
                ACCEPT,
                format!("{EVENT_STREAM_MIME_TYPE}, {JSON_MIME_TYPE}"),
            )
            .header(CONTENT_TYPE, JSON_MIME_TYPE);
        if let Some(token) = auth_header {
            request = request.bearer_auth(token);
        }
        for (name, value) in custom_headers {
            request = request.header(name, value);
        }
        let with_session = session_id.is_some();
        if let Some(session) = session_id {
            request = request.header(HEADER_SESSION_ID, session.as_ref());
        }
        let posted = request_id(&message);
        if let Some(id) = &posted {
            self.in_flight.sent(id);
        }
        let forget = || {
            if let Some(id) = &posted {
                self.in_flight.answered(id);
            }
        };
        let response = request.body(body).send().await.inspect_err(|_| forget())?;
        let status = response.status();
        if matches!(status, StatusCode::ACCEPTED | StatusCode::NO_CONTENT) {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if !status.is_success() {
            forget();
            return failed(response, &message, with_session, limits).await;
        }
        let session = response
            .headers()
            .get(HEADER_SESSION_ID)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        if posted.is_none() && response.content_length() == Some(0) {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        self.answered(response, posted, session, limits).await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), HttpError> {
        self.http
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, HttpError> {
        let events = self
            .http
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await?;
        Ok(guarded_events(
            events,
            self.in_flight.clone(),
            self.tasks.clone(),
            None,
        ))
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, HttpError> {
        let events = self
            .http
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await?;
        Ok(guarded_events(
            events,
            self.in_flight.clone(),
            self.tasks.clone(),
            None,
        ))
    }
}
