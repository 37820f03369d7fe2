//! How far a rule's pattern reaches into one call's content: it covers
//! it, misses it, or cannot tell (the content is uncheckable).
//!
//! Everything here reads the one structure the program will act on: a
//! command's [`Reading`](shell_reading::Reading) (built once, when the
//! content was made) and a path's resolution (done once per call, against
//! the call's working directory, by [`path::resolve`](crate::path::resolve)).
//! No decision is taken on the raw text where the shell or the OS would
//! read it differently.

use std::cell::OnceCell;
use std::path::{Path, PathBuf};

use shell_reading::syntax::{Redirect, RedirectKind};
use shell_reading::{CommandLine, Run};

use super::pattern::{ContentPattern, WordsMatch};
use crate::declare::content::{ContentKind, PermissionContent};
use crate::path::{ResolveError, Resolved, resolve};

/// A pattern against one call's content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reach {
    /// The pattern covers the content, however it is read.
    Covers,
    /// The pattern misses the content, however it is read.
    Misses,
    /// The content cannot be checked against the pattern, for this reason
    /// (phrased to follow "the content").
    Unknown(String),
}

/// One call's content, with what the pipeline learns about it computed at
/// most once.
pub(crate) struct CallContent<'a> {
    content: &'a PermissionContent,
    /// Relative paths are resolved against this.
    base: Option<&'a Path>,
    /// The `accept_edits` workspace, as given.
    workspace: Option<&'a Path>,
    path: OnceCell<PathView>,
}

/// A path content, resolved.
struct PathView {
    /// The resolution, or why there is none.
    resolved: Result<Resolved, ResolveError>,
    /// The workspace, resolved (when one is set and resolves).
    workspace: Option<PathBuf>,
    /// The resolved path, relative to the workspace, when inside it.
    in_workspace: Option<String>,
    /// The resolved path, relative to the base, when inside it.
    in_base: Option<String>,
}

impl<'a> CallContent<'a> {
    pub(crate) fn new(
        content: &'a PermissionContent,
        base: Option<&'a Path>,
        workspace: Option<&'a Path>,
    ) -> Self {
        CallContent {
            content,
            base,
            workspace,
            path: OnceCell::new(),
        }
    }

    pub(crate) fn content(&self) -> &PermissionContent {
        self.content
    }

    fn path_view(&self) -> &PathView {
        self.path.get_or_init(|| {
            let base = self.base.or(self.workspace);
            let written = Path::new(self.content.as_str());
            let resolved = match base {
                Some(base) => resolve(base, written),
                None if written.is_absolute() => resolve(Path::new("/"), written),
                None => Err(ResolveError::NoBase),
            };
            let workspace = self
                .workspace
                .and_then(|w| resolve(Path::new("/"), w).ok())
                .map(|w| w.path);
            let relative_to = |root: &Path| -> Option<String> {
                let resolved = resolved.as_ref().ok()?;
                let below = resolved.path.strip_prefix(root).ok()?;
                let parts: Vec<_> = below
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect();
                Some(if parts.is_empty() {
                    ".".to_owned()
                } else {
                    parts.join("/")
                })
            };
            let in_workspace = workspace.as_deref().and_then(relative_to);
            let base = base
                .and_then(|b| resolve(Path::new("/"), b).ok())
                .map(|b| b.path);
            let in_base = base.as_deref().and_then(relative_to);
            PathView {
                resolved,
                workspace,
                in_workspace,
                in_base,
            }
        })
    }

    /// Whether the call's path is inside the `accept_edits` workspace, as
    /// the OS will open it; else why not (phrased to follow "accept_edits
    /// mode").
    pub(crate) fn edit_inside_workspace(&self) -> Result<(), String> {
        if self.workspace.is_none() {
            return Err("has no workspace to accept edits in".to_owned());
        }
        if self.content.kind() != ContentKind::Path {
            return Err("only accepts edits that name a path".to_owned());
        }
        let view = self.path_view();
        let resolved = match &view.resolved {
            Ok(resolved) => resolved,
            Err(why) => return Err(format!("cannot tell where this path leads ({why})")),
        };
        match &view.workspace {
            Some(workspace) if resolved.path.starts_with(workspace) => Ok(()),
            Some(_) => Err("only accepts edits inside the workspace".to_owned()),
            None => Err("cannot resolve its workspace".to_owned()),
        }
    }

