//! The content pattern of a rule `Tool(pattern)`, and how it matches a
//! call's [`PermissionContent`].
//!
//! Three forms, decided by the pattern's text (after the rule string's own
//! `\(`, `\)`, `\\` escapes are resolved):
//!
//! | form | example | matches |
//! |---|---|---|
//! | exact | `npm test` | exactly that text |
//! | prefix | `npm run:*` | the prefix alone, or followed by a boundary: whitespace for commands, `/` for paths, anything for plain text |
//! | glob | `git * --force`, `src/*.rs` | `*` stands for any run of characters, `/` and spaces included |
//!
//! A pattern is a prefix pattern when it ends in `:*` and holds no other
//! `*`. In a pattern, `\*` is a literal `*` and `\\` a literal `\` (in a
//! rule string these are written `\\*` and `\\\\`); any other `\` is
//! itself. [`ContentPattern::escape`] writes the pattern that matches one
//! text exactly.
//!
//! For a command, the pattern is matched against each program the command
//! line starts, as its words (`rm -f x`, quotes removed, one space between
//! words), never against the raw text alone: see
//! [`ContentKind::Command`]. Deny and ask rules use
//! [`ContentPattern::matches`]; allow rules use the stricter
//! [`ContentPattern::allows`], so that an allow rule never reaches further
//! than it reads.

use crate::declare::content::{ContentKind, PermissionContent};

