//! What a call hands back to the model: content blocks (text, images,
//! structured JSON, resources), their one text view, and whether the text
//! was cut.

use std::any::Any;
use std::sync::{Arc, OnceLock};

use crate::declare::blocks::{ContentBlock, Image, text_view_of};
use crate::declare::posture::ResultCap;

/// The result of a successful call, as the model will read it: a list of
/// [`ContentBlock`]s, most often one text block.
///
/// Text-only readers (logs, a provider format that cannot hold an image)
/// read [`as_str`](Self::as_str), the blocks' text view; the provider
/// adapters and the MCP server send the blocks themselves.
pub struct ToolOutput {
    blocks: Vec<ContentBlock>,
    /// The text view of several blocks, made on first use.
    view: OnceLock<String>,
    truncated: Option<Truncation>,
    /// The typed value the blocks were rendered from, for the crate's own
    /// readers: the provider adapters answer `tool_search` from its hits
    /// instead of parsing its text back. Dropped whenever the blocks
    /// change, so it never disagrees with them.
    source: Option<Source>,
}

/// A typed value a [`ToolOutput`]'s blocks were rendered from (see
/// [`ToolOutput::with_source`]).
#[derive(Clone)]
pub(crate) struct Source(Arc<dyn Any + Send + Sync>);

/// How much of an over-long result was kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Truncation {
    /// Characters kept.
    pub kept: usize,
    /// Characters the tool produced.
    pub total: usize,
}

