//! The inverted index over tool names, hints and descriptions, and the
//! ranking (BM25F with per-field weights, prefix matching of terms, a
//! name-coverage factor, and query expansion through a lexicon of
//! everyday words; see `rank`).
//!
//! Owns: documents by slot, postings per term sorted by slot, per-field
//! length statistics, the exact-name table. Updates are incremental: one
//! tool in or out costs work proportional to that tool's terms. Never
//! iterates a hash map to produce anything ordered: the term dictionary is
//! a `BTreeMap`, postings are sorted, and ties break by name.

use std::collections::{BTreeMap, HashMap};
use std::sync::{PoisonError, RwLock};

use super::fields::{FIELDS, Field, split_mcp_name};
use super::query::Query;
use super::tokenize::{Reading, for_each_join, for_each_term};
use crate::declare::definition::ToolSpec;

mod explain;
mod rank;

/// The text of one tool, as the index reads it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Document<'a> {
    /// The primary name.
    pub(crate) name: &'a str,
    /// Other names that resolve to the tool.
    pub(crate) aliases: &'a [String],
    /// The declared `search_hint`.
    pub(crate) hint: Option<&'a str>,
    /// The description.
    pub(crate) description: &'a str,
}

impl<'a> Document<'a> {
    /// The searched text of a tool.
    pub(crate) fn of(spec: &'a ToolSpec) -> Self {
        Document {
            name: spec.name(),
            aliases: spec.aliases(),
            hint: spec.search_hint(),
            description: spec.description(),
        }
    }
}

/// One indexed tool's place in the index. Slots of removed tools are
/// reused; a [`Membership`] tells a reused slot from the tool it had.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct DocId(u32);

impl DocId {
    pub(crate) fn slot(self) -> usize {
        self.0 as usize
    }
}

/// What a search reads of every candidate slot.
#[derive(Debug, Clone, Copy)]
struct SlotMeta {
    /// The index version the slot's tool was inserted at.
    born: u64,
    /// How many distinct words its own name has.
    name_terms: u16,
}

#[derive(Debug)]
struct Doc {
    name: Box<str>,
    aliases: Box<[Box<str>]>,
    server: Option<Box<str>>,
    /// The index version the tool was inserted at.
    born: u64,
    len: [u32; FIELDS],
    /// Distinct term ids, for removal.
    terms: Box<[u32]>,
}

#[derive(Debug, Clone, Copy)]
struct Posting {
    doc: u32,
    tf: [u16; FIELDS],
}

/// A tool the search returned.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SearchHit {
    /// The tool's primary name.
    pub(crate) name: String,
    /// The ranking score; higher is better. `0.0` for tools picked by
    /// name (`select:` or an exact name).
    pub(crate) score: f32,
    /// The tool's slot in the index.
    pub(crate) doc: DocId,
}

/// What a search found.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SearchResults {
    /// The tools, best first.
    pub(crate) hits: Vec<SearchHit>,
    /// Names of a `select:` query that no searchable tool answers to.
    pub(crate) unknown: Vec<String>,
}

/// Which indexed tools one search may return: the tools of one pool.
/// Tools indexed after it was made are outside it, so a reused slot never
/// lets another tool in.
#[derive(Debug, Clone, Default)]
pub(crate) struct Membership {
    bits: Vec<u64>,
    version: u64,
}

impl Membership {
    /// No tool at all.
    #[cfg(test)]
    pub(crate) fn empty() -> Self {
        Self::default()
    }

    fn insert(&mut self, doc: DocId) {
        let (word, bit) = (doc.0 as usize / 64, doc.0 % 64);
        if self.bits.len() <= word {
            self.bits.resize(word + 1, 0);
        }
        self.bits[word] |= 1 << bit;
    }

    fn has_bit(&self, doc: u32) -> bool {
        self.bits
            .get(doc as usize / 64)
            .is_some_and(|word| word & (1 << (doc % 64)) != 0)
    }

    /// Whether it admits no tool.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.bits.iter().all(|w| *w == 0)
    }
}