    /// How a deny or ask pattern reaches this content.
    pub(crate) fn deny_reach(&self, pattern: &ContentPattern) -> Reach {
        match self.content.kind() {
            ContentKind::Command => match self.content.command_line() {
                Some(line) => command_reach(pattern, line),
                None => Reach::Unknown("is not a command line".to_owned()),
            },
            ContentKind::Path => self.path_reach(pattern),
            _ => {
                if pattern.matches_text(self.content.as_str(), self.content.kind()) {
                    Reach::Covers
                } else {
                    Reach::Misses
                }
            }
        }
    }

    /// Deny and ask rules match a path as written, as resolved (absolute),
    /// and relative to the workspace and to the base when it is inside
    /// them. A path that cannot be resolved, or a file with more than one
    /// name (a hard link may be a second name of a denied file), is
    /// unknown unless a spelling already matched.
    fn path_reach(&self, pattern: &ContentPattern) -> Reach {
        let written = self.content.as_str();
        if written.len() > crate::path::MAX_PATH_BYTES {
            return Reach::Unknown(format!(
                "is a path of {} bytes, too long to resolve",
                written.len()
            ));
        }
        if pattern.matches_text(written, ContentKind::Path) {
            return Reach::Covers;
        }
        let view = self.path_view();
        // `*...` and `:*` patterns cover relative and absolute forms alike;
        // others are written in one of them.
        let source = pattern.as_str();
        let either_form = source.starts_with(['*', ':']);
        let absolute_pattern = source.starts_with('/');
        let resolved = match &view.resolved {
            Ok(resolved) => resolved,
            // With no base, a relative path is what it is as written, and
            // a relative pattern was compared with it above.
            Err(ResolveError::NoBase) if either_form || !absolute_pattern => return Reach::Misses,
            Err(why) => {
                return Reach::Unknown(format!("is a path that cannot be resolved ({why})"));
            }
        };
        let absolute = resolved.path.to_string_lossy();
        let spellings = [
            Some(&*absolute),
            view.in_workspace.as_deref(),
            view.in_base.as_deref(),
        ];
        if spellings
            .into_iter()
            .flatten()
            .any(|spelling| pattern.matches_text(spelling, ContentKind::Path))
        {
            return Reach::Covers;
        }
        if !either_form && !absolute_pattern && self.workspace.is_none() && self.base.is_none() {
            return Reach::Unknown(
                "is an absolute path, and no workspace says what a relative rule means".to_owned(),
            );
        }
        if resolved.exists && resolved.links > 1 {
            return Reach::Unknown(format!(
                "is a file with {} names (hard links), one of which the rule may be about",
                resolved.links
            ));
        }
        Reach::Misses
    }

    /// The allow patterns that together let this content run (indices into
    /// `patterns`), or `None`. A path needs one pattern that covers it as
    /// the OS will open it; a command needs each program it starts covered
    /// by some pattern (see [`ContentPattern::allows`]).
    pub(crate) fn allowed_by(&self, patterns: &[ContentPattern]) -> Option<Vec<usize>> {
        match self.content.kind() {
            ContentKind::Command => command_allowed_by(patterns, self.content.command_line()?),
            ContentKind::Path => {
                let view = self.path_view();
                let resolved = view.resolved.as_ref().ok()?;
                let absolute = resolved.path.to_string_lossy();
                // Relative rules are about the workspace when there is one.
                let relative = match self.workspace {
                    Some(_) => view.in_workspace.as_deref(),
                    None => view.in_base.as_deref(),
                };
                let spellings = [Some(&*absolute), relative];
                patterns
                    .iter()
                    .position(|pattern| {
                        spellings
                            .into_iter()
                            .flatten()
                            .any(|s| pattern.matches_text(s, ContentKind::Path))
                    })
                    .map(|i| vec![i])
            }
            _ => patterns
                .iter()
                .position(|p| p.matches_text(self.content.as_str(), self.content.kind()))
                .map(|i| vec![i]),
        }
    }
}

/// A deny or ask pattern against a command line: covered when any program
/// the line may start is covered (by its name as written or as the shell
/// looks it up), unknown when the reading cannot vouch for its programs
/// or a program's words are still to be expanded.
fn command_reach(pattern: &ContentPattern, line: &CommandLine) -> Reach {
    let reading = line.reading();
    // The whole line as written, too (a rule may spell out a whole line);
    // a line too long to read is not scanned either.
    if reading.parsed() && pattern.matches_text(line.text(), ContentKind::Command) {
        return Reach::Covers;
    }
    let mut maybe = false;
    for run in reading.runs() {
        for layer in 0..run.layers.len() {
            match run_layer_match(pattern, run, layer, true) {
                WordsMatch::Yes => return Reach::Covers,
                WordsMatch::Maybe => maybe = true,
                WordsMatch::No => {}
            }
        }
    }
    if let Some(hazard) = reading.hazards().first() {
        return Reach::Unknown(format!(
            "is a command line that cannot be checked: {hazard}"
        ));
    }
    if maybe {
        return Reach::Unknown(
            "is a command line whose words are only known once the shell expands them".to_owned(),
        );
    }
    Reach::Misses
}