impl ToolOutput {
    /// A text result.
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput::new([ContentBlock::Text(text.into())])
    }

    /// A result of the given blocks, in order.
    pub fn new(blocks: impl IntoIterator<Item = ContentBlock>) -> Self {
        ToolOutput {
            blocks: blocks.into_iter().collect(),
            view: OnceLock::new(),
            truncated: None,
            source: None,
        }
    }

    /// An image result.
    pub fn image(data: impl Into<Vec<u8>>, media_type: impl Into<String>) -> Self {
        ToolOutput::new([ContentBlock::Image(Image::new(data, media_type))])
    }

    /// A structured result: text-only readers see canonical pretty JSON.
    pub fn json(value: serde_json::Value) -> Self {
        ToolOutput::new([ContentBlock::Json(value)])
    }

    /// The same result with `block` appended.
    pub fn with(mut self, block: impl Into<ContentBlock>) -> Self {
        self.blocks.push(block.into());
        self.view = OnceLock::new();
        self.source = None;
        self
    }

    /// The same output, remembering the typed value its blocks were
    /// rendered from, for readers in this crate that want the value rather
    /// than its text ([`source`](Self::source)).
    pub(crate) fn with_source<T: Any + Send + Sync>(mut self, value: T) -> Self {
        self.source = Some(Source(Arc::new(value)));
        self
    }

    /// The typed value the blocks were rendered from, when it is a `T` and
    /// the blocks are still as rendered.
    pub(crate) fn source<T: Any>(&self) -> Option<&T> {
        self.source.as_ref()?.0.downcast_ref()
    }

    /// Consumes the output, returning its blocks and its source: for the
    /// executor's cap, which may rewrite the blocks and gives the source
    /// back ([`from_parts`](Self::from_parts)) only when it left them as
    /// they were.
    pub(crate) fn into_parts(self) -> (Vec<ContentBlock>, Option<Source>) {
        (self.blocks, self.source)
    }

    /// An output of `blocks` rendered from `source`.
    pub(crate) fn from_parts(blocks: Vec<ContentBlock>, source: Option<Source>) -> Self {
        ToolOutput {
            source,
            ..ToolOutput::new(blocks)
        }
    }

    /// The blocks, in order.
    pub fn blocks(&self) -> &[ContentBlock] {
        &self.blocks
    }

    /// Consumes the output, returning its blocks.
    pub fn into_blocks(self) -> Vec<ContentBlock> {
        self.blocks
    }

    /// The text the model reads when it can read only text, including the
    /// truncation notice if any: one text block as it is, several blocks'
    /// [text views](ContentBlock::text_view) one per line.
    pub fn as_str(&self) -> &str {
        match &self.blocks[..] {
            [ContentBlock::Text(text)] => text,
            [] => "",
            blocks => self.view.get_or_init(|| text_view_of(blocks).into_owned()),
        }
    }

    /// Consumes the output, returning its text view (see
    /// [`as_str`](Self::as_str)).
    pub fn into_string(mut self) -> String {
        if let [ContentBlock::Text(_)] = &self.blocks[..]
            && let Some(ContentBlock::Text(text)) = self.blocks.pop()
        {
            return text;
        }
        self.as_str().to_owned()
    }

    /// Set when the result was cut to the tool's cap.
    pub fn truncation(&self) -> Option<Truncation> {
        self.truncated
    }

    /// Cuts the text view so that it, the truncation notice included, has at
    /// most `cap` characters (cut on a character boundary, never inside
    /// one), so the model knows it is not seeing everything.
    ///
    /// The notice says how much was kept. Smaller caps get a shorter
    /// notice, and a cap too small for any words (a few characters) gets
    /// the text's start and a final `…`.
    pub(crate) fn capped(self, cap: ResultCap) -> Self {
        let Some(limit) = cap.limit() else {
            return self;
        };
        // Cheap check first: `len` (bytes) bounds the character count.
        if self.as_str().len() <= limit {
            return self;
        }
        let total = self.as_str().chars().count();
        if total <= limit {
            return self;
        }
        let mut text = self.into_string();
        // The notice is decided for the largest count it could show; the
        // real count is no wider, so text plus notice stays within `limit`.
        let widest = notice(limit, total, limit);
        let (kept, notice) = match limit.checked_sub(widest.chars().count()) {
            Some(kept) if kept > 0 => {
                // A narrower count frees a character or two for text.
                let first = notice(kept, total, limit);
                let wider = limit - first.chars().count();
                let second = notice(wider, total, limit);
                if wider + second.chars().count() <= limit {
                    (wider, second)
                } else {
                    (kept, first)
                }
            }
            _ => {
                // No room for text beside the full notice: the short one.
                let short = short_notice(total);
                match limit.checked_sub(short.chars().count()) {
                    Some(kept) if kept > 0 => (kept, short),
                    // A cap of a few characters: an ellipsis is all the
                    // notice that fits, and still shows the text was cut.
                    _ => (limit - 1, ELLIPSIS.to_owned()),
                }
            }
        };
        let cut_at = text.char_indices().nth(kept).map_or(text.len(), |(i, _)| i);
        text.truncate(cut_at);
        text.push_str(&notice);
        let mut out = ToolOutput::text(text);
        out.truncated = Some(Truncation { kept, total });
        out
    }
}

impl Clone for ToolOutput {
    fn clone(&self) -> Self {
        ToolOutput {
            blocks: self.blocks.clone(),
            view: OnceLock::new(),
            truncated: self.truncated,
            source: self.source.clone(),
        }
    }
}

// Equal outputs have equal blocks; the cached text view is not part of it,
// nor the source the blocks were rendered from.
impl PartialEq for ToolOutput {
    fn eq(&self, other: &Self) -> bool {
        self.blocks == other.blocks && self.truncated == other.truncated
    }
}

impl Eq for ToolOutput {}

impl std::fmt::Debug for ToolOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolOutput")
            .field("blocks", &self.blocks)
            .field("truncated", &self.truncated)
            .finish()
    }
}

/// The notice appended to a cut result.
fn notice(kept: usize, total: usize, limit: usize) -> String {
    format!(
        "\n\n[output truncated: showing {kept} of {total} characters (max_result_chars = {limit})]"
    )
}

/// The notice when no words fit.
const ELLIPSIS: &str = "…";

/// The notice when the full one leaves no room for text.
fn short_notice(total: usize) -> String {
    format!("\n[truncated from {total} chars]")
}