/// An inverted index of tools for [`Query`] search.
#[derive(Debug, Default)]
pub(crate) struct SearchIndex {
    dict: BTreeMap<Box<str>, u32>,
    postings: Vec<Vec<Posting>>,
    docs: Vec<Option<Doc>>,
    /// Per slot, the field lengths (zero for an empty slot): read for
    /// every posting a query scores, so kept dense.
    lens: Vec<[u32; FIELDS]>,
    /// Per slot, what the ranking reads for every candidate, dense for the
    /// same reason.
    meta: Vec<SlotMeta>,
    free: Vec<u32>,
    /// Primary names and aliases to slots (names before aliases).
    names: HashMap<Box<str>, Vec<u32>>,
    live: u32,
    total_len: [u64; FIELDS],
    version: u64,
    /// What searches derive from the index as it is now (see
    /// [`rank::Cache`]); every change empties it.
    cache: RwLock<rank::Cache>,
}

impl SearchIndex {
    /// An empty index.
    #[cfg(test)]
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// How many tools are indexed.
    pub(crate) fn len(&self) -> usize {
        self.live as usize
    }

    /// Indexes one tool; its cost is proportional to the tool's text.
    pub(crate) fn insert(&mut self, doc: Document<'_>) -> DocId {
        self.changed();
        let slot = match self.free.pop() {
            Some(slot) => slot,
            None => {
                self.docs.push(None);
                self.lens.push([0; FIELDS]);
                self.meta.push(SlotMeta {
                    born: u64::MAX,
                    name_terms: 0,
                });
                u32::try_from(self.docs.len() - 1).expect("fewer than 4 billion tools")
            }
        };
        let (server, own_name) = match split_mcp_name(doc.name) {
            Some((server, tool)) => (Some(server), tool),
            None => (None, doc.name),
        };
        // Term frequencies per field, in first-seen order for determinism.
        let mut counts: Vec<(u32, [u16; FIELDS])> = Vec::new();
        let mut positions: HashMap<u32, usize> = HashMap::new();
        let mut len = [0u32; FIELDS];
        // Adds one term; whether it is new to this tool.
        let mut add = |index: &mut Self, field: Field, term: &str| {
            let id = index.term_id(term);
            let mut new = false;
            let at = *positions.entry(id).or_insert_with(|| {
                new = true;
                counts.push((id, [0; FIELDS]));
                counts.len() - 1
            });
            let tf = &mut counts[at].1[field as usize];
            *tf = tf.saturating_add(1);
            len[field as usize] += 1;
            new
        };
        // The name's own words: what name coverage counts. Joined pairs
        // (`github` of `searchGitHub`) match, but are not words to cover.
        let mut own_words = 0usize;
        for_each_term(own_name, Reading::Identifier, |t| {
            own_words += usize::from(add(self, Field::Name, t));
        });
        for_each_join(own_name, |t| {
            add(self, Field::Name, t);
        });
        if let Some(server) = server {
            for_each_term(server, Reading::Identifier, |t| {
                add(self, Field::Server, t);
            });
            for_each_join(server, |t| {
                add(self, Field::Server, t);
            });
        }
        if let Some(hint) = doc.hint {
            for_each_term(hint, Reading::Prose, |t| {
                add(self, Field::Hint, t);
            });
        }
        for_each_term(doc.description, Reading::Prose, |t| {
            add(self, Field::Description, t);
        });

        for &(term, tf) in &counts {
            let list = &mut self.postings[term as usize];
            let at = list.partition_point(|p| p.doc < slot);
            list.insert(at, Posting { doc: slot, tf });
        }
        for (total, n) in self.total_len.iter_mut().zip(len) {
            *total += u64::from(n);
        }
        self.names.entry(doc.name.into()).or_default().push(slot);
        for alias in doc.aliases {
            self.names
                .entry(alias.as_str().into())
                .or_default()
                .push(slot);
        }
        self.lens[slot as usize] = len;
        self.meta[slot as usize] = SlotMeta {
            born: self.version,
            name_terms: u16::try_from(own_words).unwrap_or(u16::MAX),
        };
        self.docs[slot as usize] = Some(Doc {
            name: doc.name.into(),
            aliases: doc.aliases.iter().map(|a| a.as_str().into()).collect(),
            server: server.map(Into::into),
            born: self.version,
            len,
            terms: counts.iter().map(|(term, _)| *term).collect(),
        });
        self.live += 1;
        DocId(slot)
    }

