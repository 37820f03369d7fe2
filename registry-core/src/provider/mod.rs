//! From a model's response to the next request, for each wire format a
//! [`Provider`] names: Anthropic Messages, OpenAI Chat Completions and
//! OpenAI Responses.
//!
//! Every provider takes the same three steps:
//!
//! - [`calls_from(&response)`](Provider::calls_from): the model's tool
//!   calls in order, as [`Calls`]. A call whose arguments cannot be read
//!   (OpenAI sends them as a JSON *string* a model can get wrong) becomes
//!   that call's error result naming the problem: never a panic, never a
//!   dropped call. Blocks the client does not run (the provider's own
//!   server tools) are left alone and listed in [`Calls::skipped`].
//!   Streamed responses are put together first by a [`Stream`]
//!   ([`Provider::stream`]).
//! - [`results_to(&results)`](Provider::results_to): the next request's
//!   content, in call order, ids echoed exactly, errors marked as errors,
//!   images and documents in the provider's own blocks (or, where a format
//!   cannot hold one, said so), and `tool_search` answered the way the
//!   provider loads tools.
//! - [`respond(&executor, &response)`](Provider::respond): both, with the
//!   turn run through the executor in between; the result is a
//!   [`NextRequest`].
//!
//! ```
//! use registry_core::{Flags, ToolBuilder, ToolOutput, ToolRegistry, catalog::BaseTools};
//! use registry_core::provider::Provider;
//! use serde_json::json;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let echo = ToolBuilder::new("echo", "Echo.")
//!     .read_only(true)
//!     .build(|args, _| async move { Ok(ToolOutput::text(args["text"].to_string())) })?;
//! let registry = ToolRegistry::new(BaseTools::linked(&Flags::new())?);
//! registry.plugins().register("demo", echo)?.detach();
//! let executor = registry.executor().build();
//!
//! let response = json!({
//!     "role": "assistant",
//!     "content": [{ "type": "tool_use", "id": "toolu_1", "name": "echo", "input": { "text": "hi" } }],
//! });
//! let next = Provider::Anthropic.respond(&executor, &response).await?;
//! assert_eq!(next.results[0]["content"][0]["type"], "tool_result");
//! assert_eq!(next.results[0]["content"][0]["tool_use_id"], "toolu_1");
//! # Ok(())
//! # }
//! ```
//!
//! Owns: reading each format's responses and stream events, and writing
//! its results, one private module per format (`anthropic`,
//! `openai_chat`, `openai_responses`); [`Provider`] is the one surface
//! over them.
//!
//! Never does: choose a model, hold a conversation, or call a provider's
//! API; it reads what a provider sent and writes what to send next.

mod anthropic;
mod calls;
mod openai_chat;
mod openai_responses;
mod wire;

pub use calls::{Calls, Skipped};

use serde_json::Value;

use crate::execute::{Executor, ToolCallResult};
use crate::render::ProviderFormat;

/// A provider's wire format for tool calls and their results.
///
/// The same provider's tools are rendered with the
/// [`ProviderFormat`] it converts [`into`](Into::into).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Provider {
    /// Anthropic Messages: `tool_use` blocks in, one user message of
    /// `tool_result` blocks out. A result's blocks become `text`, `image`
    /// (JPEG, PNG, GIF and WebP) and `document` blocks (a PDF, a text
    /// resource); what the API cannot hold is named in a text block. A
    /// `tool_search` result is its `tool_reference` blocks, which the API
    /// expands into the deferred tools' definitions. `server_tool_use` and
    /// the results of the provider's own tools are left alone.
    Anthropic,
    /// OpenAI Chat Completions: `tool_calls` in, `role: "tool"` messages
    /// out. A `tool` message holds text only, so a result's images and
    /// PDFs follow in one `user` message, and each tool message says which
    /// of its attachments follow. The format has no error flag: an error
    /// result's text starts with `Error: `. Chat has no deferred loading:
    /// the session render appends a tool once it is discovered.
    OpenAiChat,
    /// OpenAI Responses: `function_call` and client `tool_search_call`
    /// items in, `function_call_output` and `tool_search_output` items
    /// out. A result with images or files is a list of `input_text`,
    /// `input_image` and `input_file` parts; an error result's text starts
    /// with `Error: `. A client `tool_search_call` runs the registry's
    /// `tool_search`, and its answer lists the found tools' definitions,
    /// so the request's `tools` array never changes (see
    /// [`SessionTools::render_openai_responses`](crate::session::SessionTools::render_openai_responses)).
    /// A `function_call` with a `namespace` (an MCP server, in the session
    /// render) runs `mcp__<namespace>__<name>`, and found MCP tools are
    /// loaded into their namespaces.
    OpenAiResponses,
}

impl Provider {
    /// The tool calls of a response: Anthropic's `Message` (or an
    /// assistant message param: only `content` is read), Chat's
    /// `ChatCompletion` (its first choice) or an assistant message,
    /// Responses' `Response` (its `output`) or a list of output items.
    pub fn calls_from(self, response: &Value) -> Result<Calls, ProviderError> {
        match self {
            Provider::Anthropic => anthropic::calls_from(response),
            Provider::OpenAiChat => openai_chat::calls_from(response),
            Provider::OpenAiResponses => openai_responses::calls_from(response),
        }
    }

    /// The next request's items answering `results`, in order: Anthropic's
    /// one user message of `tool_result` blocks; Chat's `tool` messages,
    /// then one `user` message with the results' images and files, if
    /// any; Responses' output items, one per result (a `tool_search`
    /// result as a `tool_search_output`: [`respond`](Self::respond)
    /// decides by how each call came instead).
    pub fn results_to(self, results: &[ToolCallResult]) -> Vec<Value> {
        match self {
            Provider::Anthropic => vec![anthropic::results_to(results)],
            Provider::OpenAiChat => openai_chat::results_to(results),
            Provider::OpenAiResponses => openai_responses::results_to(results),
        }
    }

