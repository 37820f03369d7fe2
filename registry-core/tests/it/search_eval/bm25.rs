//! The baseline the ranking is measured against: plain BM25 (k1 = 1.2,
//! b = 0.75) over one bag of words per tool: its name split into its
//! parts as an identifier (what any code search does), and its description
//! lower-cased and split at every character that is not a letter or digit
//! (the standard analyser); no stemming, no stop words, no field weights,
//! no prefix matching. The query is read like a description.

use std::collections::HashMap;

/// Lower-case words split at every non-alphanumeric character.
fn plain_words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

pub struct Bm25 {
    docs: Vec<(String, HashMap<String, u32>, u32)>,
    df: HashMap<String, u32>,
    avg_len: f32,
}

impl Bm25 {
    pub fn new<'a>(tools: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut docs = Vec::new();
        let mut df: HashMap<String, u32> = HashMap::new();
        for (name, text) in tools {
            let mut tf: HashMap<String, u32> = HashMap::new();
            let words = split_name(name).into_iter().chain(plain_words(text));
            let mut len = 0;
            for word in words {
                *tf.entry(word).or_default() += 1;
                len += 1;
            }
            for word in tf.keys() {
                *df.entry(word.clone()).or_default() += 1;
            }
            docs.push((name.to_owned(), tf, len));
        }
        let avg_len = docs.iter().map(|d| d.2 as f32).sum::<f32>() / docs.len().max(1) as f32;
        Bm25 { docs, df, avg_len }
    }

    /// The baseline over an evaluation's tools.
    pub fn over(tools: &[crate::harness::EvalTool]) -> Self {
        Self::new(
            tools
                .iter()
                .map(|t| (t.name.as_str(), t.description.as_str())),
        )
    }

    /// The names of the best `k` tools, ties by name.
    pub fn search(&self, query: &str, k: usize) -> Vec<String> {
        let (k1, b) = (1.2f32, 0.75f32);
        let n = self.docs.len() as f32;
        let mut words: Vec<String> = plain_words(query).collect();
        words.sort();
        words.dedup();
        let mut scored: Vec<(f32, &str)> = self
            .docs
            .iter()
            .map(|(name, tf, len)| {
                let score = words
                    .iter()
                    .filter_map(|w| {
                        let f = *tf.get(w)? as f32;
                        let df = self.df[w] as f32;
                        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                        Some(
                            idf * f * (k1 + 1.0)
                                / (f + k1 * (1.0 - b + b * *len as f32 / self.avg_len)),
                        )
                    })
                    .sum::<f32>();
                (score, name.as_str())
            })
            .filter(|(score, _)| *score > 0.0)
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        scored
            .into_iter()
            .take(k)
            .map(|(_, name)| name.to_owned())
            .collect()
    }
}

/// A name's parts as registry-core's tokenizer reads an identifier, a copy
/// kept here so the baseline needs no private part of the crate: split at
/// every character that is not a letter or digit, between a lower-case
/// letter or digit and a capital (`listIssues`), and before the last
/// capital of a run followed by a lower-case letter (`HTTPServer`), a
/// plural acronym losing its `s` (`PRs`); lower-cased.
fn split_name(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    for chunk in name.split(|c: char| !c.is_alphanumeric()) {
        if chunk.is_empty() {
            continue;
        }
        if let Some(acronym) = plural_acronym(chunk) {
            words.push(lower(acronym));
            continue;
        }
        let chars: Vec<char> = chunk.chars().collect();
        let mut emit = |from: usize, to: usize| {
            let piece: String = chars[from..to].iter().collect();
            words.push(lower(plural_acronym(&piece).unwrap_or(&piece)));
        };
        let mut start = 0;
        for i in 1..chars.len() {
            let (prev, c, next) = (chars[i - 1], chars[i], chars.get(i + 1).copied());
            let after = chars.get(i + 2).copied();
            let plural_s = next == Some('s') && !after.is_some_and(char::is_lowercase);
            let boundary = (c.is_uppercase() && (prev.is_lowercase() || prev.is_ascii_digit()))
                || (c.is_uppercase()
                    && prev.is_uppercase()
                    && next.is_some_and(char::is_lowercase)
                    && !plural_s);
            if boundary {
                emit(start, i);
                start = i;
            }
        }
        emit(start, chars.len());
    }
    words
}

/// Lower case, letter by letter (as the index lower-cases).
fn lower(word: &str) -> String {
    word.chars().flat_map(char::to_lowercase).collect()
}

/// `PRs`, `APIs`, `URLs`: two or more capitals and a plural `s`; the
/// acronym without it.
fn plural_acronym(word: &str) -> Option<&str> {
    let stem = word.strip_suffix('s')?;
    (stem.chars().count() >= 2 && stem.chars().all(char::is_uppercase)).then_some(stem)
}

#[test]
fn names_split_as_the_index_splits_them() {
    // The cases registry-core's own tokenizer tests.
    assert_eq!(
        split_name("mcp__github__listPullRequests"),
        ["mcp", "github", "list", "pull", "requests"]
    );
    assert_eq!(split_name("HTTPServer-v2"), ["http", "server", "v2"]);
    assert_eq!(split_name("getGitHubPRs"), ["get", "git", "hub", "pr"]);
    assert_eq!(split_name("get_file-contents"), ["get", "file", "contents"]);
    assert_eq!(split_name("getJSONResponse"), ["get", "json", "response"]);
    assert_eq!(split_name("oauth2Token"), ["oauth2", "token"]);
    assert_eq!(split_name("list-prs"), ["list", "prs"]);
    assert_eq!(split_name("ListPRsForUser"), ["list", "pr", "for", "user"]);
    assert_eq!(split_name("HTTPSServer"), ["https", "server"]);
    assert_eq!(split_name("  "), Vec::<String>::new());
    assert_eq!(split_name("Ünïcode_Wörter"), ["ünïcode", "wörter"]);
}