    /// A new version: what searches derived from the old one is stale.
    fn changed(&mut self) {
        self.version += 1;
        self.cache
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }

    /// Removes one tool; its cost is proportional to the tool's terms.
    /// Returns `false` when the slot holds no tool.
    pub(crate) fn remove(&mut self, doc: DocId) -> bool {
        let Some(removed) = self.docs.get_mut(doc.0 as usize).and_then(Option::take) else {
            return false;
        };
        self.changed();
        for &term in &removed.terms {
            let list = &mut self.postings[term as usize];
            if let Ok(at) = list.binary_search_by_key(&doc.0, |p| p.doc) {
                list.remove(at);
            }
        }
        for (total, n) in self.total_len.iter_mut().zip(removed.len) {
            *total -= u64::from(n);
        }
        for name in std::iter::once(&removed.name).chain(removed.aliases.iter()) {
            if let Some(slots) = self.names.get_mut(name) {
                slots.retain(|s| *s != doc.0);
                if slots.is_empty() {
                    self.names.remove(name);
                }
            }
        }
        self.lens[doc.0 as usize] = [0; FIELDS];
        // An empty slot is in no membership, whatever bits say.
        self.meta[doc.0 as usize] = SlotMeta {
            born: u64::MAX,
            name_terms: 0,
        };
        self.free.push(doc.0);
        self.live -= 1;
        true
    }

    /// The primary name of the tool in an occupied slot (empty for an empty
    /// one).
    pub(crate) fn name_at(&self, slot: u32) -> &str {
        self.doc(slot).map_or("", |d| &d.name)
    }

    /// The slots of the tools whose primary name or alias is `name`.
    pub(crate) fn lookup(&self, name: &str) -> &[u32] {
        self.names.get(name).map_or(&[], Vec::as_slice)
    }

    /// The id of an occupied slot.
    pub(crate) fn doc_id(&self, slot: usize) -> Option<DocId> {
        let slot = u32::try_from(slot).ok()?;
        self.doc(slot).map(|_| DocId(slot))
    }

    /// A membership of exactly `docs` (tools indexed now).
    pub(crate) fn membership(&self, docs: impl IntoIterator<Item = DocId>) -> Membership {
        let mut members = Membership {
            bits: Vec::new(),
            version: self.version,
        };
        for doc in docs {
            if self.doc(doc.0).is_some() {
                members.insert(doc);
            }
        }
        members
    }

    /// A membership of every tool indexed now.
    #[cfg(test)]
    pub(crate) fn membership_of_all(&self) -> Membership {
        self.membership(
            (0..self.docs.len() as u32)
                .filter(|slot| self.docs[*slot as usize].is_some())
                .map(DocId),
        )
    }

    /// Runs `query` over the tools `members` admits, returning at most
    /// `max` of them, best first; ties break by name.
    pub(crate) fn search(&self, query: &Query, max: usize, members: &Membership) -> SearchResults {
        if let Some(names) = query.selected() {
            return self.select(names, max, members);
        }
        if let Some(name) = query.as_exact_name()
            && let Some(doc) = self.by_name(name, members)
        {
            return SearchResults {
                hits: vec![self.hit(doc, 0.0)],
                unknown: Vec::new(),
            };
        }
        let servers = query.servers();
        let admits = |slot: u32| self.admits(slot, members, servers);
        let required = query.required_terms();
        let terms: Vec<&str> = required
            .iter()
            .chain(query.optional_terms())
            .map(String::as_str)
            .collect();
        if terms.is_empty() {
            // A server prefix alone: that server's tools, by name.
            let mut hits: Vec<(f32, u32)> = (0..self.docs.len() as u32)
                .filter(|slot| admits(*slot))
                .map(|slot| (0.0, slot))
                .collect();
            return self.top(&mut hits, max);
        }
        let scores = self.score(&terms, required.len(), max, admits);
        let required_mask: u64 = (1u64 << required.len()) - 1;
        let mut hits: Vec<(f32, u32)> = scores
            .into_iter()
            .filter(|(_, _, mask)| mask & required_mask == required_mask)
            .map(|(slot, score, _)| (score, slot))
            .collect();
        self.top(&mut hits, max)
    }

