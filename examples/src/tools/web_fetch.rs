//! `web_fetch`: describe the HTTP request for a URL (compiled with the
//! `web` feature only).
//!
//! # The compile-time gate
//!
//! The module itself is always compiled. The tool's gate is written inside
//! the attribute, `#[tool(cfg(feature = "web"), ...)]`, not as a `#[cfg]` on
//! the struct: rustc removes a `#[cfg]`-ed item before any attribute macro
//! sees it, so the catalog would never learn the tool exists. Given the gate,
//! `#[tool]` puts the struct and its generated code under
//! `#[cfg(feature = "web")]` and, in builds without the feature, leaves a
//! record of the tool's names: the duplicate check still covers
//! `web_fetch`, the catalog lock keeps its entry, and
//! `BaseTools::explain_missing("web_fetch")` answers "compiled out:
//! `cfg(feature = "web")`". The other items here carry the `#[cfg]`
//! themselves. Building with `--no-default-features` checks all of it.
//!
//! # Posture
//!
//! - `read_only = true`: a GET request changes nothing locally; this build
//!   does not even send it.
//! - `concurrency_safe = true`: fetches are independent of each other and
//!   of the file tools.
//! - `defer`: fetching is rare in a coding session, so the schema is not
//!   sent every turn; `search_hint` lets tool search find it ("download",
//!   "page", "http").
//! - Permission: [`PermissionDecision::Delegate`]: whether the agent may
//!   reach the network is the general policy's decision, not this tool's.
//!
//! # No network
//!
//! This workspace has no HTTP client, so the tool validates the URL and
//! returns the request it would make, saying that nothing was sent. The
//! validation is the real part: only `http` and `https` URLs with a host
//! are accepted, and `file:`, `ftp:` or credentials in the URL are refused
//! with a clear error. A URL longer than [`MAX_URL_CHARS`] is refused too,
//! and an error quotes the URL and its scheme through
//! [`cap_error_text`](registry_core::text::cap_error_text): both come from the
//! model and may be megabytes long, and the error goes back to it.

use registry_core::tool;
#[cfg(feature = "web")]
use registry_core::{PermissionDecision, Tool, ToolContext};
#[cfg(feature = "web")]
use schemars::JsonSchema;
#[cfg(feature = "web")]
use serde::Deserialize;

/// Fetch a web page or file over HTTP(S) and return what the server sent.
///
/// Arguments:
/// - `url`: the full `http://` or `https://` URL.
///
/// In this build there is no network access: the result describes the GET
/// request that would be sent (method, URL and headers) and says that no
/// request was made. Other schemes (`file:`, `ftp:`) and URLs with
/// credentials are refused.
#[tool(
    name = "web_fetch",
    cfg(feature = "web"),
    concurrency_safe = true,
    read_only = true,
    defer,
    search_hint = "http url download page",
    // A page is someone else's text, and the URL the model writes reaches
    // the world (a query string can carry data out).
    rule_of_two = ["untrusted_input", "external_effect"],
)]
#[derive(Debug, Clone, Copy, Default)]
pub struct WebFetch;

/// The arguments of `web_fetch`.
#[cfg(feature = "web")]
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebFetchInput {
    /// The full URL to fetch; must start with `http://` or `https://`.
    pub url: String,
}

/// The longest URL accepted, in characters: what common servers and
/// proxies accept (8 KiB); a longer one is a mistake or an attempt to make
/// the result, which repeats the URL, expensive.
#[cfg(feature = "web")]
pub const MAX_URL_CHARS: usize = 8 * 1024;

/// Why `web_fetch` refused a URL. The URL and scheme quoted here are capped
/// with [`cap_error_text`](registry_core::text::cap_error_text).
#[cfg(feature = "web")]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WebFetchError {
    /// The URL's scheme is not `http` or `https`.
    #[error(
        "unsupported scheme `{scheme}` in `url` `{url}`: only http and https URLs can be fetched"
    )]
    UnsupportedScheme {
        /// The URL as given (capped).
        url: String,
        /// Its scheme, lowercased (capped).
        scheme: String,
    },
    /// The URL is malformed.
    #[error("invalid `url` `{url}`: {reason}")]
    InvalidUrl {
        /// The URL as given (capped).
        url: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The URL is longer than [`MAX_URL_CHARS`].
    #[error("`url` `{url}` is {len} characters long; the limit is {max}")]
    TooLong {
        /// The URL as given (capped).
        url: String,
        /// Its length in characters.
        len: usize,
        /// The limit.
        max: usize,
    },
}

/// The parts of a URL the request needs.
#[cfg(feature = "web")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedUrl {
    /// `http` or `https`, lowercased.
    pub scheme: String,
    /// The host, with the port if one was given.
    pub authority: String,
}