/// A parsed content pattern. Every string is a pattern; parsing cannot
/// fail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContentPattern {
    source: String,
    form: Form,
    /// The form of the pattern read as a path (normalised like path
    /// content), used for path content.
    path_form: Form,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Form {
    Exact(String),
    Prefix(String),
    Glob(Vec<Token>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    Char(char),
    Star,
}

/// Where a prefix pattern's prefix may end.
#[derive(Debug, Clone, Copy)]
enum Boundary {
    Anywhere,
    Word,
    PathComponent,
}

impl ContentPattern {
    /// Reads a pattern (the content of a rule, already unescaped by the
    /// rule parser).
    pub fn parse(pattern: &str) -> Self {
        ContentPattern {
            source: pattern.to_owned(),
            form: Form::parse(pattern, false),
            path_form: Form::parse(&crate::path::normalize_path(pattern), true),
        }
    }

    /// The pattern text that matches exactly `literal`: `\` and `*`
    /// escaped.
    pub fn escape(literal: &str) -> String {
        let mut out = String::with_capacity(literal.len());
        for c in literal.chars() {
            if matches!(c, '\\' | '*') {
                out.push('\\');
            }
            out.push(c);
        }
        out
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether the pattern covers this content, the reading used for deny
    /// and ask rules: a command matches when any program its line may
    /// start matches (see [`ContentKind::Command`]); a path as written
    /// (relative paths are not resolved here: the
    /// [pipeline](super::PermissionPolicy) also matches the path the OS
    /// will open). A command the reader cannot vouch for does not match
    /// here; the pipeline treats it as uncheckable.
    pub fn matches(&self, content: &PermissionContent) -> bool {
        matches!(
            super::reach::CallContent::new(content, None, None).deny_reach(self),
            super::reach::Reach::Covers
        )
    }

    /// Whether the pattern lets this content run, the reading used for
    /// allow rules: a command only when its reading is checkable and this
    /// one pattern covers every program it starts (the pipeline lets
    /// several allow rules share a line), each named as written, with no
    /// assignment in front and no redirection that writes; `git status:*`
    /// allows `git status -s`, not `git status; rm -rf ~`; an exact
    /// pattern also allows exactly its text.
    pub fn allows(&self, content: &PermissionContent) -> bool {
        super::reach::CallContent::new(content, None, None)
            .allowed_by(std::slice::from_ref(self))
            .is_some()
    }

    /// Whether the text matches, read as `kind` and nothing more: the
    /// whole line of a command, a path as given (a leading `**/` or `*/`
    /// also covers a path with no directory in front: `**/.env` covers
    /// `.env`, tried as `./.env`).
    pub(crate) fn matches_text(&self, text: &str, kind: ContentKind) -> bool {
        match kind {
            ContentKind::Path => {
                self.path_form.matches(text, Boundary::PathComponent)
                    || (!text.starts_with('/')
                        && matches!(self.path_form, Form::Glob(_))
                        && self
                            .path_form
                            .matches(&format!("./{text}"), Boundary::PathComponent))
            }
            ContentKind::Command => self.form.matches(text, Boundary::Word),
            _ => self.form.matches(text, Boundary::Anywhere),
        }
    }

    /// Whether the pattern is exactly `text` (no wildcard).
    pub(crate) fn is_exactly(&self, text: &str) -> bool {
        matches!(&self.form, Form::Exact(exact) if exact == text)
    }

    /// How the pattern meets a program's words (each with whether the
    /// shell has yet to expand it), joined by single spaces; `unseen`
    /// when the program gets more arguments than the words show (`xargs`).
    /// A word to be expanded ends what is known: after it, anything may
    /// follow.
    pub(crate) fn match_words<'w>(
        &self,
        words: impl IntoIterator<Item = (&'w str, bool)>,
        unseen: bool,
    ) -> WordsMatch {
        let mut known = String::new();
        let mut complete = !unseen;
        for (i, (word, dynamic)) in words.into_iter().enumerate() {
            if dynamic {
                complete = false;
                break;
            }
            if i > 0 {
                known.push(' ');
            }
            known.push_str(word);
        }
        // Whether more words after `known` could still give `text`.
        let could_extend_to = |text: &str| {
            known.is_empty()
                || text == known
                || text
                    .strip_prefix(known.as_str())
                    .is_some_and(|rest| rest.starts_with(' '))
        };
        let yes_or_no = |yes: bool| if yes { WordsMatch::Yes } else { WordsMatch::No };
        match &self.form {
            Form::Exact(exact) if complete => yes_or_no(*exact == known),
            Form::Exact(exact) => {
                if could_extend_to(exact) {
                    WordsMatch::Maybe
                } else {
                    WordsMatch::No
                }
            }
            Form::Prefix(prefix) => {
                if prefix_rest(&known, prefix, Boundary::Word).is_some() {
                    WordsMatch::Yes
                } else if !complete && could_extend_to(prefix) {
                    WordsMatch::Maybe
                } else {
                    WordsMatch::No
                }
            }
            Form::Glob(tokens) if complete => yes_or_no(glob_matches(tokens, &known)),
            Form::Glob(tokens) => {
                let head: String = tokens
                    .iter()
                    .map_while(|t| match t {
                        Token::Char(c) => Some(*c),
                        Token::Star => None,
                    })
                    .collect();
                if head.starts_with(known.as_str()) || known.starts_with(head.as_str()) {
                    WordsMatch::Maybe
                } else {
                    WordsMatch::No
                }
            }
        }
    }
}

/// How a pattern meets a program's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WordsMatch {
    /// Covered, whatever the shell expands.
    Yes,
    /// Not covered, whatever the shell expands.
    No,
    /// Covered or not depending on what the shell expands.
    Maybe,
}

impl Form {
    fn parse(pattern: &str, as_path: bool) -> Self {
        let mut tokens = Vec::with_capacity(pattern.len());
        let mut chars = pattern.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.peek() {
                    Some(&escaped @ ('\\' | '*')) => {
                        chars.next();
                        tokens.push(Token::Char(escaped));
                    }
                    _ => tokens.push(Token::Char('\\')),
                },
                '*' => tokens.push(Token::Star),
                c => tokens.push(Token::Char(c)),
            }
        }
        let stars = tokens.iter().filter(|t| **t == Token::Star).count();
        let literal = |tokens: &[Token]| -> String {
            tokens
                .iter()
                .map(|t| match t {
                    Token::Char(c) => *c,
                    Token::Star => '*',
                })
                .collect()
        };
        match (stars, tokens.as_slice()) {
            (0, _) => Form::Exact(literal(&tokens)),
            (1, [head @ .., Token::Char(':'), Token::Star]) => {
                let mut prefix = literal(head);
                if as_path && prefix.len() > 1 && prefix.ends_with('/') {
                    prefix.pop();
                }
                Form::Prefix(prefix)
            }
            _ => Form::Glob(tokens),
        }
    }

    /// Whether `text` matches.
    fn matches(&self, text: &str, boundary: Boundary) -> bool {
        match self {
            Form::Exact(exact) => text == exact,
            Form::Prefix(prefix) => prefix_rest(text, prefix, boundary).is_some(),
            Form::Glob(tokens) => glob_matches(tokens, text),
        }
    }
}

