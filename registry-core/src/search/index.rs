//! The inverted index over tool names, hints and descriptions, and the
//! ranking (BM25F with per-field weights, prefix matching of terms, a
//! name-coverage factor, and query expansion from the catalog's own
//! co-occurrence of description words with name words).
//!
//! Owns: documents by slot, postings per term sorted by slot, per-field
//! length statistics, the exact-name table. Updates are incremental: one
//! tool in or out costs work proportional to that tool's terms. Never
//! iterates a hash map to produce anything ordered: the term dictionary is
//! a `BTreeMap`, postings are sorted, and ties break by name.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, PoisonError};

use super::fields::{FIELDS, Field, K1, LENGTH_NORM, WEIGHT, split_mcp_name};
use super::query::Query;
use super::tokenize::{Reading, for_each_join, for_each_term};
use crate::declare::definition::ToolSpec;

/// How a matched prefix of a term counts against an exact match
/// (`repo` against `repository`, `config` against `configuration`).
const PREFIX_WEIGHT: f32 = 0.5;
/// At most this many longer terms a query term expands to, in term order.
const MAX_PREFIX_EXPANSIONS: usize = 8;
/// Shortest query term that expands to longer terms, in characters.
const MIN_PREFIX_CHARS: usize = 3;
/// Shortest index term a longer query term falls back to, in characters
/// (`configuration` → `config`, `authentication` → `auth`): longer than
/// [`MIN_PREFIX_CHARS`], because a three-letter start of a whole word is
/// mostly another word (`github` is not `git`, `sqlite` is not `sql`).
const MIN_FALLBACK_CHARS: usize = 4;
/// Longest prefix a longer query term falls back to, in characters: no
/// word of a tool's text is longer in practice, and a query word of a
/// million characters must cost no more than one of a hundred.
const MAX_FALLBACK_CHARS: usize = 64;
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
const EXPANSION_SAMPLE: usize = 128;

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

/// A term's companions (name term, weight), with the index version they
/// were computed at.
type CachedCompanions = (u64, Vec<(u32, f32)>);

/// An index term one query term matches, and how much a match counts.
#[derive(Debug, Clone, Copy)]
struct Variant {
    term: u32,
    weight: f32,
    /// A companion (query expansion): matched against names only.
    names_only: bool,
}

