//! The inverted index over tool names, hints and descriptions, and the
//! ranking (BM25F with per-field weights, prefix matching of terms, and a
//! coverage factor).
//!
//! Owns: documents by slot, postings per term sorted by slot, per-field
//! length statistics, the exact-name table. Updates are incremental: one
//! tool in or out costs work proportional to that tool's terms. Never
//! iterates a hash map to produce anything ordered: the term dictionary is
//! a `BTreeMap`, postings are sorted, and ties break by name.

use std::collections::{BTreeMap, HashMap};

use super::fields::{FIELDS, Field, K1, LENGTH_NORM, WEIGHT, split_mcp_name};
use super::query::Query;
use super::tokenize::for_each_term;
use crate::definition::ToolSpec;

/// How a matched prefix of a term counts against an exact match
/// (`repo` against `repository`, `config` against `configuration`).
const PREFIX_WEIGHT: f32 = 0.5;
/// At most this many longer terms a query term expands to, in term order.
const MAX_PREFIX_EXPANSIONS: usize = 8;
/// Shortest query term that expands to longer terms, in characters.
const MIN_PREFIX_CHARS: usize = 3;
/// How much a query that names all of a tool's own name words is worth
/// over one that names none: the score is multiplied by
/// `1 + NAME_COVERAGE * (name words matched / name words)`, so
/// `list pull requests` prefers `list_pull_requests` to
/// `update_pull_request_state` even when the latter's description says
/// more about pull requests.
const NAME_COVERAGE: f32 = 0.5;
/// Query expansion from the catalog itself: a query word that tools use in
/// their descriptions also matches the name words those tools share
/// (`new` in "Create a new ..." → `create`), at this weight times how
/// often the two go together.
const EXPANSION_WEIGHT: f32 = 0.5;
/// At most this many name words one query word expands to.
const MAX_EXPANSIONS: usize = 3;
/// A name word must go with the query word in at least this many tools...
const MIN_SUPPORT: u32 = 2;
/// ...and this many times more often than it appears in names at all.
const MIN_LIFT: f32 = 2.0;
/// At most this many tools are read to find a word's companions (evenly
/// spread over its postings), so a common word stays cheap.
const EXPANSION_SAMPLE: usize = 512;

/// The text of one tool, as the index reads it.
#[derive(Debug, Clone, Copy)]
pub struct Document<'a> {
    /// The primary name.
    pub name: &'a str,
    /// Other names that resolve to the tool.
    pub aliases: &'a [String],
    /// The declared `search_hint`.
    pub hint: Option<&'a str>,
    /// The description.
    pub description: &'a str,
}

impl<'a> Document<'a> {
    /// The searched text of a tool.
    pub fn of(spec: &'a ToolSpec) -> Self {
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
pub struct DocId(u32);

impl DocId {
    pub(crate) fn slot(self) -> usize {
        self.0 as usize
    }
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
    /// Distinct term ids of the name field, for query expansion.
    name_terms: Box<[u32]>,
}

#[derive(Debug, Clone, Copy)]
struct Posting {
    doc: u32,
    tf: [u16; FIELDS],
}

/// A tool the search returned.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchHit {
    /// The tool's primary name.
    pub name: String,
    /// The ranking score; higher is better. `0.0` for tools picked by
    /// name (`select:` or an exact name).
    pub score: f32,
    /// The tool's slot in the index.
    pub doc: DocId,
}

/// What a search found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SearchResults {
    /// The tools, best first.
    pub hits: Vec<SearchHit>,
    /// Names of a `select:` query that no searchable tool answers to.
    pub unknown: Vec<String>,
}

/// Which indexed tools one search may return: the tools of one pool.
/// Tools indexed after it was made are outside it, so a reused slot never
/// lets another tool in.
#[derive(Debug, Clone, Default)]
pub struct Membership {
    bits: Vec<u64>,
    version: u64,
}