    /// Whether `query` is answered by name, not by ranking: `select:`, a
    /// tool's exact name, or a server prefix with no words.
    pub(crate) fn answers_by_name(&self, query: &Query, members: &Membership) -> bool {
        query.selected().is_some()
            || query
                .as_exact_name()
                .is_some_and(|name| self.by_name(name, members).is_some())
            || (!query.servers().is_empty()
                && query.required_terms().is_empty()
                && query.optional_terms().is_empty())
    }

    /// The slots `query` may return by meaning: those `members` admits,
    /// within the query's server filter. (Required words are checked by
    /// the caller against the lexical answer.)
    pub(crate) fn admitted(&self, query: &Query, members: &Membership) -> Vec<u32> {
        let servers = query.servers();
        (0..self.docs.len() as u32)
            .filter(|&slot| self.admits(slot, members, servers))
            .collect()
    }

    /// Whether `members` admits the tool in `slot` and it is of one of
    /// `servers` (any server when empty). Dense reads first; a tool's own
    /// record only for a server filter.
    fn admits(&self, slot: u32, members: &Membership, servers: &[String]) -> bool {
        members.has_bit(slot)
            && self.meta[slot as usize].born <= members.version
            && (servers.is_empty()
                || self
                    .doc(slot)
                    .and_then(|doc| doc.server.as_deref())
                    .is_some_and(|s| servers.iter().any(|want| s.eq_ignore_ascii_case(want))))
    }

    /// The best `max` of `hits`: score descending, then name, then slot.
    fn top(&self, hits: &mut Vec<(f32, u32)>, max: usize) -> SearchResults {
        let by_rank = |a: &(f32, u32), b: &(f32, u32)| {
            b.0.total_cmp(&a.0)
                .then_with(|| {
                    self.docs[a.1 as usize]
                        .as_ref()
                        .map(|d| &d.name)
                        .cmp(&self.docs[b.1 as usize].as_ref().map(|d| &d.name))
                })
                .then_with(|| a.1.cmp(&b.1))
        };
        if max == 0 {
            hits.clear();
        } else if hits.len() > max {
            // Floats only to find the cut, since many tools may tie (the
            // same description on several servers); names break ties only
            // among the few at or above it.
            hits.select_nth_unstable_by(max - 1, |a, b| b.0.total_cmp(&a.0));
            let cut = hits[max - 1].0;
            hits.retain(|hit| hit.0.total_cmp(&cut).is_ge());
        }
        hits.sort_unstable_by(by_rank);
        hits.truncate(max);
        SearchResults {
            hits: hits
                .iter()
                .map(|&(score, slot)| self.hit(slot, score))
                .collect(),
            unknown: Vec::new(),
        }
    }

    fn select(&self, names: &[String], max: usize, members: &Membership) -> SearchResults {
        let mut results = SearchResults::default();
        let mut seen = Vec::new();
        for name in names {
            match self.by_name(name, members) {
                Some(slot) if !seen.contains(&slot) => {
                    seen.push(slot);
                    if results.hits.len() < max {
                        results.hits.push(self.hit(slot, 0.0));
                    }
                }
                Some(_) => {}
                None => results.unknown.push(name.clone()),
            }
        }
        results
    }

    /// The admitted tool whose primary name is `name`, else the one with
    /// that alias.
    fn by_name(&self, name: &str, members: &Membership) -> Option<u32> {
        let slots = self.names.get(name)?;
        let admitted = |slot: &&u32| {
            members.has_bit(**slot)
                && self
                    .doc(**slot)
                    .is_some_and(|doc| doc.born <= members.version)
        };
        slots
            .iter()
            .filter(admitted)
            .find(|slot| self.doc(**slot).is_some_and(|doc| &*doc.name == name))
            .or_else(|| slots.iter().find(admitted))
            .copied()
    }

    pub(crate) fn hit(&self, slot: u32, score: f32) -> SearchHit {
        SearchHit {
            name: self
                .doc(slot)
                .map(|d| d.name.to_string())
                .unwrap_or_default(),
            score,
            doc: DocId(slot),
        }
    }

    fn doc(&self, slot: u32) -> Option<&Doc> {
        self.docs.get(slot as usize).and_then(Option::as_ref)
    }

