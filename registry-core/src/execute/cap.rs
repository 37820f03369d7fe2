//! Result caps: a result over its tool's `max_result_chars` is spilled to a
//! file (when the executor has a spill directory) and replaced by its size,
//! path and a preview, or else cut with a visible notice; an empty result
//! says so; and a per-turn budget across all results spills (or cuts) the
//! largest results first.
//!
//! Lengths are counted in characters, never bytes, and no cut ever splits
//! a character. A spill file name carries the call's position and id,
//! reduced to `[A-Za-z0-9_-]` plus a hash of the raw id (a hostile id
//! cannot leave the directory), then a tag for this process (its id and
//! start time, so a later process reusing the id differs too) and a
//! per-process sequence number, so two turns (or two processes sharing
//! the directory) never write the same name. The file is always created new (`O_EXCL`):
//! a file or symlink already at the name, say one planted by another user
//! of a shared directory, is skipped, never followed or truncated.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::{self, Write as _};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use super::call::ToolCallResult;
use crate::declare::ContentBlock;
use crate::declare::output::ToolOutput;
use crate::declare::posture::ResultCap;

/// The id part of a spill file name keeps at most this many characters.
const MAX_ID_CHARS: usize = 48;

/// How many names a spill tries before giving up: a name is only taken
/// when something else created it, so more than one miss means someone is
/// squatting on the names, and the result is cut instead.
const SPILL_ATTEMPTS: usize = 8;

/// This process's spill sequence: every spill attempt takes the next
/// number, so no two spills of one process share a name.
static SPILL_SEQ: AtomicU64 = AtomicU64::new(0);

/// This process's part of every spill name: its id, which no running
/// process shares, and when it first spilled (nanoseconds since the
/// epoch, in hex), which a later process reusing the id does not share.
fn process_tag() -> &'static str {
    static TAG: OnceLock<String> = OnceLock::new();
    TAG.get_or_init(|| {
        // A clock before 1970 only weakens the restart case; the O_EXCL
        // create still refuses to reuse a name.
        let started = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        format!("{}-{started:x}", std::process::id())
    })
}

/// Where and how results are spilled.
#[derive(Debug, Clone)]
pub(crate) struct CapConfig {
    pub(crate) spill_dir: Option<PathBuf>,
    pub(crate) preview_chars: NonZeroUsize,
    pub(crate) max_binary_bytes: Option<usize>,
}

/// One result after capping, with the length of its text view in
/// characters.
#[derive(Debug)]
pub(crate) struct Capped {
    pub(crate) output: ToolOutput,
    pub(crate) chars: usize,
    pub(crate) spilled_to: Option<PathBuf>,
    pub(crate) binary_spills: Vec<PathBuf>,
}

/// The text shown for a call that succeeded with no output.
pub(crate) fn no_output(tool: &str) -> String {
    format!("(`{tool}` completed with no output)")
}

/// Caps a successful call's output: its text (text and JSON blocks,
/// together) to the tool's character limit, then its binary blocks, in
/// order, to the executor's byte limit.
pub(crate) fn cap_output(
    output: ToolOutput,
    tool: &str,
    cap: ResultCap,
    index: usize,
    call_id: &str,
    config: &CapConfig,
) -> Capped {
    // What the blocks were rendered from stays with them only while they
    // are left as they are.
    let (mut blocks, source) = output.into_parts();
    let mut touched = false;
    let mut spilled_to = None;
    let mut binary_spills = Vec::new();
    if blocks
        .iter()
        .all(|block| block.is_text() && block.text_view().is_empty())
    {
        let text = no_output(tool);
        return Capped {
            chars: text.chars().count(),
            output: ToolOutput::text(text),
            spilled_to,
            binary_spills,
        };
    }
    if blocks.iter().any(ContentBlock::is_text) {
        let text = text_part(&blocks);
        if let Some((capped, path)) = cap_text(&text, cap, index, call_id, config) {
            drop(text);
            replace_text_part(&mut blocks, capped);
            spilled_to = path;
            touched = true;
        }
    }
    if let Some(limit) = config.max_binary_bytes {
        touched |= cap_binary(
            &mut blocks,
            limit,
            index,
            call_id,
            config,
            &mut binary_spills,
        );
    }
    let output = ToolOutput::from_parts(blocks, (!touched).then_some(source).flatten());
    let chars = output.as_str().chars().count();
    Capped {
        output,
        chars,
        spilled_to,
        binary_spills,
    }
}

/// The text of a result's text blocks, one per line.
fn text_part(blocks: &[ContentBlock]) -> Cow<'_, str> {
    match blocks {
        [ContentBlock::Text(text)] => Cow::Borrowed(text),
        _ => {
            let texts: Vec<Cow<'_, str>> = blocks
                .iter()
                .filter(|block| block.is_text())
                .map(ContentBlock::text_view)
                .collect();
            match <[_; 1]>::try_from(texts) {
                Ok([one]) => one,
                Err(texts) => Cow::Owned(texts.join("\n")),
            }
        }
    }
}