/// The pattern against the words layer `layer` of `run` receives; with
/// `by_name`, also with its program named as the shell looks it up
/// (`/bin/rm` as `rm`).
fn run_layer_match(pattern: &ContentPattern, run: &Run, layer: usize, by_name: bool) -> WordsMatch {
    let unseen = run.layers[layer..].iter().any(|l| l.unseen_args);
    let words = || run.words_from(layer).map(|w| (w.text.as_str(), w.dynamic));
    let as_written = pattern.match_words(words(), unseen);
    let invocation = &run.layers[layer];
    if !by_name || as_written == WordsMatch::Yes || !invocation.by_path() {
        return as_written;
    }
    let renamed = std::iter::once((invocation.name(), false)).chain(words().skip(1));
    match (as_written, pattern.match_words(renamed, unseen)) {
        (_, WordsMatch::Yes) => WordsMatch::Yes,
        (WordsMatch::Maybe, _) | (_, WordsMatch::Maybe) => WordsMatch::Maybe,
        _ => WordsMatch::No,
    }
}

/// Allow patterns against a command line: one exact pattern is the whole
/// line; or the reading is checkable and every run is allowable and has
/// its program (wrappers peeled, named as written) covered by some
/// pattern.
fn command_allowed_by(patterns: &[ContentPattern], line: &CommandLine) -> Option<Vec<usize>> {
    // A rule that spells out the whole line allowed exactly that text,
    // as an approval of it does.
    if let Some(i) = patterns.iter().position(|p| p.is_exactly(line.text())) {
        return Some(vec![i]);
    }
    let reading = line.reading();
    if !reading.is_checkable() {
        return None;
    }
    if reading.runs().is_empty() {
        return None;
    }
    let mut used = Vec::new();
    for run in reading.runs() {
        let allowable = !run.context.background
            && run.assignments.is_empty()
            && run.redirects.iter().all(redirect_is_harmless)
            && !run.layers.is_empty()
            && run
                .layers
                .iter()
                .all(|l| !l.writes && l.assignments.is_empty());
        if !allowable {
            return None;
        }
        let core = run.layers.len() - 1;
        let i = patterns
            .iter()
            .position(|p| run_layer_match(p, run, core, false) == WordsMatch::Yes)?;
        if !used.contains(&i) {
            used.push(i);
        }
    }
    Some(used)
}

/// A redirection an allow rule may let through: input from a file that is
/// not a device, output to `/dev/null`, descriptor duplication, a
/// here-document or here-string (its substitutions are runs of their own).
fn redirect_is_harmless(redirect: &Redirect) -> bool {
    let target = &redirect.target;
    if target.dynamic {
        return false;
    }
    match redirect.kind {
        RedirectKind::Read => target.text == "/dev/null" || !target.text.contains("/dev/"),
        RedirectKind::Truncate | RedirectKind::Append | RedirectKind::OutputAndError { .. } => {
            target.text == "/dev/null"
        }
        RedirectKind::Duplicate => {
            target.text == "-"
                || (!target.text.is_empty() && target.text.chars().all(|c| c.is_ascii_digit()))
        }
        RedirectKind::HereDoc | RedirectKind::HereString => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A path longer than the kernel takes is not read at all (not
    /// matched, not resolved): every deny or ask pattern cannot tell, and
    /// no allow pattern, not even one for every path, lets it through.
    #[test]
    fn a_path_over_path_max_is_unknown_to_deny_and_never_allowed() {
        let huge = "a/".repeat(crate::path::MAX_PATH_BYTES);
        let content = PermissionContent::path(&huge);
        let base = Path::new("/work");
        let call = CallContent::new(&content, Some(base), Some(base));
        for pattern in ["**/.env", "secrets/**", "a:*", ":*", "/:*", "a/a/a"] {
            let pattern = ContentPattern::parse(pattern);
            assert!(
                matches!(call.deny_reach(&pattern), Reach::Unknown(_)),
                "{pattern:?}"
            );
        }
        let every_path = [ContentPattern::parse(":*"), ContentPattern::parse("**")];
        assert_eq!(call.allowed_by(&every_path), None);
        assert!(call.edit_inside_workspace().is_err());
    }
}
