//! Text to search terms: two readings of text (an identifier's parts, or
//! prose's words), lower-casing, stop words and a light English stemmer.
//!
//! Names are identifiers: `createIssue`, `mcp__github__list_issues` and
//! `list-prs` are read as their parts. Descriptions, hints and queries are
//! prose: a word is split where it is written apart, and a capitalised
//! word is kept whole, so `GitHub`, `SQLite` and `PRs` stay `github`,
//! `sqlite` and `pr` rather than `git hub`, `sq lite` and `p rs` (which
//! would match every `git` tool). A camelCase word in prose (`listIssues`)
//! is an identifier and is split. The name side also indexes each pair of
//! adjacent name parts joined (`git`+`hub` → `github`), so a whole word of
//! prose still finds a name that spells it in parts.
//!
//! Nothing here knows any particular vocabulary: the rules are spelling
//! rules, shared by the index and the query so both meet on one term.

/// How a piece of text is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reading {
    /// A tool or server name: every case change and separator splits.
    Identifier,
    /// A description, hint or query: separators split, a word that starts
    /// in capitals is kept whole, a camelCase word is split.
    Prose,
}

/// Splits prose into lower-case words, as descriptions, hints and queries
/// are read: on every character that is not a letter or a digit; a word
/// that starts with a capital is kept whole (brand names, acronyms:
/// `GitHub`, `SQLite`, `HTTPS`), a plural acronym loses its `s` (`PRs` →
/// `pr`), and a word that starts in lower case and has capitals inside is
/// an identifier and is split like [`split_name`] (`listPullRequests`).
/// Letters and digits together stay one word (`s3`, `k8s`, `oauth2`).
#[cfg(test)]
pub(crate) fn split_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    for_each_word(text, Reading::Prose, |word| words.push(word.to_owned()));
    words
}

/// Splits an identifier into lower-case words, as tool and server names
/// are read: on every character that is not a letter or a digit (so `_`,
/// `-`, `__`, `.`, `/`), between a lower-case letter or digit and a
/// capital (`listIssues`), and before the last capital of a run followed
/// by a lower-case letter (`HTTPServer` → `http`, `server`) unless that
/// letter is a plural `s` ending the run (`listPRs` → `list`, `pr`).
pub(crate) fn split_name(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    for_each_word(name, Reading::Identifier, |word| {
        words.push(word.to_owned())
    });
    words
}

/// Calls `f` with each word of `text` read as `reading`, reusing one buffer.
pub(crate) fn for_each_word(text: &str, reading: Reading, mut f: impl FnMut(&str)) {
    let mut buf = String::new();
    for chunk in text.split(|c: char| !c.is_alphanumeric()) {
        if chunk.is_empty() {
            continue;
        }
        if let Some(acronym) = plural_acronym(chunk) {
            buf.clear();
            buf.extend(acronym.chars().flat_map(char::to_lowercase));
            f(&buf);
            continue;
        }
        let whole = reading == Reading::Prose
            && !chunk
                .chars()
                .next()
                .is_some_and(|c| c.is_lowercase() && chunk.chars().any(char::is_uppercase));
        if whole {
            buf.clear();
            buf.extend(chunk.chars().flat_map(char::to_lowercase));
            f(&buf);
        } else {
            split_identifier(chunk, &mut buf, &mut f);
        }
    }
}

/// `PRs`, `APIs`, `URLs`: two or more capitals and a plural `s`; the
/// acronym without it.
fn plural_acronym(word: &str) -> Option<&str> {
    let stem = word.strip_suffix('s')?;
    (stem.chars().count() >= 2 && stem.chars().all(char::is_uppercase)).then_some(stem)
}

/// One run of letters and digits, split at its case changes.
fn split_identifier(chunk: &str, buf: &mut String, f: &mut impl FnMut(&str)) {
    let chars: Vec<char> = chunk.chars().collect();
    let mut start = 0;
    let mut emit = |from: usize, to: usize, f: &mut dyn FnMut(&str)| {
        let piece: String = chars[from..to].iter().collect();
        buf.clear();
        match plural_acronym(&piece) {
            Some(acronym) => buf.extend(acronym.chars().flat_map(char::to_lowercase)),
            None => buf.extend(piece.chars().flat_map(char::to_lowercase)),
        }
        f(buf);
    };
    for i in 1..chars.len() {
        let (prev, c, next) = (chars[i - 1], chars[i], chars.get(i + 1).copied());
        let after = chars.get(i + 2).copied();
        // `PRs` at the end of a run (or before the next capital) is one
        // plural acronym, not `P` + `Rs`.
        let plural_s = next == Some('s') && !after.is_some_and(char::is_lowercase);
        let boundary = (c.is_uppercase() && (prev.is_lowercase() || prev.is_ascii_digit()))
            || (c.is_uppercase()
                && prev.is_uppercase()
                && next.is_some_and(char::is_lowercase)
                && !plural_s);
        if boundary {
            emit(start, i, f);
            start = i;
        }
    }
    emit(start, chars.len(), f);
}