impl Variant {
    fn full(term: u32, weight: f32) -> Self {
        Variant {
            term,
            weight,
            names_only: false,
        }
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

/// Per-slot accumulators of one search, kept per thread so a query
/// allocates nothing in proportion to the index; only the slots a query
/// touched are reset after it.
#[derive(Default)]
struct Scratch {
    score: Vec<f32>,
    mask: Vec<u64>,
    best: Vec<f32>,
    name_hit: Vec<bool>,
    name_hits: Vec<u16>,
    touched: Vec<u32>,
    term_touched: Vec<u32>,
}

impl Scratch {
    fn fit(&mut self, slots: usize) {
        if self.score.len() < slots {
            self.score.resize(slots, 0.0);
            self.mask.resize(slots, 0);
            self.best.resize(slots, 0.0);
            self.name_hit.resize(slots, false);
            self.name_hits.resize(slots, 0);
        }
    }

    fn clear(&mut self) {
        for &slot in &self.touched {
            let d = slot as usize;
            self.score[d] = 0.0;
            self.mask[d] = 0;
            self.name_hits[d] = 0;
        }
        self.touched.clear();
    }
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
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
    /// Per term id, its text.
    term_names: Vec<Box<str>>,
    /// Per term, the slots whose name has it, sorted: what a companion
    /// term (query expansion) is matched against.
    name_postings: Vec<Vec<u32>>,
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
    /// Each term's companions as computed at an index version: reading
    /// sampled tools' names is most of a query's cost, and the answer only
    /// changes when the index does. Stale entries are recomputed on use.
    companion_cache: Mutex<HashMap<u32, CachedCompanions>>,
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
        self.version += 1;
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
            if tf[Field::Name as usize] > 0 {
                let names = &mut self.name_postings[term as usize];
                let at = names.partition_point(|s| *s < slot);
                names.insert(at, slot);
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
    pub(crate) fn remove(&mut self, doc: DocId) -> bool {
        let Some(removed) = self.docs.get_mut(doc.0 as usize).and_then(Option::take) else {
            return false;
        };
        self.version += 1;
        for &term in &removed.name_terms {
            let names = &mut self.name_postings[term as usize];
            if let Ok(at) = names.binary_search(&doc.0) {
                names.remove(at);
            }
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
        let scores = self.score(&terms);
        let required_mask: u64 = (1u64 << required.len()) - 1;
        let mut hits: Vec<(f32, u32)> = scores
            .into_iter()
            .filter(|(slot, _, mask)| mask & required_mask == required_mask && admits(*slot))
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

    /// BM25F over `terms`: per touched slot, its score and which terms it
    /// matched (bit `i` for `terms[i]`).
    fn score(&self, terms: &[&str]) -> Vec<(u32, f32, u64)> {
        SCRATCH.with_borrow_mut(|scratch| {
            scratch.fit(self.docs.len());
            let out = self.score_into(terms, scratch);
            scratch.clear();
            out
        })
    }

    fn score_into(&self, terms: &[&str], s: &mut Scratch) -> Vec<(u32, f32, u64)> {
        let n = self.live.max(1) as f32;
        let mut avg = [1.0f32; FIELDS];
        for (f, total) in self.total_len.iter().enumerate() {
            if *total > 0 {
                avg[f] = *total as f32 / n;
            }
        }
        for (i, term) in terms.iter().enumerate() {
            for Variant {
                term: id,
                weight,
                names_only: name_only,
            } in self.variants(term)
            {
                let df = if name_only {
                    self.name_postings[id as usize].len()
                } else {
                    self.postings[id as usize].len()
                };
                if df == 0 {
                    continue;
                }
                let idf = (1.0 + (n - df as f32 + 0.5) / (df as f32 + 0.5)).ln();
                // A posting's contribution to its slot's best for this term.
                let visit = |s: &mut Scratch, slot: u32, tf_of: [u16; FIELDS]| {
                    let d = slot as usize;
                    let len = &self.lens[d];
                    let mut tf = 0.0f32;
                    for f in 0..FIELDS {
                        if tf_of[f] > 0 {
                            let norm =
                                1.0 - LENGTH_NORM[f] + LENGTH_NORM[f] * len[f] as f32 / avg[f];
                            tf += WEIGHT[f] * f32::from(tf_of[f]) / norm;
                        }
                    }
                    let c = weight * idf * tf * (K1 + 1.0) / (K1 + tf);
                    if c <= 0.0 {
                        return;
                    }
                    if s.best[d] == 0.0 {
                        s.term_touched.push(slot);
                    }
                    if c > s.best[d] {
                        s.best[d] = c;
                    }
                    if weight >= 1.0 && tf_of[Field::Name as usize] > 0 {
                        s.name_hit[d] = true;
                    }
                };
                // A companion matches names only, once.
                let mut name_tf = [0u16; FIELDS];
                name_tf[Field::Name as usize] = 1;
                if name_only {
                    for &slot in &self.name_postings[id as usize] {
                        visit(s, slot, name_tf);
                    }
                } else {
                    for p in &self.postings[id as usize] {
                        visit(s, p.doc, p.tf);
                    }
                }
            }
            for &slot in &s.term_touched {
                let d = slot as usize;
                if s.mask[d] == 0 {
                    s.touched.push(slot);
                }
                s.score[d] += s.best[d];
                s.mask[d] |= 1 << i;
                s.best[d] = 0.0;
                if std::mem::take(&mut s.name_hit[d]) {
                    s.name_hits[d] += 1;
                }
            }
            s.term_touched.clear();
        }
        s.touched
            .iter()
            .map(|&slot| {
                let d = slot as usize;
                let named = self.name_coverage(slot, s.name_hits[d]);
                (slot, s.score[d] * (1.0 + NAME_COVERAGE * named), s.mask[d])
            })
            .collect()
    }

    /// How much of a tool's own name the query named, from 0 to 1: the
    /// share of its name words matched, and one word alone covers at most
    /// half, so a query sharing one generic word with a two-word name
    /// (`git_show`, `wait_for`) is not taken for naming it.
    fn name_coverage(&self, slot: u32, matched: u16) -> f32 {
        let own = self.meta[slot as usize].name_terms.max(1);
        let single = if matched < 2 && own > 1 { 0.5 } else { 1.0 };
        (f32::from(matched) / f32::from(own)).min(1.0) * single
    }

    /// The index terms a query term matches, with how much each counts:
    /// the term itself; longer terms it begins (`repo` → `repository`);
    /// and the longest shorter term that begins it (`configuration` →
    /// `config`). Prefixes count [`PREFIX_WEIGHT`].
    fn variants(&self, term: &str) -> Vec<Variant> {
        let mut out = Vec::new();
        if let Some(&id) = self.dict.get(term) {
            out.push(Variant::full(id, 1.0));
            out.extend(
                self.cached_companions(id)
                    .into_iter()
                    .map(|(term, weight)| Variant {
                        term,
                        weight,
                        names_only: true,
                    }),
            );
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
                .map(|(_, id)| Variant::full(*id, PREFIX_WEIGHT)),
        );
        // Prefixes of MIN_FALLBACK_CHARS to MAX_FALLBACK_CHARS characters,
        // longest first: a bounded number of bounded lookups, however long
        // the word (counting each prefix's characters anew was quadratic).
        if let Some(id) = term
            .char_indices()
            .map(|(at, _)| at)
            .enumerate()
            .skip(MIN_FALLBACK_CHARS)
            .take(MAX_FALLBACK_CHARS + 1 - MIN_FALLBACK_CHARS)
            .map(|(_, at)| at)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .find_map(|at| {
                self.dict
                    .get(&term[..at])
                    .filter(|id| !self.postings[**id as usize].is_empty())
            })
        {
            out.push(Variant::full(*id, PREFIX_WEIGHT));
        }
        out
    }

    /// [`companions`](Self::companions), from the cache when the index has
    /// not changed since.
    fn cached_companions(&self, term: u32) -> Vec<(u32, f32)> {
        // The cache only ever holds complete answers, so a poisoned lock
        // is still consistent.
        let lock = || {
            self.companion_cache
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
        };
        if let Some((version, companions)) = lock().get(&term)
            && *version == self.version
        {
            return companions.clone();
        }
        let companions = self.companions(term);
        lock().insert(term, (self.version, companions.clone()));
        companions
    }

    /// The name words that go with `term` where tools describe themselves:
    /// among the tools whose description or hint has `term`, the name
    /// words they share far more often than names in general do. A
    /// statistic of the catalog, so it follows whatever vocabulary the
    /// catalog has, and needs no word list.
    fn companions(&self, term: u32) -> Vec<(u32, f32)> {
        let text =
            |p: &&Posting| p.tf[Field::Description as usize] > 0 || p.tf[Field::Hint as usize] > 0;
        let with_term = || self.postings[term as usize].iter().filter(text);
        let support = with_term().count();
        if support < MIN_SUPPORT as usize {
            return Vec::new();
        }
        let step = support.div_ceil(EXPANSION_SAMPLE);
        let sampled = support.div_ceil(step) as f32;
        let mut counts: HashMap<u32, u32> = HashMap::new();
        for p in with_term().step_by(step) {
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
                let base = self.name_postings[name_term as usize].len().max(1) as f32 / live;
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
        self.name_postings.push(Vec::new());
        self.term_names.push(term.into());
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
    fn a_description_word_expands_to_the_name_word_it_goes_with() {
        // "new" is said only by creating tools' descriptions, so a query
        // for a "new label" prefers the tool *named* create, whose own
        // description never says "new". No word list involved.
        let tools = [
            ("create_issue", "Create a new issue."),
            ("create_branch", "Create a new branch."),
            ("create_label", "Create a label."),
            ("archive_label", "Archive a label."),
            ("list_repos", "List repositories."),
            ("get_user", "Get a user."),
            ("search_code", "Search code."),
            ("merge_pr", "Merge a pull request."),
        ];
        let mut index = SearchIndex::new();
        let ids: Vec<DocId> = tools
            .iter()
            .map(|(name, description)| index.insert(doc(name, description)))
            .collect();
        let all = index.membership_of_all();
        assert_eq!(
            names(&index.search(&query("new label"), 2, &all)),
            ["create_label", "archive_label"]
        );
        // Without the companion, the two would tie and the name would
        // decide the other way.
        assert_eq!(
            names(&index.search(&query("label"), 2, &all)),
            ["archive_label", "create_label"]
        );
        // Statistics follow the catalog: once the tools that said "new"
        // are gone, the (cached) expansion is gone too.
        index.remove(ids[0]);
        index.remove(ids[1]);
        let now = index.membership_of_all();
        assert_eq!(
            names(&index.search(&query("new label"), 2, &now)),
            ["archive_label", "create_label"]
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
