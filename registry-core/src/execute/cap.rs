//! Result caps: a result over its tool's `max_result_chars` is spilled to a
//! file (when the executor has a spill directory) and replaced by its size,
//! path and a preview, or else cut with a visible notice; an empty result
//! says so; and a per-turn budget across all results spills (or cuts) the
//! largest results first.
//!
//! Lengths are counted in characters, never bytes, and no cut ever splits
//! a character. Spill file names derive from the call's position and id
//! only, with the id reduced to `[A-Za-z0-9_-]` plus a hash of the raw id:
//! a hostile id cannot leave the directory or collide with another.

use std::fmt::Write as _;
use std::num::NonZeroUsize;
use std::path::PathBuf;

use super::call::ToolCallResult;
use crate::output::ToolOutput;
use crate::posture::ResultCap;

/// The id part of a spill file name keeps at most this many characters.
const MAX_ID_CHARS: usize = 48;

/// Where and how results are spilled.
#[derive(Debug, Clone)]
pub(crate) struct CapConfig {
    pub(crate) spill_dir: Option<PathBuf>,
    pub(crate) preview_chars: NonZeroUsize,
}

/// One result after capping, with its length in characters.
#[derive(Debug)]
pub(crate) struct Capped {
    pub(crate) content: String,
    pub(crate) chars: usize,
    pub(crate) spilled_to: Option<PathBuf>,
}

/// The text shown for a call that succeeded with no output.
pub(crate) fn no_output(tool: &str) -> String {
    format!("(`{tool}` completed with no output)")
}

/// Caps a successful call's output to the tool's limit.
pub(crate) fn cap_output(
    output: ToolOutput,
    tool: &str,
    cap: ResultCap,
    index: usize,
    call_id: &str,
    config: &CapConfig,
) -> Capped {
    let text = output.into_string();
    if text.is_empty() {
        let content = no_output(tool);
        let chars = content.chars().count();
        return Capped {
            content,
            chars,
            spilled_to: None,
        };
    }
    let Some(limit) = cap.limit() else {
        let chars = text.chars().count();
        return unspilled(text, chars);
    };
    // `len` (bytes) bounds the character count: short texts skip counting.
    if text.len() <= limit {
        let chars = text.chars().count();
        return unspilled(text, chars);
    }
    let chars = text.chars().count();
    if chars <= limit {
        return unspilled(text, chars);
    }
    let why = format!("over the limit of {limit} characters");
    // The preview never shows more than the cap itself.
    let preview_chars = config.preview_chars.get().min(limit);
    if let Some(spilled) = spill(&text, chars, &why, preview_chars, index, call_id, config) {
        return spilled;
    }
    let content = ToolOutput::text(text).capped(cap).into_string();
    let chars = content.chars().count();
    unspilled(content, chars)
}

fn unspilled(content: String, chars: usize) -> Capped {
    Capped {
        content,
        chars,
        spilled_to: None,
    }
}

/// Writes `text` to the spill directory and returns the replacement, or
/// `None` (logged) when there is no directory or the write failed.
fn spill(
    text: &str,
    chars: usize,
    why: &str,
    preview_chars: usize,
    index: usize,
    call_id: &str,
    config: &CapConfig,
) -> Option<Capped> {
    let dir = config.spill_dir.as_deref()?;
    let path = dir.join(spill_file_name(index, call_id));
    // Written inline: the text is already in memory, and a spawned blocking
    // write could outlive a cancelled turn.
    if let Err(err) = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&path, text)) {
        tracing::warn!(path = %path.display(), %err, "could not spill a result; cutting it instead");
        return None;
    }
    let preview = preview(text, preview_chars);
    let mut content = String::with_capacity(preview.len() + 200);
    let _ = write!(
        content,
        "[output too long: {chars} characters ({} bytes), {why}; the full output is saved in {}]\n[preview, first {} characters:]\n{preview}",
        text.len(),
        path.display(),
        preview.chars().count(),
    );
    let chars = content.chars().count();
    Some(Capped {
        content,
        chars,
        spilled_to: Some(path),
    })
}