/// The text after `prefix` when `text` starts with it at a boundary.
fn prefix_rest<'t>(text: &'t str, prefix: &str, boundary: Boundary) -> Option<&'t str> {
    if let Boundary::PathComponent = boundary {
        match prefix {
            // `:*` alone covers every path.
            "" => return Some(text),
            // The root covers every absolute path.
            "/" => return text.starts_with('/').then_some(&text[1..]),
            // The current directory covers every relative path that does
            // not leave it.
            "." => {
                let inside = !text.starts_with('/') && text != ".." && !text.starts_with("../");
                return inside.then_some(text);
            }
            _ => {}
        }
    }
    let rest = text.strip_prefix(prefix)?;
    let at_boundary = match boundary {
        Boundary::Anywhere => true,
        Boundary::Word => {
            rest.is_empty()
                || prefix.is_empty()
                || prefix.ends_with(char::is_whitespace)
                || rest.starts_with(char::is_whitespace)
        }
        Boundary::PathComponent => rest.is_empty() || rest.starts_with('/'),
    };
    at_boundary.then_some(rest)
}

/// Wildcard matching: the literal pieces between the stars must appear
/// in the text in order, the first at its start and the last at its end.
/// Taking each middle piece at its first occurrence is never wrong (a
/// later one only leaves less text for the pieces after it), so one pass
/// decides: linear in the text, no backtracking blow-up on patterns like
/// `*a*a*a*b`, and no allocation the size of the text (a content can be
/// a 100 MB argument).
fn glob_matches(tokens: &[Token], text: &str) -> bool {
    let pieces: Vec<String> = tokens
        .split(|token| *token == Token::Star)
        .map(|piece| {
            piece
                .iter()
                .filter_map(|token| match token {
                    Token::Char(c) => Some(*c),
                    Token::Star => None,
                })
                .collect()
        })
        .collect();
    let [first, rest @ ..] = pieces.as_slice() else {
        return text.is_empty();
    };
    let Some(mut text) = text.strip_prefix(first.as_str()) else {
        return false;
    };
    let Some((last, middle)) = rest.split_last() else {
        // No star: the whole text is the one piece.
        return text.is_empty();
    };
    let Some(inner) = text.strip_suffix(last.as_str()) else {
        return false;
    };
    text = inner;
    for piece in middle {
        match text.find(piece.as_str()) {
            Some(at) => text = &text[at + piece.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(text: &str) -> PermissionContent {
        PermissionContent::command(text)
    }

    #[test]
    fn forms_are_read_from_the_text() {
        assert_eq!(
            Form::parse("npm test", false),
            Form::Exact("npm test".into())
        );
        assert_eq!(Form::parse("npm:*", false), Form::Prefix("npm".into()));
        assert_eq!(Form::parse(r"a\*:*", false), Form::Prefix("a*".into()));
        assert!(matches!(Form::parse("a*b:*", false), Form::Glob(_)));
        assert_eq!(Form::parse(r"a:\*", false), Form::Exact("a:*".into()));
        assert_eq!(Form::parse(r"a\\b\x", false), Form::Exact(r"a\b\x".into()));
        assert_eq!(Form::parse("src/:*", true), Form::Prefix("src".into()));
    }

    #[test]
    fn globs_cover_any_run_of_characters() {
        let cases = [
            ("*", "", true),
            ("*", "anything at all", true),
            ("git * --force", "git push origin --force", true),
            ("git * --force", "git push origin --force-with-lease", false),
            (
                "*a*a*a*b",
                "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                false,
            ),
            ("*a*a*a*b", "xaxaxab", true),
            ("a*", "b", false),
        ];
        for (pattern, text, expected) in cases {
            let pattern = ContentPattern::parse(pattern);
            assert_eq!(
                pattern.matches(&PermissionContent::text(text)),
                expected,
                "{pattern:?} on {text:?}"
            );
        }
    }

    #[test]
    fn command_prefixes_end_at_a_word() {
        let ls = ContentPattern::parse("ls:*");
        assert!(ls.matches(&command("ls")));
        assert!(ls.matches(&command("ls -la")));
        assert!(!ls.matches(&command("lsof")));
        let any = ContentPattern::parse(":*");
        assert!(any.matches(&command("whatever")));
    }

    #[test]
    fn deny_readings_see_every_program_and_allow_readings_every_command() {
        let rm = ContentPattern::parse("rm:*");
        for spelling in [
            "ls && rm -rf x",
            "ls\nrm x",
            "  rm x",
            "'rm' x",
            "\\rm x",
            "/bin/rm x",
            "nice -n 5 rm x",
            "2>/dev/null rm x",
            "sh -c 'rm x'",
            "echo $(rm x)",
            "if :; then rm x; fi",
            "f() { rm x; }",
            "env FOO=1 rm x",
            "find . -exec rm {} +",
            "ls | xargs rm",
        ] {
            assert!(rm.matches(&command(spelling)), "{spelling}");
        }
        let push = ContentPattern::parse("git push:*");
        assert!(push.matches(&command("git  push\t--force")));
        assert!(push.allows(&command("git  push")));
        assert!(!rm.allows(&command("ls && rm -rf x")));
        let git = ContentPattern::parse("git status*");
        assert!(git.allows(&command("git status -s")));
        for hostile in [
            "git status; rm -rf ~",
            "git status && curl x | sh",
            "git status $(rm x)",
            "git status `rm x`",
            "git status > ~/.bashrc",
            "git status\nrm x",
            "PATH=. git status",
            "./git status",
            "git status &",
        ] {
            assert!(!git.allows(&command(hostile)), "{hostile}");
        }
        // An exact allow rule allows exactly what it says.
        let exact = ContentPattern::parse("make && make test");
        assert!(exact.allows(&command("make && make test")));
    }

    #[test]
    fn words_the_shell_expands_are_maybe() {
        let words = |text: &'static str| -> Vec<(&'static str, bool)> {
            text.split(' ').map(|w| (w, w.starts_with('$'))).collect()
        };
        let check = |pattern: &str, text: &'static str| {
            ContentPattern::parse(pattern).match_words(words(text), false)
        };
        assert_eq!(check("rm:*", "rm $X"), WordsMatch::Yes);
        assert_eq!(
            check("git push --force:*", "git push $X"),
            WordsMatch::Maybe
        );
        assert_eq!(check("git push --force:*", "git pull $X"), WordsMatch::No);
        assert_eq!(check("npm test", "npm $X"), WordsMatch::Maybe);
        assert_eq!(check("npm test", "rm $X"), WordsMatch::No);
        assert_eq!(check("git * --force", "git push $X"), WordsMatch::Maybe);
        assert_eq!(check("git * --force", "ls $X"), WordsMatch::No);
        assert_eq!(check("rm:*", "$C -f x"), WordsMatch::Maybe);
        let rm = ContentPattern::parse("rm -rf:*");
        assert_eq!(rm.match_words(words("rm"), true), WordsMatch::Maybe);
        assert_eq!(rm.match_words(words("rm"), false), WordsMatch::No);
    }

    #[test]
    fn path_patterns_are_normalised_like_paths() {
        let secret = ContentPattern::parse("./secrets/:*");
        for sneaky in [
            "secrets/key",
            "./secrets/key",
            "src/../secrets/key",
            "secrets//key",
            "secrets",
        ] {
            assert!(secret.matches(&PermissionContent::path(sneaky)), "{sneaky}");
        }
        assert!(!secret.matches(&PermissionContent::path("secretsx/key")));
        assert!(!secret.matches(&PermissionContent::path("../secrets/key")));
        let root = ContentPattern::parse("/:*");
        assert!(root.matches(&PermissionContent::path("/etc/passwd")));
        assert!(!root.matches(&PermissionContent::path("etc/passwd")));
        let here = ContentPattern::parse(".:*");
        assert!(here.matches(&PermissionContent::path("src/a")));
        assert!(!here.matches(&PermissionContent::path("../a")));
        assert!(!here.matches(&PermissionContent::path("/a")));
        let exact = ContentPattern::parse("src/./lib.rs");
        assert!(exact.matches(&PermissionContent::path("src/lib.rs")));
    }

    #[test]
    fn text_prefixes_have_no_boundary() {
        let host = ContentPattern::parse("https://docs.rs/:*");
        assert!(host.matches(&PermissionContent::text("https://docs.rs/serde")));
        assert!(!host.matches(&PermissionContent::text("https://docs.rs.evil/")));
    }

    /// A long text cannot make the matcher backtrack: each piece between
    /// stars is searched once, from where the previous one ended. A
    /// backtracking matcher (exponential in the stars) or the table below
    /// (text times pattern) would not finish these in any reasonable
    /// time; nothing is timed here, finishing is the point.
    #[test]
    fn long_texts_are_matched_in_one_pass() {
        let long = "a/".repeat(500_000);
        let tokens = |pattern: &str| Form::parse(pattern, true);
        let stars = "*a*a*a*a*a*a*a*a*a*a*b";
        assert!(!tokens(stars).matches(&long, Boundary::PathComponent));
        assert!(tokens(stars).matches(&format!("{long}b"), Boundary::PathComponent));
        for (pattern, expected) in [
            ("**/.env", false),
            ("secrets/**", false),
            ("a/**", true),
            ("**/a/", true),
            ("*/a/*/a/*/a/*/a/*/a/", true),
        ] {
            assert_eq!(
                tokens(pattern).matches(&long, Boundary::PathComponent),
                expected,
                "{pattern}"
            );
        }
    }

    /// The matcher this module had before: dynamic programming over
    /// every character, right by construction and slow to allocate (a
    /// `char` and two flags per character of the text).
    fn glob_by_table(tokens: &[Token], text: &str) -> bool {
        let text: Vec<char> = text.chars().collect();
        let mut row = vec![false; text.len() + 1];
        row[0] = true;
        let mut next = vec![false; text.len() + 1];
        for token in tokens {
            match *token {
                Token::Char(expected) => {
                    next[0] = false;
                    for j in 0..text.len() {
                        next[j + 1] = row[j] && text[j] == expected;
                    }
                }
                Token::Star => {
                    next[0] = row[0];
                    for j in 0..text.len() {
                        next[j + 1] = row[j + 1] || next[j];
                    }
                }
            }
            std::mem::swap(&mut row, &mut next);
        }
        row[text.len()]
    }

    proptest::proptest! {
        #[test]
        fn globs_match_as_the_table_does(pattern in "[ab*é]{0,8}", text in "[abé]{0,12}") {
            let tokens: Vec<Token> = pattern
                .chars()
                .map(|c| if c == '*' { Token::Star } else { Token::Char(c) })
                .collect();
            proptest::prop_assert_eq!(
                glob_matches(&tokens, &text),
                glob_by_table(&tokens, &text),
                "{} on {}", pattern, text
            );
        }
    }
}

/// The examples that were this module's doc tests, kept as tests now
/// that the items they show are crate-private.
#[cfg(test)]
mod examples {
    use super::ContentPattern;
    use crate::declare::PermissionContent;

    #[test]
    fn patterns_match_commands_and_paths() {
        let npm = ContentPattern::parse("npm run:*");
        assert!(npm.matches(&PermissionContent::command("npm run build")));
        assert!(npm.matches(&PermissionContent::command("npm run")));
        assert!(!npm.matches(&PermissionContent::command("npm runner")));
        // An allow rule's wildcard never covers a second command.
        assert!(!npm.allows(&PermissionContent::command("npm run x && rm -rf ~")));
        // A deny rule sees every program, however it is spelt.
        let rm = ContentPattern::parse("rm:*");
        assert!(rm.matches(&PermissionContent::command("ls && nice '/bin/rm' -f x")));

        let src = ContentPattern::parse("src:*");
        assert!(src.matches(&PermissionContent::path("./src/lib.rs")));
        assert!(!src.matches(&PermissionContent::path("srcs/lib.rs")));

        let rs = ContentPattern::parse("src/*.rs");
        assert!(rs.matches(&PermissionContent::path("src/a/b.rs")));
    }

    #[test]
    fn escape_matches_exactly_the_literal() {
        let text = ContentPattern::escape(r"rm *.tmp \ x:*");
        assert_eq!(text, r"rm \*.tmp \\ x:\*");
        let exact = ContentPattern::parse(&text);
        assert!(exact.matches(&PermissionContent::command(r"rm *.tmp \ x:*")));
        assert!(!exact.matches(&PermissionContent::command("rm a.tmp \\ x:y")));
    }
}