/// Each pair of adjacent parts of a name, joined and stemmed (`git`+`hub`
/// → `github`, `pull`+`requests` → `pullrequest`): what lets a whole word
/// of prose find a name that spells it in parts. Parts that are stop
/// words are skipped, as they are in [`terms`].
pub(crate) fn for_each_join(name: &str, mut f: impl FnMut(&str)) {
    let mut prev: Option<String> = None;
    for_each_word(name, Reading::Identifier, |word| {
        if is_stop_word(word) {
            prev = None;
            return;
        }
        if let Some(prev) = &prev {
            f(&stem(&format!("{prev}{word}")));
        }
        prev = Some(word.to_owned());
    });
}

/// Words too common in tool descriptions and requests to tell tools apart
/// (English function words, and the wishes a request wraps itself in: "I
/// would need to", "could you", "I just want"). Kept short on
/// purpose: inverse document frequency already discounts the rest.
///
/// The pieces of a contraction (`what's`, `don't`, `I'd`, `we're`) are
/// here too: prose splits at the apostrophe.
const STOP_WORDS: &[&str] = &[
    "a", "about", "an", "and", "any", "are", "aren", "as", "at", "be", "by", "can", "could", "d",
    "do", "doesn", "don", "for", "from", "how", "i", "if", "in", "into", "is", "isn", "it", "its",
    "just", "ll", "m", "me", "my", "need", "of", "on", "or", "our", "please", "re", "s", "should",
    "so", "t", "that", "the", "their", "them", "then", "there", "these", "this", "those", "to",
    "us", "ve", "want", "was", "we", "what", "when", "where", "which", "who", "will", "with",
    "would", "you", "your",
];

/// Whether `word` (lower case) is a stop word.
pub(crate) fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.binary_search(&word).is_ok()
}

/// The search terms of prose (a description, hint or query):
/// [`split_words`], stop words dropped, each word [`stem`]med. Order is
/// kept; repeats are kept (they count).
#[cfg(test)]
pub(crate) fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_term(text, Reading::Prose, |term| out.push(term.to_owned()));
    out
}

/// Calls `f` with each term of `text` read as `reading`: [`terms`] for
/// prose, the same over [`split_name`] for a name.
pub(crate) fn for_each_term(text: &str, reading: Reading, mut f: impl FnMut(&str)) {
    for_each_word(text, reading, |word| {
        if !is_stop_word(word) {
            f(&stem(word));
        }
    });
}

/// A light English stemmer: folds plurals, `-ing`, `-ed` and a final `e`,
/// so `issues`/`issue`, `deleting`/`deleted`/`delete` and
/// `branches`/`branch` meet. Words of four letters or fewer, and words
/// with digits, are kept whole (they are mostly names and acronyms).
pub(crate) fn stem(word: &str) -> String {
    let mut w: String = british_to_american(&word.to_lowercase());
    // `prs`, `mrs`: a plural of a two-letter abbreviation (no vowel to
    // make it a word of its own, as `bus` or `has` are).
    if w.chars().count() == 3
        && w.ends_with('s')
        && w.chars().take(2).all(|c| c.is_alphabetic() && !is_vowel(c))
    {
        w.pop();
        return w;
    }
    if w.chars().count() <= 3 || !w.chars().all(|c| c.is_alphabetic()) {
        return w;
    }
    // Plurals.
    if let Some(base) = w.strip_suffix("ies").filter(|b| b.len() >= 2) {
        w = format!("{base}y");
    } else if w.ends_with("sses") {
        w.truncate(w.len() - 2);
    } else if let Some(base) = ["ches", "shes", "xes", "zzes"]
        .iter()
        .find_map(|suffix| w.strip_suffix(suffix).map(|b| (b.len(), suffix.len())))
    {
        w.truncate(base.0 + base.1 - 2);
    } else if w.ends_with('s') && !["ss", "us", "is"].iter().any(|s| w.ends_with(s)) {
        w.pop();
    }
    // Verb endings, only when a vowel stays in the stem.
    for suffix in ["ing", "ed"] {
        if let Some(base) = w.strip_suffix(suffix)
            && base.chars().count() >= 3
            && base.chars().any(is_vowel)
        {
            let base = if suffix == "ed" && base.ends_with('i') {
                format!("{}y", &base[..base.len() - 1])
            } else {
                undouble(base)
            };
            w = base;
            break;
        }
    }
    if w.chars().count() > 4 && w.ends_with('e') && !w.ends_with("ee") {
        w.pop();
    }
    w
}