    /// Reads the calls, runs them as one turn, and returns the model's
    /// turn to echo and the results (none when the model made no call).
    ///
    /// The echo is Anthropic's assistant message, Chat's assistant
    /// message, or Responses' calls, reasoning and messages of `output`,
    /// in order (reasoning models refuse a call echoed without its
    /// reasoning item).
    pub async fn respond(
        self,
        executor: &Executor,
        response: &Value,
    ) -> Result<NextRequest, ProviderError> {
        match self {
            Provider::Anthropic => anthropic::respond(executor, response).await,
            Provider::OpenAiChat => openai_chat::respond(executor, response).await,
            Provider::OpenAiResponses => openai_responses::respond(executor, response).await,
        }
    }

    /// An empty [`Stream`] of this provider's events.
    pub fn stream(self) -> Stream {
        let state = match self {
            Provider::Anthropic => StreamState::Anthropic(anthropic::Stream::default()),
            Provider::OpenAiChat => StreamState::OpenAiChat(openai_chat::Stream::default()),
            Provider::OpenAiResponses => {
                StreamState::OpenAiResponses(openai_responses::Stream::default())
            }
        };
        Stream { state }
    }
}

impl From<Provider> for ProviderFormat {
    fn from(provider: Provider) -> Self {
        match provider {
            Provider::Anthropic => ProviderFormat::Anthropic,
            Provider::OpenAiChat => ProviderFormat::OpenAiChat,
            Provider::OpenAiResponses => ProviderFormat::OpenAiResponses,
        }
    }
}

/// Puts a streamed response together from its events, in the order they
/// came; [`finish`](Self::finish) gives the response
/// [`Provider::calls_from`] and [`Provider::respond`] read. Made by
/// [`Provider::stream`].
///
/// - Anthropic: `message_start`, `content_block_start`,
///   `content_block_delta`, `content_block_stop`, `message_delta`,
///   `message_stop`. A tool call's input arrives as pieces of JSON text,
///   parsed at the block's end; text that does not parse is kept as it
///   came, so that call becomes an error result. Thinking blocks come back
///   exactly as they were streamed.
/// - OpenAI Chat: `ChatCompletionChunk`s; each tool call's id and name
///   from its first fragment, its `arguments` text from every fragment
///   with its `index` (servers that send every parallel call at index 0,
///   or no index at all, are followed by the calls' ids).
/// - OpenAI Responses: `response.output_item.added` and `.done` set an
///   item, `response.function_call_arguments.delta` and `.done` build its
///   arguments, and `response.completed` gives the whole response.
///
/// An event that breaks the stream's order (a block or item index past
/// the next one) is an error, never an allocation.
#[derive(Debug, Clone)]
pub struct Stream {
    state: StreamState,
}

#[derive(Debug, Clone)]
enum StreamState {
    Anthropic(anthropic::Stream),
    OpenAiChat(openai_chat::Stream),
    OpenAiResponses(openai_responses::Stream),
}

impl Stream {
    /// Takes one event (the JSON of an SSE `data:` line).
    pub fn push(&mut self, event: &Value) -> Result<(), ProviderError> {
        match &mut self.state {
            StreamState::Anthropic(stream) => stream.push(event),
            StreamState::OpenAiChat(stream) => stream.push(event),
            StreamState::OpenAiResponses(stream) => stream.push(event),
        }
    }

    /// The response as one value: Anthropic's `Message`, Chat's
    /// `ChatCompletion` (its first choice's message), or Responses'
    /// completed `Response` when the stream sent it, else the items put
    /// together.
    pub fn finish(self) -> Value {
        match self.state {
            StreamState::Anthropic(stream) => stream.finish(),
            StreamState::OpenAiChat(stream) => stream.finish(),
            StreamState::OpenAiResponses(stream) => stream.finish(),
        }
    }
}

/// What to send next: the model's own turn as the provider wants it
/// echoed, then the results.
#[derive(Debug, Clone, PartialEq)]
pub struct NextRequest {
    /// The response's turn, to append to the conversation as the
    /// provider expects (Anthropic's assistant message, Chat's assistant
    /// message, Responses' output items). Leave it out when the provider
    /// keeps the conversation (Responses' `previous_response_id`).
    pub echo: Vec<Value>,
    /// The results: one user message of `tool_result` blocks (Anthropic),
    /// `tool` messages and a user message with any attachments (Chat), or
    /// output items (Responses). Empty when the model made no call.
    pub results: Vec<Value>,
    /// What the response held that the client did not run.
    pub skipped: Vec<Skipped>,
    /// The provider's code execution container the response ran in
    /// (Anthropic's `container.id`), when it has one: programmatic tool
    /// calling needs the next request to name it (`"container"`), or
    /// the program waiting for these results is gone.
    pub container: Option<String>,
}

impl NextRequest {
    /// The echo, then the results: what to append to the conversation.
    pub fn into_items(self) -> Vec<Value> {
        let mut items = self.echo;
        items.extend(self.results);
        items
    }
}

/// A response that is not one of the format's responses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProviderError {
    /// The response does not have the format's shape.
    #[error("not {format} response: {why} (at {at})")]
    Malformed {
        /// The format expected.
        format: &'static str,
        /// Where in the response.
        at: String,
        /// What is wrong.
        why: String,
    },
}

impl ProviderError {
    fn malformed(format: &'static str, at: impl Into<String>, why: impl Into<String>) -> Self {
        ProviderError::Malformed {
            format,
            at: at.into(),
            why: why.into(),
        }
    }
}