/// Checks that `url` is an absolute `http` or `https` URL with a host, no
/// credentials and no whitespace.
///
/// ```
/// use registry_examples::tools::web_fetch::parse_url;
///
/// assert_eq!(parse_url("https://example.com/a?b").unwrap().authority, "example.com");
/// assert!(parse_url("file:///etc/passwd").is_err());
/// ```
#[cfg(feature = "web")]
pub fn parse_url(url: &str) -> Result<ParsedUrl, WebFetchError> {
    let invalid = |reason| WebFetchError::InvalidUrl {
        url: shown(url),
        reason,
    };
    let len = url.chars().count();
    if len > MAX_URL_CHARS {
        return Err(WebFetchError::TooLong {
            url: shown(url),
            len,
            max: MAX_URL_CHARS,
        });
    }
    if url.is_empty() {
        return Err(invalid("it is empty"));
    }
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(invalid("it contains whitespace or control characters"));
    }
    let Some((scheme, rest)) = url.split_once(':') else {
        return Err(invalid(
            "it has no scheme; write the full URL, e.g. https://example.com/",
        ));
    };
    let valid_scheme = scheme
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    if !valid_scheme {
        return Err(invalid(
            "it has no scheme; write the full URL, e.g. https://example.com/",
        ));
    }
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return Err(WebFetchError::UnsupportedScheme {
            url: shown(url),
            scheme: shown(&scheme),
        });
    }
    let Some(rest) = rest.strip_prefix("//") else {
        return Err(invalid(
            "`//` must follow the scheme, e.g. https://example.com/",
        ));
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if authority.contains('@') {
        return Err(invalid("credentials in URLs are not allowed"));
    }
    let (host, port) = match authority.strip_prefix('[') {
        // An IPv6 literal: `[::1]:8080`.
        Some(v6) => match v6.split_once(']') {
            Some((host, after)) => (host, after.strip_prefix(':')),
            None => return Err(invalid("an IPv6 host is missing its closing `]`")),
        },
        None => match authority.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        },
    };
    if host.is_empty() {
        return Err(invalid("it has no host"));
    }
    if port.is_some_and(|p| p.is_empty() || !p.chars().all(|c| c.is_ascii_digit())) {
        return Err(invalid("the port is not a number"));
    }
    Ok(ParsedUrl {
        scheme,
        authority: authority.to_owned(),
    })
}

/// `text` as an error may quote it: capped, since the model wrote it.
#[cfg(feature = "web")]
fn shown(text: &str) -> String {
    registry_core::text::cap_error_text(text).into_owned()
}

#[cfg(feature = "web")]
impl Tool for WebFetch {
    type Input = WebFetchInput;
    type Output = String;
    type Error = WebFetchError;

    async fn call(&self, input: WebFetchInput, _cx: &ToolContext) -> Result<String, WebFetchError> {
        let parsed = parse_url(&input.url)?;
        Ok(format!(
            "GET {url}\n\
             Headers:\n  \
             Host: {host}\n  \
             User-Agent: registry-examples/{version}\n  \
             Accept: text/html, text/plain;q=0.9, */*;q=0.8\n\
             No request was sent: this build has no network access or HTTP client.\n",
            url = input.url,
            host = parsed.authority,
            version = env!("CARGO_PKG_VERSION"),
        ))
    }

    fn check_permissions(&self, _input: &WebFetchInput, _cx: &ToolContext) -> PermissionDecision {
        PermissionDecision::Delegate
    }
}

#[cfg(all(test, feature = "web"))]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        for good in [
            "http://example.com",
            "https://example.com/",
            "HTTPS://Example.com:8443/a/b?c=d#e",
            "http://[::1]:8080/x",
            "http://localhost",
        ] {
            assert!(parse_url(good).is_ok(), "{good}");
        }
        for (bad, scheme) in [
            ("ftp://example.com", "ftp"),
            ("file:///etc/passwd", "file"),
            ("javascript:alert(1)", "javascript"),
        ] {
            assert_eq!(
                parse_url(bad),
                Err(WebFetchError::UnsupportedScheme {
                    url: bad.to_owned(),
                    scheme: scheme.to_owned()
                })
            );
        }
        for bad in [
            "",
            "example.com",
            "https:example.com",
            "https://",
            "https:///path",
            "https://user:pw@example.com/",
            "https://exa mple.com",
            "https://example.com:port/",
            "https://example.com:/",
            "http://[::1",
            "://x",
        ] {
            assert!(
                matches!(parse_url(bad), Err(WebFetchError::InvalidUrl { .. })),
                "{bad}: {:?}",
                parse_url(bad)
            );
        }
    }

    /// Everything an error quotes is model-written and capped, on every
    /// path out of `parse_url`: a long scheme, a long unsupported URL, a
    /// long host, a malformed remainder, and a URL over the length limit.
    #[test]
    fn errors_quote_capped_text() {
        let max = registry_core::text::MAX_ERROR_MESSAGE_CHARS;
        // Under the URL limit, over the quotation cap.
        let long = "x".repeat(MAX_URL_CHARS / 2);
        let cases = [
            format!("{long}://example.com/"),
            format!("ftp://example.com/{long}"),
            format!("https:{long}"),
            format!("https://example.com/{long} "),
            format!("https://{long}@example.com/"),
            format!("https://example.com:{long}/"),
            format!("https://{}", "x".repeat(10_000_000)),
        ];
        for url in &cases {
            let err = parse_url(url).unwrap_err();
            let text = err.to_string();
            assert!(text.chars().count() <= max, "{} chars", text.len());
            assert!(text.contains("characters cut"), "{text}");
        }
        // Just over the limit is refused with the numbers; at the limit passes.
        let at_limit = format!("https://e.com/{}", "a".repeat(MAX_URL_CHARS - 14));
        assert_eq!(at_limit.chars().count(), MAX_URL_CHARS);
        assert!(parse_url(&at_limit).is_ok());
        let over = format!("{at_limit}a");
        assert!(matches!(
            parse_url(&over),
            Err(WebFetchError::TooLong { len, max, .. }) if len == MAX_URL_CHARS + 1 && max == MAX_URL_CHARS
        ));
    }
}