/// The American spelling of a British `-ise`/`-yse` verb and its forms
/// (`organise`, `organised`, `analysing`, `organisation` → `-ize`,
/// `-yze`), and of a doubled `l` before `-ed`/`-ing` after an unstressed
/// `e` (`cancelled`, `labelling`, `travelled` → one `l`), so both
/// spellings meet on one stem. Both sides of a match are read through it,
/// so a word that merely ends so (`promise`, `otherwise`) is changed
/// alike everywhere and still matches itself.
fn british_to_american(word: &str) -> String {
    const ENDINGS: [(&str, &str); 10] = [
        ("isations", "izations"),
        ("isation", "ization"),
        ("ising", "izing"),
        ("ised", "ized"),
        ("ises", "izes"),
        ("ise", "ize"),
        ("ysing", "yzing"),
        ("ysed", "yzed"),
        ("yses", "yzes"),
        ("yse", "yze"),
    ];
    for (british, american) in ENDINGS {
        if let Some(base) = word.strip_suffix(british)
            && base.chars().count() >= 3
            && base.chars().all(char::is_alphabetic)
        {
            return format!("{base}{american}");
        }
    }
    for suffix in ["ed", "ing"] {
        if let Some(base) = word.strip_suffix(suffix)
            && let Some(single) = base.strip_suffix("ell")
            // Two vowel groups or more before the `ll`: `cancel`, not
            // `spell` or `tell`.
            && vowel_groups(single) >= 1
        {
            return format!("{single}el{suffix}");
        }
    }
    word.to_owned()
}

/// How many runs of vowels `word` has (its syllables, roughly).
fn vowel_groups(word: &str) -> usize {
    let mut groups = 0;
    let mut in_vowels = false;
    for c in word.chars() {
        let vowel = is_vowel(c);
        groups += usize::from(vowel && !in_vowels);
        in_vowels = vowel;
    }
    groups
}

fn is_vowel(c: char) -> bool {
    matches!(c, 'a' | 'e' | 'i' | 'o' | 'u' | 'y')
}

