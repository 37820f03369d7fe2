//! What a call hands back to the model: text, and whether it was cut.

use crate::posture::ResultCap;

/// The result of a successful call, as the model will read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    text: String,
    truncated: Option<Truncation>,
}

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
        ToolOutput {
            text: text.into(),
            truncated: None,
        }
    }

    /// The text the model reads, including the truncation notice if any.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Consumes the output, returning the text the model reads.
    pub fn into_string(self) -> String {
        self.text
    }

    /// Set when the result was cut to the tool's cap.
    pub fn truncation(&self) -> Option<Truncation> {
        self.truncated
    }

    /// Cuts the text to `cap` characters (on a character boundary) and says
    /// so at the end, so the model knows it is not seeing everything.
    pub(crate) fn capped(mut self, cap: ResultCap) -> Self {
        let Some(limit) = cap.limit() else {
            return self;
        };
        let Some((cut_at, _)) = self.text.char_indices().nth(limit) else {
            return self;
        };
        let total = self.text.chars().count();
        self.text.truncate(cut_at);
        self.text.push_str(&format!(
            "\n\n[output truncated: showing {limit} of {total} characters (max_result_chars = {limit})]"
        ));
        self.truncated = Some(Truncation { kept: limit, total });
        self
    }
}

/// Turns a tool's typed result into text for the model.
///
/// Implemented for text (`String`, `&'static str`), [`ToolOutput`],
/// `serde_json::Value` and [`Json`] (any `Serialize` type, rendered as
/// pretty JSON with keys in a stable order).
#[diagnostic::on_unimplemented(
    message = "tool output `{Self}` cannot be rendered as text for the model",
    label = "used as a tool's `type Output` here",
    note = "use `String`, `&'static str`, `registry_core::ToolOutput` or `serde_json::Value`, or wrap any `Serialize` type as `registry_core::Json<{Self}>`"
)]
pub trait IntoToolOutput {
    /// Renders the result; an error becomes the call's error result.
    fn into_tool_output(self) -> Result<ToolOutput, serde_json::Error>;
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
        Ok(ToolOutput::text(crate::canonical::to_canonical_pretty(
            &self,
        )))
    }
}

/// A structured result, rendered as pretty JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Json<T>(pub T);

impl<T: serde::Serialize> IntoToolOutput for Json<T> {
    fn into_tool_output(self) -> Result<ToolOutput, serde_json::Error> {
        // Through Value and the canonical writer, so keys come out sorted
        // whatever T's map type or serde_json's features are.
        let value = serde_json::to_value(&self.0)?;
        value.into_tool_output()
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
        let out = ToolOutput::text("ééééé").capped(cap(2));
        assert!(
            out.as_str()
                .starts_with("éé\n\n[output truncated: showing 2 of 5")
        );
        assert_eq!(out.truncation(), Some(Truncation { kept: 2, total: 5 }));
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