/// Puts `text` where the first text or JSON block was and drops the rest
/// of them: a cut or spilled text is one text block (cut JSON is no longer
/// a value).
fn replace_text_part(blocks: &mut Vec<ContentBlock>, text: String) {
    let first = blocks.iter().position(ContentBlock::is_text).unwrap_or(0);
    let mut index = 0;
    blocks.retain(|block| {
        let keep = index == first || !block.is_text();
        index += 1;
        keep
    });
    match blocks.get_mut(first) {
        Some(slot) if slot.is_text() => *slot = ContentBlock::Text(text),
        _ => blocks.insert(first.min(blocks.len()), ContentBlock::Text(text)),
    }
}

/// The text cut or spilled to the tool's cap, with the spill file; `None`
/// when it fits.
fn cap_text(
    text: &str,
    cap: ResultCap,
    index: usize,
    call_id: &str,
    config: &CapConfig,
) -> Option<(String, Option<PathBuf>)> {
    let limit = cap.limit()?;
    // `len` (bytes) bounds the character count: short texts skip counting.
    if text.len() <= limit {
        return None;
    }
    let chars = text.chars().count();
    if chars <= limit {
        return None;
    }
    let why = format!("over the limit of {limit} characters");
    // The preview never shows more than the cap itself.
    let preview_chars = config.preview_chars.get().min(limit);
    if let Some((content, path)) = spill(text, chars, &why, preview_chars, index, call_id, config) {
        return Some((content, Some(path)));
    }
    Some((ToolOutput::text(text).capped(cap).into_string(), None))
}

/// Holds the binary blocks to `limit` bytes in total, in order: a block
/// that would pass it is written to the spill directory (when there is
/// one) and replaced by a notice of what it was and where it went.
/// Returns whether it replaced any.
fn cap_binary(
    blocks: &mut [ContentBlock],
    limit: usize,
    index: usize,
    call_id: &str,
    config: &CapConfig,
    spilled_to: &mut Vec<PathBuf>,
) -> bool {
    let mut replaced = false;
    let mut used: usize = 0;
    for block in blocks.iter_mut() {
        if block.binary_data().is_none() {
            continue;
        }
        let len = block.binary_len();
        if let Some(total) = used.checked_add(len).filter(|&total| total <= limit) {
            used = total;
            continue;
        }
        let kind = match block {
            ContentBlock::Image(_) => "image",
            ContentBlock::Audio(_) => "audio",
            _ => "resource",
        };
        let media_type = block.media_type().unwrap_or("application/octet-stream");
        let mut notice = format!(
            "[{kind} ({media_type}, {len} bytes) not included: over this result's limit of {limit} bytes of binary content"
        );
        let saved = match (config.spill_dir.as_deref(), block.binary_data()) {
            (Some(dir), Some(data)) => {
                let ext = extension(media_type);
                match write_spill(dir, index, call_id, data, ext, || {
                    SPILL_SEQ.fetch_add(1, Ordering::Relaxed)
                }) {
                    Ok(path) => Some(path),
                    Err(err) => {
                        tracing::warn!(dir = %dir.display(), %err, "could not spill a binary block; leaving it out");
                        None
                    }
                }
            }
            _ => None,
        };
        match saved {
            Some(path) => {
                let _ = write!(notice, "; saved in {}]", path.display());
                spilled_to.push(path);
            }
            None => notice.push(']'),
        }
        *block = ContentBlock::Text(notice);
        replaced = true;
    }
    replaced
}

/// A spill file's extension for a media type: its subtype's letters and
/// digits (`image/svg+xml` is `svg`, `image/jpeg` is `jpeg`), `bin` when
/// there are none.
fn extension(media_type: &str) -> &str {
    let subtype = media_type.split_once('/').map_or("", |(_, sub)| sub);
    let end = subtype
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(subtype.len())
        .min(10);
    match &subtype[..end] {
        "" => "bin",
        ext => ext,
    }
}