/// `runn` → `run`, `stopp` → `stop`; `ll`, `ss`, `zz` stay (`install`).
fn undouble(base: &str) -> String {
    let mut chars = base.chars().rev();
    match (chars.next(), chars.next()) {
        (Some(a), Some(b)) if a == b && !is_vowel(a) && !matches!(a, 'l' | 's' | 'z') => {
            base[..base.len() - a.len_utf8()].to_owned()
        }
        _ => base.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_are_sorted_for_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn names_split_at_every_separator_and_case_change() {
        assert_eq!(
            split_name("mcp__github__listPullRequests"),
            ["mcp", "github", "list", "pull", "requests"]
        );
        assert_eq!(split_name("HTTPServer-v2"), ["http", "server", "v2"]);
        assert_eq!(split_name("getGitHubPRs"), ["get", "git", "hub", "pr"]);
        assert_eq!(split_name("get_file-contents"), ["get", "file", "contents"]);
        assert_eq!(split_name("mcp__x__y"), ["mcp", "x", "y"]);
        assert_eq!(split_name("getJSONResponse"), ["get", "json", "response"]);
        assert_eq!(split_name("oauth2Token"), ["oauth2", "token"]);
        assert_eq!(split_name("list-prs"), ["list", "prs"]);
        assert_eq!(split_name("ListPRsForUser"), ["list", "pr", "for", "user"]);
        assert_eq!(split_name("HTTPSServer"), ["https", "server"]);
        assert_eq!(split_name("  "), Vec::<String>::new());
        assert_eq!(split_name("Ünïcode_Wörter"), ["ünïcode", "wörter"]);
    }

    #[test]
    fn prose_keeps_brand_names_and_acronyms_whole() {
        assert_eq!(
            split_words("Open PRs on GitHub"),
            ["open", "pr", "on", "github"]
        );
        assert_eq!(
            split_words("call listPullRequests (v2)"),
            ["call", "list", "pull", "requests", "v2"]
        );
        assert_eq!(
            split_words("SQLite's S3 backup"),
            ["sqlite", "s", "s3", "backup"]
        );
        for (text, words) in [
            (
                "GitHub GitLab SQLite PostgreSQL",
                &["github", "gitlab", "sqlite", "postgresql"][..],
            ),
            ("merge my PRs and MRs", &["merge", "my", "pr", "and", "mr"]),
            ("Use the HTTPS URLs", &["use", "the", "https", "url"]),
            (
                "MongoDB on K8s or EC2",
                &["mongodb", "on", "k8s", "or", "ec2"],
            ),
            (
                "then call createIssue",
                &["then", "call", "create", "issue"],
            ),
            (
                "mcp__github__list_issues",
                &["mcp", "github", "list", "issues"],
            ),
            (
                "read-only, e.g. list-prs",
                &["read", "only", "e", "g", "list", "prs"],
            ),
        ] {
            assert_eq!(split_words(text), words, "{text}");
        }
    }

    #[test]
    fn joins_let_a_whole_word_meet_a_name_in_parts() {
        let mut joins = Vec::new();
        for_each_join("searchGitHubRepos", |j| joins.push(j.to_owned()));
        assert_eq!(joins, ["searchgit", "github", "hubrepo"]);
        assert!(terms("search GitHub").contains(&"github".to_owned()));
        let mut joins = Vec::new();
        for_each_join("wait_for_page", |j| joins.push(j.to_owned()));
        assert!(joins.is_empty(), "a stop word breaks the pair: {joins:?}");
    }

    #[test]
    fn terms_drop_stop_words_and_stem() {
        assert_eq!(
            terms("Lists the open pull requests"),
            ["list", "open", "pull", "request"]
        );
        assert_eq!(terms("deleted_branches"), terms("delete a branch"));
    }

    #[test]
    fn two_letter_plurals_fold() {
        assert_eq!(stem("prs"), "pr");
        assert_eq!(stem("mrs"), "mr");
        assert_eq!(stem("bus"), "bus");
        assert_eq!(stem("has"), "has");
    }

    #[test]
    fn stems_fold_inflections_together() {
        for (word, expected) in [
            ("issues", "issu"),
            ("issue", "issu"),
            ("running", "run"),
            ("deleted", "delet"),
            ("branches", "branch"),
            ("queries", "query"),
            ("status", "status"),
            ("logs", "log"),
        ] {
            assert_eq!(stem(word), expected, "{word}");
        }
        let groups: &[&[&str]] = &[
            &["create", "created", "creates", "creating"],
            &["update", "updated", "updates", "updating"],
            &["list", "lists", "listed", "listing"],
            &["commit", "commits", "committed", "committing"],
            &["search", "searches", "searched", "searching"],
            &["copy", "copies", "copied"],
        ];
        for group in groups {
            let stems: Vec<String> = group.iter().map(|w| stem(w)).collect();
            assert!(
                stems.windows(2).all(|w| w[0] == w[1]),
                "{group:?} -> {stems:?}"
            );
        }
        // Short words and words with digits are names, not inflections.
        assert_eq!(stem("pr"), "pr");
        assert_eq!(stem("bus"), "bus");
        assert_eq!(stem("s3es"), "s3es");
    }

    #[test]
    fn british_and_american_spellings_meet() {
        for (british, american) in [
            ("organise", "organize"),
            ("organised", "organized"),
            ("summarising", "summarizing"),
            ("authorisation", "authorization"),
            ("analyse", "analyze"),
            ("cancelled", "canceled"),
            ("labelling", "labeling"),
        ] {
            assert_eq!(stem(british), stem(american), "{british}");
        }
        assert_eq!(stem("cancelled"), stem("cancel"));
        // One syllable before the `ll`: the `ll` is the word's own.
        assert_eq!(stem("spelled"), "spell");
        assert_eq!(stem("installed"), "install");
    }
}