impl Membership {
    /// No tool at all.
    pub fn empty() -> Self {
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

    /// How many tools it admits.
    pub fn len(&self) -> usize {
        self.bits.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether it admits no tool.
    pub fn is_empty(&self) -> bool {
        self.bits.iter().all(|w| *w == 0)
    }
}

/// An inverted index of tools for [`Query`] search.
///
/// ```
/// use registry_core::search::{Document, SearchIndex};
///
/// let mut index = SearchIndex::new();
/// let issue = index.insert(Document {
///     name: "mcp__github__create_issue",
///     aliases: &[],
///     hint: None,
///     description: "Create a new issue in a GitHub repository.",
/// });
/// index.insert(Document {
///     name: "mcp__git__git_commit",
///     aliases: &[],
///     hint: Some("save staged changes"),
///     description: "Records changes to the repository",
/// });
/// let all = index.membership_of_all();
/// let found = index.search(&"open a bug report issue".parse().unwrap(), 5, &all);
/// assert_eq!(found.hits[0].name, "mcp__github__create_issue");
/// assert_eq!(found.hits[0].doc, issue);
/// let found = index.search(&"save my staged work".parse().unwrap(), 5, &all);
/// assert_eq!(found.hits[0].name, "mcp__git__git_commit");
/// ```
#[derive(Debug, Default)]
pub struct SearchIndex {
    dict: BTreeMap<Box<str>, u32>,
    postings: Vec<Vec<Posting>>,
    /// Per term id, its text.
    term_names: Vec<Box<str>>,
    /// Per term, how many tools have it in their name.
    name_df: Vec<u32>,
    docs: Vec<Option<Doc>>,
    free: Vec<u32>,
    /// Primary names and aliases to slots (names before aliases).
    names: HashMap<Box<str>, Vec<u32>>,
    live: u32,
    total_len: [u64; FIELDS],
    version: u64,
}

impl SearchIndex {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many tools are indexed.
    pub fn len(&self) -> usize {
        self.live as usize
    }

    /// Whether no tool is indexed.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Indexes one tool; its cost is proportional to the tool's text.
    pub fn insert(&mut self, doc: Document<'_>) -> DocId {
        self.version += 1;
        let slot = match self.free.pop() {
            Some(slot) => slot,
            None => {
                self.docs.push(None);
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
        let mut add = |index: &mut Self, field: Field, text: &str| {
            for_each_term(text, |term| {
                let id = index.term_id(term);
                let at = *positions.entry(id).or_insert_with(|| {
                    counts.push((id, [0; FIELDS]));
                    counts.len() - 1
                });
                let tf = &mut counts[at].1[field as usize];
                *tf = tf.saturating_add(1);
                len[field as usize] += 1;
            });
        };
        add(self, Field::Name, own_name);
        if let Some(server) = server {
            add(self, Field::Server, server);
        }
        if let Some(hint) = doc.hint {
            add(self, Field::Hint, hint);
        }
        add(self, Field::Description, doc.description);

        for &(term, tf) in &counts {
            let list = &mut self.postings[term as usize];
            let at = list.partition_point(|p| p.doc < slot);
            list.insert(at, Posting { doc: slot, tf });
            if tf[Field::Name as usize] > 0 {
                self.name_df[term as usize] += 1;
            }
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
        self.docs[slot as usize] = Some(Doc {
            name: doc.name.into(),
            aliases: doc.aliases.iter().map(|a| a.as_str().into()).collect(),
            server: server.map(Into::into),
            born: self.version,
            len,
            terms: counts.iter().map(|(term, _)| *term).collect(),
            name_terms: counts
                .iter()
                .filter(|(_, tf)| tf[Field::Name as usize] > 0)
                .map(|(term, _)| *term)
                .collect(),
        });
        self.live += 1;
        DocId(slot)
    }

    /// Removes one tool; its cost is proportional to the tool's terms.
    /// Returns `false` when the slot holds no tool.
    pub fn remove(&mut self, doc: DocId) -> bool {
        let Some(removed) = self.docs.get_mut(doc.0 as usize).and_then(Option::take) else {
            return false;
        };
        self.version += 1;
        for &term in &removed.name_terms {
            self.name_df[term as usize] -= 1;
        }
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
        self.free.push(doc.0);
        self.live -= 1;
        true
    }

    /// The primary name of an indexed tool.
    pub fn name(&self, doc: DocId) -> Option<&str> {
        self.doc(doc.0).map(|d| &*d.name)
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
    pub fn membership(&self, docs: impl IntoIterator<Item = DocId>) -> Membership {
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
    pub fn membership_of_all(&self) -> Membership {
        self.membership(
            (0..self.docs.len() as u32)
                .filter(|slot| self.docs[*slot as usize].is_some())
                .map(DocId),
        )
    }

    /// Runs `query` over the tools `members` admits, returning at most
    /// `max` of them, best first; ties break by name.
    pub fn search(&self, query: &Query, max: usize, members: &Membership) -> SearchResults {
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
        let admits = |slot: u32| {
            members.has_bit(slot)
                && self.doc(slot).is_some_and(|doc| {
                    doc.born <= members.version
                        && (servers.is_empty()
                            || doc.server.as_deref().is_some_and(|s| {
                                servers.iter().any(|want| s.eq_ignore_ascii_case(want))
                            }))
                })
        };
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
        let scores = self.score(&terms);
        let required_mask: u64 = (1u64 << required.len()) - 1;
        let mut hits: Vec<(f32, u32)> = scores
            .into_iter()
            .filter(|(slot, _, mask)| mask & required_mask == required_mask && admits(*slot))
            .map(|(slot, score, _)| (score, slot))
            .collect();
        self.top(&mut hits, max)
    }

    /// BM25F over `terms`: per touched slot, its score and which terms it
    /// matched (bit `i` for `terms[i]`).
    fn score(&self, terms: &[&str]) -> Vec<(u32, f32, u64)> {
        let n = self.live.max(1) as f32;
        let mut avg = [1.0f32; FIELDS];
        for (f, total) in self.total_len.iter().enumerate() {
            if *total > 0 {
                avg[f] = *total as f32 / n;
            }
        }
        let mut score = vec![0.0f32; self.docs.len()];
        let mut mask = vec![0u64; self.docs.len()];
        let mut best = vec![0.0f32; self.docs.len()];
        let mut name_hit = vec![false; self.docs.len()];
        let mut name_hits = vec![0u16; self.docs.len()];
        let mut touched: Vec<u32> = Vec::new();
        let mut term_touched: Vec<u32> = Vec::new();
        for (i, term) in terms.iter().enumerate() {
            for (id, weight) in self.variants(term) {
                let list = &self.postings[id as usize];
                if list.is_empty() {
                    continue;
                }
                let df = list.len() as f32;
                let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                for p in list {
                    let Some(doc) = self.doc(p.doc) else { continue };
                    let mut tf = 0.0f32;
                    for f in 0..FIELDS {
                        if p.tf[f] > 0 {
                            let norm =
                                1.0 - LENGTH_NORM[f] + LENGTH_NORM[f] * doc.len[f] as f32 / avg[f];
                            tf += WEIGHT[f] * f32::from(p.tf[f]) / norm;
                        }
                    }
                    let c = weight * idf * tf * (K1 + 1.0) / (K1 + tf);
                    if c <= 0.0 {
                        continue;
                    }
                    let slot = p.doc as usize;
                    if best[slot] == 0.0 {
                        term_touched.push(p.doc);
                    }
                    if c > best[slot] {
                        best[slot] = c;
                    }
                    if weight >= 1.0 && p.tf[Field::Name as usize] > 0 {
                        name_hit[slot] = true;
                    }
                }
            }
            for &slot in &term_touched {
                let s = slot as usize;
                if mask[s] == 0 {
                    touched.push(slot);
                }
                score[s] += best[s];
                mask[s] |= 1 << i;
                best[s] = 0.0;
                if std::mem::take(&mut name_hit[s]) {
                    name_hits[s] += 1;
                }
            }
            term_touched.clear();
        }
        touched
            .into_iter()
            .map(|slot| {
                let s = slot as usize;
                let names = self.doc(slot).map_or(1, |d| d.name_terms.len().max(1));
                let named = f32::from(name_hits[s]) / names as f32;
                (
                    slot,
                    score[s] * (1.0 + NAME_COVERAGE * named.min(1.0)),
                    mask[s],
                )
            })
            .collect()
    }

    /// The index terms a query term matches, with how much each counts:
    /// the term itself; longer terms it begins (`repo` → `repository`);
    /// and the longest shorter term that begins it (`configuration` →
    /// `config`). Prefixes count [`PREFIX_WEIGHT`].
    fn variants(&self, term: &str) -> Vec<(u32, f32)> {
        let mut out = Vec::new();
        if let Some(&id) = self.dict.get(term) {
            out.push((id, 1.0));
            out.extend(self.companions(id));
        }
        let chars = term.chars().count();
        if chars < MIN_PREFIX_CHARS {
            return out;
        }
        out.extend(
            self.dict
                .range::<str, _>((std::ops::Bound::Excluded(term), std::ops::Bound::Unbounded))
                .take_while(|(t, _)| t.starts_with(term))
                .filter(|(_, id)| !self.postings[**id as usize].is_empty())
                .take(MAX_PREFIX_EXPANSIONS)
                .map(|(_, id)| (*id, PREFIX_WEIGHT)),
        );
        if let Some(id) = term
            .char_indices()
            .map(|(at, _)| at)
            .filter(|at| term[..*at].chars().count() >= MIN_PREFIX_CHARS)
            .rev()
            .find_map(|at| {
                self.dict
                    .get(&term[..at])
                    .filter(|id| !self.postings[**id as usize].is_empty())
            })
        {
            out.push((*id, PREFIX_WEIGHT));
        }
        out
    }

    /// The name words that go with `term` where tools describe themselves:
    /// among the tools whose description or hint has `term`, the name
    /// words they share far more often than names in general do. A
    /// statistic of the catalog, so it follows whatever vocabulary the
    /// catalog has, and needs no word list.
    fn companions(&self, term: u32) -> Vec<(u32, f32)> {
        let text =
            |p: &&Posting| p.tf[Field::Description as usize] > 0 || p.tf[Field::Hint as usize] > 0;
        let with_term: Vec<&Posting> = self.postings[term as usize].iter().filter(text).collect();
        let support = with_term.len();
        if support < MIN_SUPPORT as usize {
            return Vec::new();
        }
        let step = support.div_ceil(EXPANSION_SAMPLE);
        let sampled = support.div_ceil(step) as f32;
        let mut counts: HashMap<u32, u32> = HashMap::new();
        for p in with_term.iter().step_by(step) {
            if let Some(doc) = self.doc(p.doc) {
                for &name_term in doc.name_terms.iter().filter(|t| **t != term) {
                    *counts.entry(name_term).or_default() += 1;
                }
            }
        }
        let live = self.live.max(1) as f32;
        let mut scored: Vec<(f32, u32, f32)> = counts
            .into_iter()
            .filter(|(_, count)| *count >= MIN_SUPPORT)
            .filter_map(|(name_term, count)| {
                let together = count as f32 / sampled;
                let base = self.name_df[name_term as usize].max(1) as f32 / live;
                let lift = together / base;
                (lift >= MIN_LIFT).then(|| (count as f32 * lift.ln(), name_term, together))
            })
            .collect();
        // Hash order never leaks: sorted by strength, then by term text.
        scored.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then_with(|| self.term_text(a.1).cmp(self.term_text(b.1)))
        });
        scored
            .into_iter()
            .take(MAX_EXPANSIONS)
            .map(|(_, name_term, together)| (name_term, EXPANSION_WEIGHT * together))
            .collect()
    }

    fn term_text(&self, id: u32) -> &str {
        &self.term_names[id as usize]
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
        if hits.len() > max && max > 0 {
            hits.select_nth_unstable_by(max - 1, by_rank);
        }
        hits.truncate(max);
        hits.sort_unstable_by(by_rank);
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

    fn hit(&self, slot: u32, score: f32) -> SearchHit {
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
        self.name_df.push(0);
        self.term_names.push(term.into());
        self.dict.insert(term.into(), id);
        id
    }
}
