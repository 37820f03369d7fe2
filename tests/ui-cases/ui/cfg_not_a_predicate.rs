use registry_core::{tool, Tool, ToolContext};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Url {
    url: String,
}

/// Fetch a URL.
#[tool(name = "web_fetch", cfg = "feature = web")]
struct WebFetch;

/// Fetch a page.
#[tool(name = "page_fetch", cfg())]
struct PageFetch;

impl Tool for WebFetch {
    type Input = Url;
    type Output = String;
    type Error = std::convert::Infallible;
    async fn call(&self, input: Url, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input.url)
    }
}

impl Tool for PageFetch {
    type Input = Url;
    type Output = String;
    type Error = std::convert::Infallible;
    async fn call(&self, input: Url, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input.url)
    }
}

fn main() {}