/// Turns a tool's typed result into what the model reads.
///
/// Implemented for text (`String`, `&'static str`), [`ToolOutput`],
/// `serde_json::Value` (as pretty JSON text with keys in a stable order),
/// [`Json`] (any `Serialize + JsonSchema` type, as a structured block
/// whose schema is the tool's output schema), one [`ContentBlock`], an
/// [`Image`], and a `Vec<ContentBlock>`.
#[diagnostic::on_unimplemented(
    message = "tool output `{Self}` cannot be rendered as text for the model",
    label = "used as a tool's `type Output` here",
    note = "use `String`, `&'static str`, `registry_core::ToolOutput`, `serde_json::Value` or content blocks (`registry_core::declare::ContentBlock`), or wrap any `Serialize + JsonSchema` type as `registry_core::Json<{Self}>`"
)]
pub trait IntoToolOutput {
    /// Renders the result; an error becomes the call's error result.
    fn into_tool_output(self) -> Result<ToolOutput, serde_json::Error>;

    /// The JSON Schema of the structured value the rendered text holds,
    /// for outputs that are typed JSON ([`Json<T>`]); `None` for text.
    /// MCP publishes it as a tool's `outputSchema`.
    fn output_schema() -> Option<serde_json::Value>
    where
        Self: Sized,
    {
        None
    }
}

impl IntoToolOutput for ToolOutput {
    fn into_tool_output(self) -> Result<ToolOutput, serde_json::Error> {
        Ok(self)
    }
}

impl IntoToolOutput for String {
    fn into_tool_output(self) -> Result<ToolOutput, serde_json::Error> {
        Ok(ToolOutput::text(self))
    }
}

impl IntoToolOutput for &'static str {
    fn into_tool_output(self) -> Result<ToolOutput, serde_json::Error> {
        Ok(ToolOutput::text(self))
    }
}

#[diagnostic::do_not_recommend]
impl IntoToolOutput for serde_json::Value {
    fn into_tool_output(self) -> Result<ToolOutput, serde_json::Error> {
        Ok(ToolOutput::text(crate::text::to_canonical_pretty(&self)))
    }
}

impl IntoToolOutput for ContentBlock {
    fn into_tool_output(self) -> Result<ToolOutput, serde_json::Error> {
        Ok(ToolOutput::new([self]))
    }
}

// Not named when a tool's `Vec<u8>` (or other `Vec`) output is refused:
// the note lists what to use instead, and "implemented for
// `Vec<ContentBlock>`" alone would send the user the wrong way.
#[diagnostic::do_not_recommend]
impl IntoToolOutput for Vec<ContentBlock> {
    fn into_tool_output(self) -> Result<ToolOutput, serde_json::Error> {
        Ok(ToolOutput::new(self))
    }
}

impl IntoToolOutput for Image {
    fn into_tool_output(self) -> Result<ToolOutput, serde_json::Error> {
        Ok(ToolOutput::new([ContentBlock::Image(self)]))
    }
}

/// A structured result: a [`ContentBlock::Json`] block, which text-only
/// readers see as pretty JSON.
///
/// `T` needs `JsonSchema` as well as `Serialize`: its schema is the tool's
/// output schema (MCP's `outputSchema`, with the value as
/// `structuredContent`). A result type without a schema can be returned as
/// a `serde_json::Value` instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Json<T>(pub T);

impl<T: serde::Serialize + schemars::JsonSchema> IntoToolOutput for Json<T> {
    fn output_schema() -> Option<serde_json::Value> {
        let mut schema = schemars::schema_for!(T).to_value();
        // Same clean-up as input schemas: the dialect and the Rust type's
        // name say nothing to a client and would churn the rendered bytes.
        if let serde_json::Value::Object(map) = &mut schema {
            map.remove("$schema");
            map.remove("title");
        }
        Some(schema)
    }