/// Writes `text` to the spill directory and returns the replacement and
/// the file, or `None` (logged) when there is no directory or the write
/// failed.
fn spill(
    text: &str,
    chars: usize,
    why: &str,
    preview_chars: usize,
    index: usize,
    call_id: &str,
    config: &CapConfig,
) -> Option<(String, PathBuf)> {
    let dir = config.spill_dir.as_deref()?;
    // Written inline: the text is already in memory, and a spawned blocking
    // write could outlive a cancelled turn.
    let path = match write_spill(dir, index, call_id, text.as_bytes(), "txt", || {
        SPILL_SEQ.fetch_add(1, Ordering::Relaxed)
    }) {
        Ok(path) => path,
        Err(err) => {
            tracing::warn!(dir = %dir.display(), %err, "could not spill a result; cutting it instead");
            return None;
        }
    };
    let preview = preview(text, preview_chars);
    let mut content = String::with_capacity(preview.len() + 200);
    let _ = write!(
        content,
        "[output too long: {chars} characters ({} bytes), {why}; the full output is saved in {}]\n[preview, first {} characters:]\n{preview}",
        text.len(),
        path.display(),
        preview.chars().count(),
    );
    Some((content, path))
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

/// Writes `data` to a new file in `dir` (created if needed), named with
/// extension `ext`, and returns its path. Each attempt takes a name from `next` (a sequence number);
/// a name already taken is skipped, up to [`SPILL_ATTEMPTS`] times.
fn write_spill(
    dir: &Path,
    index: usize,
    call_id: &str,
    data: &[u8],
    ext: &str,
    mut next: impl FnMut() -> u64,
) -> io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    for _ in 0..SPILL_ATTEMPTS {
        let path = dir.join(spill_file_name(index, call_id, process_tag(), next(), ext));
        let mut file = match create_new(&path) {
            Ok(file) => file,
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(err) => return Err(err),
        };
        if let Err(err) = file.write_all(data) {
            // Ours (created just now), and half-written: do not leave it.
            drop(file);
            let _ = std::fs::remove_file(&path);
            return Err(err);
        }
        return Ok(path);
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!("{SPILL_ATTEMPTS} candidate spill file names were all taken"),
    ))
}

/// Creates `path`, failing if anything (a symlink included, even a
/// dangling one) is already there; on unix readable by the owner only,
/// since a result may hold whatever the tool read.
fn create_new(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

/// A safe file name for one call's spilled output: the call's position
/// and id, then `process` (see [`process_tag`]) and the spill's sequence
/// number `seq`, so names differ across turns and processes; `ext` is the
/// extension (`txt` for text).
pub(crate) fn spill_file_name(
    index: usize,
    call_id: &str,
    process: &str,
    seq: u64,
    ext: &str,
) -> String {
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
    format!(
        "call-{index}-{safe}-{:016x}-{process}-{seq}.{ext}",
        fnv1a(call_id.as_bytes())
    )
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
        let text = text_part(result.output.blocks()).into_owned();
        let text_chars = text.chars().count();
        // Only the text part can be spilled or cut here; a result whose
        // text is already within the preview has nothing to give.
        if text_chars <= keep {
            continue;
        }
        let mut blocks = std::mem::replace(&mut result.output, ToolOutput::new([])).into_blocks();
        let other_chars = chars[i].saturating_sub(text_chars);
        let replacement = match spill(&text, text_chars, &why, keep, i, &result.id, config) {
            Some((content, path)) => {
                result.spilled_to = Some(path);
                content
            }
            None => cut(&text, text_chars, keep, &why),
        };
        let new_chars = replacement.chars().count() + other_chars;
        replace_text_part(&mut blocks, replacement);
        result.output = ToolOutput::new(blocks);
        total = total - chars[i] + new_chars;
        chars[i] = new_chars;
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
            let name = spill_file_name(3, id, process_tag(), 7, "txt");
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
        assert_ne!(
            spill_file_name(0, "a/b", "1", 0, "txt"),
            spill_file_name(0, "a_b", "1", 0, "txt")
        );
        // The same call in another spill or process gets another name.
        assert_ne!(
            spill_file_name(1, "toolu_1", "1", 0, "txt"),
            spill_file_name(1, "toolu_1", "1", 1, "txt")
        );
        assert_ne!(
            spill_file_name(1, "toolu_1", "1", 0, "txt"),
            spill_file_name(1, "toolu_1", "2", 0, "txt")
        );
        assert!(
            spill_file_name(0, &"x".repeat(10_000), process_tag(), u64::MAX, "txt").len() < 160
        );
    }

    /// Candidate names for call 0 `c`, sequence numbers from 0.
    fn candidate(dir: &Path, seq: u64) -> PathBuf {
        dir.join(spill_file_name(0, "c", process_tag(), seq, "txt"))
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_at_a_candidate_name_is_skipped_never_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        std::os::unix::fs::symlink(&victim, candidate(dir.path(), 0)).unwrap();
        // A dangling symlink must not be followed to create its target.
        let target = dir.path().join("created-through-link");
        std::os::unix::fs::symlink(&target, candidate(dir.path(), 1)).unwrap();
        let mut seq = 0..;
        let path = write_spill(dir.path(), 0, "c", b"spilled", "txt", || {
            seq.next().unwrap()
        })
        .unwrap();
        assert_eq!(path, candidate(dir.path(), 2));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "spilled");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert!(!target.exists());
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn when_every_candidate_is_taken_the_spill_fails_and_touches_nothing() {
        let dir = tempfile::tempdir().unwrap();
        for seq in 0..SPILL_ATTEMPTS as u64 {
            std::fs::write(candidate(dir.path(), seq), "theirs").unwrap();
        }
        let mut seq = 0..;
        let err =
            write_spill(dir.path(), 0, "c", b"mine", "txt", || seq.next().unwrap()).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        for seq in 0..SPILL_ATTEMPTS as u64 {
            let text = std::fs::read_to_string(candidate(dir.path(), seq)).unwrap();
            assert_eq!(text, "theirs");
        }
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