    fn term_id(&mut self, term: &str) -> u32 {
        if let Some(&id) = self.dict.get(term) {
            return id;
        }
        let id = u32::try_from(self.postings.len()).expect("fewer than 4 billion terms");
        self.postings.push(Vec::new());
        self.dict.insert(term.into(), id);
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc<'a>(name: &'a str, description: &'a str) -> Document<'a> {
        Document {
            name,
            aliases: &[],
            hint: None,
            description,
        }
    }

    fn names(results: &SearchResults) -> Vec<&str> {
        results.hits.iter().map(|h| h.name.as_str()).collect()
    }

    fn query(text: &str) -> Query {
        text.parse().unwrap()
    }

    #[test]
    fn descriptions_and_hints_find_tools_by_what_they_do() {
        let mut index = SearchIndex::new();
        let issue = index.insert(Document {
            name: "mcp__github__create_issue",
            aliases: &[],
            hint: None,
            description: "Create a new issue in a GitHub repository.",
        });
        index.insert(Document {
            name: "mcp__git__git_commit",
            aliases: &[],
            hint: Some("save staged changes"),
            description: "Records changes to the repository",
        });
        let all = index.membership_of_all();
        let found = index.search(&query("open a bug report issue"), 5, &all);
        assert_eq!(found.hits[0].name, "mcp__github__create_issue");
        assert_eq!(found.hits[0].doc, issue);
        let found = index.search(&query("save my staged work"), 5, &all);
        assert_eq!(found.hits[0].name, "mcp__git__git_commit");
    }

    #[test]
    fn a_longer_query_word_falls_back_to_a_bounded_prefix() {
        let mut index = SearchIndex::new();
        index.insert(doc("get_config", "Read the settings."));
        index.insert(doc("git_log", "Show commits."));
        let all = index.membership_of_all();
        assert_eq!(
            names(&index.search(&query("configurations"), 5, &all)),
            ["get_config"]
        );
        // Three letters are too few: `github` is not `git`.
        assert!(index.search(&query("github"), 5, &all).hits.is_empty());
        // A word of 200,000 characters is looked up at 61 prefixes at
        // most, not 200,000 prefixes counted anew each time.
        let long = format!("config{}", "x".repeat(200_000));
        assert_eq!(names(&index.search(&query(&long), 5, &all)), ["get_config"]);
        let past_the_bound = format!("{}config", "y".repeat(100));
        assert!(
            index
                .search(&query(&past_the_bound), 5, &all)
                .hits
                .is_empty()
        );
    }

    /// Name-part splitting applies to the query as to the names: a query
    /// spelled in camelCase, kebab-case or as one snake_case word finds
    /// the tool whose name has those parts (a spelling the issue did not
    /// list among its forms).
    #[test]
    fn a_query_spelled_like_an_identifier_finds_the_tool() {
        let mut index = SearchIndex::new();
        index.insert(doc(
            "mcp__gh__create_issue",
            "Open a ticket in a repository.",
        ));
        index.insert(doc("mcp__gh__list_issues", "List tickets in a repository."));
        index.insert(doc("mcp__fs__createDirectory", "Make a folder."));
        let all = index.membership_of_all();
        for text in ["createIssue", "create-issue", "create_issue", "CreateIssue"] {
            let found = index.search(&query(text), 5, &all);
            assert_eq!(
                names(&found).first(),
                Some(&"mcp__gh__create_issue"),
                "{text}"
            );
        }
        let found = index.search(&query("create directory"), 5, &all);
        assert_eq!(names(&found).first(), Some(&"mcp__fs__createDirectory"));
    }

    #[test]
    fn removal_takes_a_tool_out_of_every_form_of_search() {
        let mut index = SearchIndex::new();
        let a = index.insert(doc("mcp__x__alpha", "First tool."));
        index.insert(doc("mcp__x__beta", "Second tool."));
        assert!(index.remove(a));
        assert!(!index.remove(a), "a second removal finds nothing");
        let all = index.membership_of_all();
        assert_eq!(
            names(&index.search(&query("first tool"), 5, &all)),
            ["mcp__x__beta"]
        );
        assert_eq!(
            names(&index.search(&query("mcp__x"), 5, &all)),
            ["mcp__x__beta"]
        );
        assert!(
            index
                .search(&query("mcp__x__alpha"), 5, &all)
                .hits
                .is_empty()
        );
        let selected = index.search(&query("select:mcp__x__alpha"), 5, &all);
        assert_eq!(selected.unknown, ["mcp__x__alpha"]);
        assert_eq!(index.len(), 1);
    }

    #[test]
    fn a_reused_slot_stays_outside_older_memberships() {
        let mut index = SearchIndex::new();
        let a = index.insert(doc("mcp__x__alpha", "First tool."));
        let before = index.membership_of_all();
        index.remove(a);
        let c = index.insert(doc("mcp__x__gamma", "Third tool."));
        assert_eq!(c, a, "the slot is reused");
        assert!(
            index
                .search(&query("third tool"), 5, &before)
                .hits
                .is_empty()
        );
        assert!(index.search(&query("mcp__x"), 5, &before).hits.is_empty());
        assert!(
            index
                .search(&query("select:mcp__x__gamma"), 5, &before)
                .hits
                .is_empty()
        );
        let now = index.membership_of_all();
        assert_eq!(
            names(&index.search(&query("third tool"), 5, &now)),
            ["mcp__x__gamma"]
        );
    }

    #[test]
    fn an_index_built_in_any_order_ranks_the_same() {
        let tools = [
            ("mcp__gh__create_issue", "Create a new issue."),
            ("mcp__gh__list_issues", "List issues."),
            ("mcp__gh__close_issue", "Close an issue."),
            ("mcp__jira__create_ticket", "Create a new ticket."),
        ];
        let rank = |order: &[usize]| {
            let mut index = SearchIndex::new();
            for &i in order {
                index.insert(doc(tools[i].0, tools[i].1));
            }
            let all = index.membership_of_all();
            let found = index.search(&query("make a new issue"), 5, &all);
            found
                .hits
                .iter()
                .map(|h| (h.name.clone(), h.score))
                .collect::<Vec<_>>()
        };
        let first = rank(&[0, 1, 2, 3]);
        assert_eq!(first[0].0, "mcp__gh__create_issue");
        assert_eq!(rank(&[3, 2, 1, 0]), first);
        assert_eq!(rank(&[1, 3, 0, 2]), first);
    }

    #[test]
    fn a_request_in_other_words_finds_the_tool_through_the_lexicon() {
        // No tool says "make" or "erase": the lexicon's mates do the work,
        // and a mate counts less than the word itself.
        let tools = [
            ("create_label", "Create a label."),
            ("delete_label", "Delete a label."),
            ("archive_label", "Archive a label."),
            ("make_coffee", "Brew coffee."),
        ];
        let mut index = SearchIndex::new();
        for (name, description) in tools {
            index.insert(doc(name, description));
        }
        let all = index.membership_of_all();
        assert_eq!(
            names(&index.search(&query("make a new label"), 1, &all)),
            ["create_label"]
        );
        assert_eq!(
            names(&index.search(&query("erase a label"), 1, &all)),
            ["delete_label"]
        );
        // Without a mate the labels tie, and the name decides.
        assert_eq!(
            names(&index.search(&query("label"), 3, &all)),
            ["archive_label", "create_label", "delete_label"]
        );
        // The word itself outweighs its mate.
        assert_eq!(
            names(&index.search(&query("make"), 2, &all)),
            ["make_coffee", "create_label"]
        );
    }

    #[test]
    fn an_alias_selects_and_a_name_beats_an_alias() {
        let mut index = SearchIndex::new();
        let aliases = ["cat".to_owned()];
        index.insert(Document {
            name: "read_file",
            aliases: &aliases,
            hint: None,
            description: "Read a file.",
        });
        index.insert(doc("cat", "Show a cat picture."));
        let all = index.membership_of_all();
        assert_eq!(names(&index.search(&query("cat"), 5, &all)), ["cat"]);
        let mut only_reader = index.membership(index.lookup("read_file").iter().map(|s| DocId(*s)));
        assert_eq!(
            names(&index.search(&query("select:cat"), 5, &only_reader)),
            ["read_file"]
        );
        only_reader = Membership::empty();
        assert!(only_reader.is_empty());
        assert!(
            index
                .search(&query("read"), 5, &only_reader)
                .hits
                .is_empty()
        );
    }
}
