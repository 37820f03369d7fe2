//! A tool behind a compile-time gate given to `#[tool]`: the struct and its
//! generated items exist under the gate, a record of its names under the
//! negated gate.

use registry_core::tool;

/// Fetch a URL.
#[tool(
    name = "web_fetch",
    aliases = ["fetch"],
    cfg(all(feature = "web", any(debug_assertions, feature = "release_web"))),
    read_only = true,
    concurrency_safe = true,
    max_result_chars = unbounded
)]
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
