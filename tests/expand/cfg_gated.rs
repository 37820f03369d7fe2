//! A tool behind a compile-time gate written after `#[tool]`: the gate is
//! repeated on the generated items so they vanish with the struct.

use registry_core::tool;

/// Fetch a URL.
#[tool(name = "web_fetch", read_only = true, concurrency_safe = true, max_result_chars = unbounded)]
#[cfg(feature = "web")]
#[cfg_attr(not(debug_assertions), cfg(feature = "release_web"))]
pub struct WebFetch;

/// The URL to fetch.
#[cfg(feature = "web")]
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct WebFetchInput {
    pub url: String,
}

#[cfg(feature = "web")]
impl registry_core::Tool for WebFetch {
    type Input = WebFetchInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: WebFetchInput, _cx: &registry_core::ToolContext) -> Result<String, Self::Error> {
        Ok(input.url)
    }
}

fn main() {}