    fn into_tool_output(self) -> Result<ToolOutput, serde_json::Error> {
        // Through Value, so the text view (the canonical writer) has keys
        // sorted whatever T's map type or serde_json's features are.
        Ok(ToolOutput::json(serde_json::to_value(&self.0)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::num::NonZeroUsize;

    fn cap(n: usize) -> ResultCap {
        ResultCap::Chars(NonZeroUsize::new(n).unwrap())
    }

    #[test]
    fn short_output_is_untouched() {
        let out = ToolOutput::text("héllo").capped(cap(5));
        assert_eq!(out.as_str(), "héllo");
        assert_eq!(out.truncation(), None);
    }

    #[test]
    fn long_output_is_cut_on_a_char_boundary_and_says_so() {
        let text = "é".repeat(500);
        let out = ToolOutput::text(text).capped(cap(100));
        assert_eq!(out.as_str().chars().count(), 100, "{}", out.as_str());
        let kept = out.truncation().unwrap().kept;
        assert_eq!(out.truncation(), Some(Truncation { kept, total: 500 }));
        assert_eq!(
            out.as_str(),
            format!(
                "{}\n\n[output truncated: showing {kept} of 500 characters (max_result_chars = 100)]",
                "é".repeat(kept)
            )
        );
    }

    /// Every cap from 1 up to past the text's length: never longer than
    /// the cap, never a split character, kept text is a prefix, and a cut
    /// always says so.
    #[test]
    fn the_notice_counts_inside_the_cap_at_every_boundary() {
        for text in ["x".repeat(150), "é€😀".repeat(50)] {
            let total = text.chars().count();
            for limit in 1..=total + 2 {
                let out = ToolOutput::text(text.clone()).capped(cap(limit));
                let shown = out.as_str();
                let len = shown.chars().count();
                assert!(len <= limit, "cap {limit}: {len} chars: {shown:?}");
                match out.truncation() {
                    None => {
                        assert!(total <= limit, "cap {limit}: cut without saying so");
                        assert_eq!(shown, text);
                    }
                    Some(Truncation { kept, total: t }) => {
                        assert!(total > limit, "cap {limit}: cut a text that fit");
                        assert_eq!(t, total);
                        let prefix: String = text.chars().take(kept).collect();
                        assert!(shown.starts_with(&prefix), "cap {limit}: {shown:?}");
                        let notice = &shown[prefix.len()..];
                        assert!(
                            notice.contains("truncated") || notice == "…",
                            "cap {limit}: {shown:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn caps_smaller_than_the_notice_still_say_so_within_the_cap() {
        let text = "abcdefghij".repeat(10);
        // Room for the short notice and some text.
        let out = ToolOutput::text(text.clone()).capped(cap(30));
        assert_eq!(out.as_str().chars().count(), 30, "{}", out.as_str());
        assert!(out.as_str().ends_with("\n[truncated from 100 chars]"));
        assert_eq!(out.truncation().unwrap().kept, 3);
        // No room for words: the start of the text and an ellipsis.
        let out = ToolOutput::text(text.clone()).capped(cap(5));
        assert_eq!(out.as_str(), "abcd…");
        assert_eq!(
            out.truncation(),
            Some(Truncation {
                kept: 4,
                total: 100
            })
        );
        let out = ToolOutput::text(text).capped(cap(1));
        assert_eq!(out.as_str(), "…");
    }

    #[test]
    fn unbounded_never_cuts() {
        let long = "x".repeat(200_000);
        let out = ToolOutput::text(long.clone()).capped(ResultCap::Unbounded);
        assert_eq!(out.as_str(), long);
    }

    #[test]
    fn json_keys_are_sorted() {
        let mut map = std::collections::HashMap::new();
        for k in ["zeta", "alpha", "mid"] {
            map.insert(k, 1);
        }
        let text = Json(map).into_tool_output().unwrap().into_string();
        let order: Vec<_> = ["alpha", "mid", "zeta"]
            .iter()
            .map(|k| text.find(k).unwrap())
            .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{text}");
    }
}