/// The first `max` characters of `text`, cut back to the end of the last
/// whole line within them when there is one.
pub(crate) fn preview(text: &str, max: usize) -> &str {
    let end = text.char_indices().nth(max).map_or(text.len(), |(i, _)| i);
    let head = &text[..end];
    if end == text.len() {
        return head;
    }
    match head.rfind('\n') {
        Some(newline) if newline > 0 => &head[..newline],
        _ => head,
    }
}

/// A deterministic, safe file name for one call's spilled output.
pub(crate) fn spill_file_name(index: usize, call_id: &str) -> String {
    let safe: String = call_id
        .chars()
        .take(MAX_ID_CHARS)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("call-{index}-{safe}-{:016x}.txt", fnv1a(call_id.as_bytes()))
}

/// FNV-1a, 64 bits: a published, stable hash, so file names do not change
/// across Rust versions (std's hasher makes no such promise).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Brings the turn's results within `budget` characters in total by
/// spilling (or, with no spill directory, cutting to the preview size)
/// the largest successful results first. Ties go to the earlier call, so
/// the outcome is deterministic. Errors are short and never touched.
pub(crate) fn apply_budget(
    results: &mut [ToolCallResult],
    chars: &mut [usize],
    budget: usize,
    config: &CapConfig,
) {
    let mut total: usize = chars.iter().sum();
    if total <= budget {
        return;
    }
    let mut order: Vec<usize> = (0..results.len())
        .filter(|&i| !results[i].is_error && results[i].spilled_to.is_none())
        .collect();
    // Largest first; the sort is stable, so equal sizes keep call order.
    order.sort_by(|&a, &b| chars[b].cmp(&chars[a]));
    let why = format!("over this turn's output budget of {budget} characters");
    for i in order {
        if total <= budget {
            break;
        }
        let result = &mut results[i];
        let keep = config.preview_chars.get();
        if chars[i] <= keep {
            break;
        }
        let (content, new_chars, spilled_to) =
            match spill(&result.content, chars[i], &why, keep, i, &result.id, config) {
                Some(capped) => (capped.content, capped.chars, capped.spilled_to),
                None => {
                    let cut = cut(&result.content, chars[i], keep, &why);
                    let n = cut.chars().count();
                    (cut, n, None)
                }
            };
        total = total - chars[i] + new_chars;
        chars[i] = new_chars;
        result.content = content;
        result.spilled_to = spilled_to;
    }
}

/// The first `keep` characters (at a line end when one is near) and a
/// notice saying how much of `total` is shown and why.
fn cut(text: &str, total: usize, keep: usize, why: &str) -> String {
    let head = preview(text, keep);
    format!(
        "{head}\n\n[output truncated: showing {} of {total} characters, {why}]",
        head.chars().count()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn hostile_ids_stay_inside_the_directory() {
        for id in ["../../etc/passwd", "/abs", "a/b\\c", "..", "", "é😀\0\n"] {
            let name = spill_file_name(3, id);
            assert!(
                name.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)),
                "{name}"
            );
            assert!(!name.contains(".."), "{name}");
            assert_eq!(Path::new(&name).components().count(), 1, "{name}");
            assert!(name.ends_with(".txt"));
        }
        // Ids that reduce to the same text still differ.
        assert_ne!(spill_file_name(0, "a/b"), spill_file_name(0, "a_b"));
        // Deterministic.
        assert_eq!(spill_file_name(1, "toolu_1"), spill_file_name(1, "toolu_1"));
        assert!(spill_file_name(0, &"x".repeat(10_000)).len() < 100);
    }

    #[test]
    fn previews_cut_at_a_line_end_and_never_inside_a_character() {
        assert_eq!(preview("ab\ncd\nef", 7), "ab\ncd");
        assert_eq!(preview("abcdef", 3), "abc");
        assert_eq!(preview("😀😀😀", 2), "😀😀");
        assert_eq!(preview("short", 100), "short");
        assert_eq!(preview("\nabc", 2), "\na");
    }
}
