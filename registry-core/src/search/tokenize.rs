//! Text to search terms: splitting (identifier parts, camelCase, digits),
//! lower-casing, stop words and a light English stemmer.
//!
//! The same function reads tool names, hints, descriptions and queries,
//! so a query word and a catalog word meet on the same term. Nothing here
//! knows any particular vocabulary: the rules are spelling rules.

/// Splits `text` into lower-case words: on every character that is not a
/// letter or a digit (so `_`, `-`, `__`, `.`, `/` and spaces), between a
/// lower-case letter or digit and an upper-case letter (`listIssues`),
/// before the last capital of a run followed by a lower-case letter
/// (`HTTPServer` → `http`, `server`), and between letters and digits.
///
/// ```
/// use registry_core::search::split_words;
///
/// assert_eq!(
///     split_words("mcp__github__listPullRequests"),
///     ["mcp", "github", "list", "pull", "requests"]
/// );
/// assert_eq!(split_words("HTTPServer-v2 (beta)"), ["http", "server", "v", "2", "beta"]);
/// ```
pub fn split_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    for_each_word(text, |word| words.push(word.to_owned()));
    words
}

/// Calls `f` with each word of [`split_words`], reusing one buffer.
pub(crate) fn for_each_word(text: &str, mut f: impl FnMut(&str)) {
    let chars: Vec<char> = text.chars().collect();
    let mut word = String::new();
    let mut flush = |word: &mut String| {
        if !word.is_empty() {
            f(word);
            word.clear();
        }
    };
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            flush(&mut word);
            continue;
        }
        if let Some(&prev) = i.checked_sub(1).and_then(|p| chars.get(p)) {
            let next = chars.get(i + 1).copied();
            let boundary = (c.is_uppercase() && (prev.is_lowercase() || prev.is_ascii_digit()))
                || (c.is_uppercase()
                    && prev.is_uppercase()
                    && next.is_some_and(char::is_lowercase))
                || (c.is_ascii_digit() && prev.is_alphabetic())
                || (c.is_alphabetic() && prev.is_ascii_digit());
            if boundary && prev.is_alphanumeric() {
                flush(&mut word);
            }
        }
        word.extend(c.to_lowercase());
    }
    flush(&mut word);
}

/// Words too common in tool descriptions and requests to tell tools apart
/// (English function words). Kept short on purpose: inverse document
/// frequency already discounts the rest.
const STOP_WORDS: &[&str] = &[
    "a", "about", "an", "and", "any", "are", "as", "at", "be", "by", "can", "do", "for", "from",
    "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "our", "so",
    "that", "the", "their", "them", "then", "there", "these", "this", "those", "to", "us", "was",
    "we", "what", "when", "where", "which", "who", "will", "with", "you", "your",
];

/// Whether `word` (lower case) is a stop word.
pub(crate) fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.binary_search(&word).is_ok()
}

/// The search terms of `text`: [`split_words`], stop words dropped, each
/// word [`stem`]med. Order is kept; repeats are kept (they count).
///
/// ```
/// use registry_core::search::terms;
///
/// assert_eq!(terms("Lists the open pull requests"), ["list", "open", "pull", "request"]);
/// assert_eq!(terms("deleted_branches"), terms("delete a branch"));
/// ```
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_term(text, |term| out.push(term.to_owned()));
    out
}

/// Calls `f` with each term of [`terms`].
pub(crate) fn for_each_term(text: &str, mut f: impl FnMut(&str)) {
    for_each_word(text, |word| {
        if !is_stop_word(word) {
            f(&stem(word));
        }
    });
}

/// A light English stemmer: folds plurals, `-ing`, `-ed` and a final `e`,
/// so `issues`/`issue`, `deleting`/`deleted`/`delete` and
/// `branches`/`branch` meet. Words of four letters or fewer, and words
/// with digits, are kept whole (they are mostly names and acronyms).
///
/// ```
/// use registry_core::search::stem;
///
/// for (word, expected) in [
///     ("issues", "issu"), ("issue", "issu"), ("running", "run"), ("deleted", "delet"),
///     ("branches", "branch"), ("queries", "query"), ("status", "status"), ("logs", "log"),
/// ] {
///     assert_eq!(stem(word), expected, "{word}");
/// }
/// ```
pub fn stem(word: &str) -> String {
    let mut w: String = word.to_lowercase();
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
    fn splits_every_separator_and_case_change() {
        assert_eq!(
            split_words("get_file-contents"),
            ["get", "file", "contents"]
        );
        assert_eq!(split_words("mcp__x__y"), ["mcp", "x", "y"]);
        assert_eq!(split_words("getJSONResponse"), ["get", "json", "response"]);
        assert_eq!(split_words("oauth2Token"), ["oauth", "2", "token"]);
        assert_eq!(split_words("  "), Vec::<String>::new());
        assert_eq!(split_words("Ünïcode_Wörter"), ["ünïcode", "wörter"]);
    }

    #[test]
    fn stems_fold_inflections_together() {
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
}
