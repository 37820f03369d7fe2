//! The ranking: BM25F over the index's fields, each query word matched
//! through its variants (itself, words it begins or that begin it, its
//! lexicon mates), and a name-coverage factor.
//!
//! Owns: the per-query scratch space, the variants of a query term, the
//! cache of what a search derives from an unchanged index, and the
//! pruning that reads only the postings that can change the best results.
//! Never does: change the index, or let hash order reach a ranking.

use std::collections::HashMap;
use std::sync::PoisonError;

use super::super::fields::{FIELDS, Field, K1, LENGTH_NORM, WEIGHT};
use super::super::lexicon;
use super::{Posting, SearchIndex};

/// How a matched prefix of a term counts against an exact match
/// (`repo` against `repository`, `config` against `configuration`).
const PREFIX_WEIGHT: f32 = 0.5;
/// At most this many longer terms a query term expands to, in term order.
const MAX_PREFIX_EXPANSIONS: usize = 8;
/// Shortest query term that expands to longer terms, in characters.
const MIN_PREFIX_CHARS: usize = 4;
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
/// How much a match of a query word's lexicon mate counts against a match
/// of the word itself (`make` finding `create`): a mate is evidence, but a
/// weaker one, since mates are near in meaning, not equal in every use.
const RELATED_WEIGHT: f32 = 0.6;

/// An index term one query term matches, and how much a match counts.
#[derive(Debug, Clone, Copy)]
pub(super) struct Variant {
    pub(super) term: u32,
    pub(super) weight: f32,
    pub(super) kind: MatchKind,
}

/// How a variant matches its query term (for explaining a ranking).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum MatchKind {
    /// The term itself.
    Exact,
    /// A lexicon mate.
    Related,
    /// A longer term it begins, or a shorter one that begins it.
    Prefix,
}

impl MatchKind {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            MatchKind::Exact => "exact",
            MatchKind::Related => "related",
            MatchKind::Prefix => "prefix",
        }
    }
}

/// How much a bound on a list's contributions is raised over the value
/// computed for it: a contribution has its term frequency above and below
/// the line, so float rounding alone must never take it over its bound.
const BOUND_SLACK: f32 = 1.001;
/// Most query words the cache keeps resolved; past it, it starts over (a
/// stream of words never seen twice must not grow it without end).
const MAX_CACHED_WORDS: usize = 4096;
/// Up to this many results, a search keeps the best scores in order as it
/// goes and prunes by them; past it, it reads every list whole.
const FEW: usize = 16;
/// A list at most this many times longer than the candidates is walked
/// for them; a longer one is searched for each (a walk step costs a
/// fraction of a seek's).
const WALK_RATIO: usize = 8;

/// What the ranking derives from the index and reuses while the index is
/// unchanged: each query word's variants with their idf and bound, and
/// each of their postings' [`field_tf`](SearchIndex::field_tf). Emptied by
/// every insert and removal, since the average lengths, the idfs and the
/// live terms change with them. Its term frequencies are at most one per
/// posting of the index.
#[derive(Debug, Default)]
pub(super) struct Cache {
    /// Per query word, what it matches.
    words: HashMap<Box<str>, Word>,
    /// Per term read so far, its place in `tfs`.
    tf_at: HashMap<u32, usize>,
    /// Per term read so far, its postings' term frequencies, in posting
    /// order: a search reads them instead of working them out per field.
    tfs: Vec<Box<[f32]>>,
}

impl Cache {
    /// Forgets everything (the index changed).
    pub(super) fn clear(&mut self) {
        self.words.clear();
        self.tf_at.clear();
        self.tfs.clear();
    }
}

/// One query word resolved against the index.
#[derive(Debug)]
struct Word {
    /// The word's own term, live or not: another query word's variant that
    /// is this term is counted for this word, not for that one.
    id: Option<u32>,
    /// Its variants, each term once (its first occurrence).
    variants: Box<[Scored]>,
}

/// A variant with the constants of its contributions.
#[derive(Debug, Clone, Copy)]
struct Scored {
    variant: Variant,
    /// Its idf, capped at the typed word's.
    idf: f32,
    /// No posting of it contributes more.
    bound: f32,
    /// Its term frequencies' place in [`Cache::tfs`].
    tfs: usize,
}

/// A posting list one search reads: a variant of query word `word`.
#[derive(Debug, Clone, Copy)]
struct List {
    word: usize,
    scored: Scored,
}

/// Per-search working space, kept per thread so a query allocates nothing
/// in proportion to the index; only what a query touched is reset after
/// it. Each touched tool has a row, in the order of first touch; per row
/// and query word (row major), the best contribution of the word's
/// variants (a word counts once, through its best variant) and the weight
/// of its best variant that is in the tool's name.
#[derive(Default)]
struct Scratch {
    /// Per slot, its row, or [`UNTOUCHED`].
    row_of: Vec<u32>,
    /// Per row, its slot; sized past the index, `rows` of them used, so a
    /// first touch is recorded without a branch.
    slots: Vec<u32>,
    rows: usize,
    /// Query words of the current search.
    words: usize,
    /// Zero past the used rows.
    best: Vec<f32>,
    /// Zero past the used rows.
    named: Vec<f32>,
    lists: Vec<List>,
    /// Per list `k`, the bound on what lists `k..` add to the score of a
    /// tool: per word, its largest unread bound, summed.
    rest: Vec<f32>,
    /// Per query word, the bound of its unread lists.
    unread: Vec<f32>,
    /// The best scores so far, best first.
    top: Vec<f32>,
    /// The rows that may still be among the best.
    candidates: Vec<u32>,
    /// Per row, whether it is a candidate.
    chosen: Vec<bool>,
    /// Whether the candidates are in slot order.
    sorted: bool,
}

/// A slot no posting of the current search has touched.
const UNTOUCHED: u32 = u32::MAX;

impl Scratch {
    fn start(&mut self, slots: usize, words: usize) {
        if self.row_of.len() < slots {
            self.row_of.resize(slots, UNTOUCHED);
            // One past the last row: `add` writes there before it knows
            // whether the row is new.
            self.slots.resize(slots + 1, 0);
        }
        self.words = words;
    }

    fn clear(&mut self) {
        for &slot in &self.slots[..self.rows] {
            self.row_of[slot as usize] = UNTOUCHED;
        }
        let used = self.rows * self.words;
        self.best[..used].fill(0.0);
        self.named[..used].fill(0.0);
        self.rows = 0;
        self.lists.clear();
        self.candidates.clear();
        self.chosen.clear();
        self.sorted = false;
    }

    /// Makes room for `more` new rows.
    fn reserve(&mut self, more: usize) {
        let need = (self.rows + more) * self.words;
        if self.best.len() < need {
            let len = need.max(2 * self.best.len());
            self.best.resize(len, 0.0);
            self.named.resize(len, 0.0);
        }
    }

    /// Counts contribution `c` to word `word` of the tool in `slot` (a
    /// row made on its first touch, room [reserved](Self::reserve)), of a
    /// variant of `weight`, `in_name` when the tool's name has it.
    /// Branch-free, as which tools a list touches first is unpredictable.
    #[inline]
    fn add(&mut self, slot: u32, word: usize, c: f32, weight: f32, in_name: bool) {
        let known = self.row_of[slot as usize];
        let fresh = known == UNTOUCHED;
        let row = if fresh { self.rows as u32 } else { known };
        self.row_of[slot as usize] = row;
        self.slots[self.rows] = slot;
        self.rows += usize::from(fresh);
        let at = row as usize * self.words + word;
        self.best[at] = self.best[at].max(c);
        self.named[at] = self.named[at].max(if in_name { weight } else { 0.0 });
    }
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

impl SearchIndex {
    /// BM25F over `terms` (the first `required` of them required), over the
    /// tools `admits` lets in, as far as the best `max` of them need: per
    /// tool that may be among those, its score and which terms it matched
    /// (bit `i` for `terms[i]`).
    ///
    /// Lists are read whole, those that can add most first, while a tool
    /// none of them has could still reach the `max`-th best score found so
    /// far; the rest only for the tools that can still reach it (MaxScore,
    /// term at a time). A tool left out scores below `max` others, so the
    /// best `max`, ties and all, are those of reading everything, to the
    /// bit: per tool, each word's best and the sum over words are formed
    /// as reading everything forms them.
    pub(super) fn score(
        &self,
        terms: &[&str],
        required: usize,
        max: usize,
        admits: impl Fn(u32) -> bool,
    ) -> Vec<(u32, f32, u64)> {
        if max == 0 {
            return Vec::new();
        }
        let run = |cache: &Cache| {
            SCRATCH.with_borrow_mut(|scratch| {
                scratch.start(self.docs.len(), terms.len());
                let out = self.score_into(cache, terms, required, max, &admits, scratch);
                scratch.clear();
                out
            })
        };
        // Scored under the guard that saw every word in the cache: another
        // search may empty a full cache the moment a guard is let go.
        {
            let cache = self.cache.read().unwrap_or_else(PoisonError::into_inner);
            if terms.iter().all(|t| cache.words.contains_key(*t)) {
                return run(&cache);
            }
        }
        let mut cache = self.cache.write().unwrap_or_else(PoisonError::into_inner);
        self.prepare(&mut cache, terms);
        run(&cache)
    }

    fn score_into(
        &self,
        cache: &Cache,
        terms: &[&str],
        required: usize,
        max: usize,
        admits: &impl Fn(u32) -> bool,
        s: &mut Scratch,
    ) -> Vec<(u32, f32, u64)> {
        let words: Vec<&Word> = terms.iter().map(|t| &cache.words[*t]).collect();
        let n = words.len();
        // A variant that is another word of the query is matched there.
        let own: Vec<u32> = words.iter().filter_map(|w| w.id).collect();
        for (i, word) in words.iter().enumerate() {
            for (at, scored) in word.variants.iter().enumerate() {
                if at == 0 || !own.contains(&scored.variant.term) {
                    s.lists.push(List {
                        word: i,
                        scored: *scored,
                    });
                }
            }
        }
        // Strongest first; stable, so equal bounds stay in query order.
        s.lists
            .sort_by(|a, b| b.scored.bound.total_cmp(&a.scored.bound));
        s.unread.clear();
        s.unread.resize(n, 0.0);
        s.rest.clear();
        s.rest.resize(s.lists.len() + 1, 0.0);
        for k in (0..s.lists.len()).rev() {
            // Sorted: a word's list at `k` bounds its lists after `k`.
            s.unread[s.lists[k].word] = s.lists[k].scored.bound;
            s.rest[k] = s.unread.iter().sum();
        }
        let most = 1.0 + NAME_COVERAGE;
        let mut threshold = 0.0f32;
        let mut read = 0;
        // Postings read since the threshold was last found: finding it
        // walks every row, so it waits until reading has cost twice that.
        let mut since = 0usize;
        while read < s.lists.len() && (s.rest[read] * most >= threshold) {
            let list = s.lists[read];
            self.read_whole(list, &cache.tfs[list.scored.tfs], s);
            read += 1;
            since += self.postings[list.scored.variant.term as usize].len();
            if read < s.lists.len() && s.rest[read] * most >= threshold && since >= 2 * s.rows {
                threshold = self.threshold(required, max, admits, s);
                since = 0;
            }
        }
        if read < s.lists.len() {
            if since > 0 {
                threshold = self.threshold(required, max, admits, s);
            }
            self.narrow(required, read, threshold, s);
            for k in read..s.lists.len() {
                let list = s.lists[k];
                self.read_for_candidates(list, &cache.tfs[list.scored.tfs], s);
            }
        } else {
            s.candidates.extend(0..s.rows as u32);
        }
        let mut out = Vec::new();
        let candidates = std::mem::take(&mut s.candidates);
        let rows = candidates.iter().map(|r| *r as usize);
        self.best_rows(
            required,
            max,
            threshold,
            admits,
            rows,
            s,
            |slot, score, mask| {
                out.push((slot, score, mask));
            },
        );
        s.candidates = candidates;
        out
    }

    /// The `max`-th best score of the admitted rows with every required
    /// word, as read so far (0 when fewer, or for many results): reading
    /// more only raises a score, so the best `max` of all score at least
    /// this.
    fn threshold(
        &self,
        required: usize,
        max: usize,
        admits: &impl Fn(u32) -> bool,
        s: &mut Scratch,
    ) -> f32 {
        if max > FEW {
            return 0.0;
        }
        self.best_rows(required, max, 0.0, admits, 0..s.rows, s, |_, _, _| {})
    }

    /// Reads one list whole; `tfs` are its postings' term frequencies.
    fn read_whole(&self, list: List, tfs: &[f32], s: &mut Scratch) {
        let Scored { variant, idf, .. } = list.scored;
        let strength = variant.weight * idf;
        let postings = &self.postings[variant.term as usize];
        s.reserve(postings.len());
        for (p, &tf) in postings.iter().zip(tfs) {
            let c = strength * tf * (K1 + 1.0) / (K1 + tf);
            if c > 0.0 {
                let in_name = p.tf[Field::Name as usize] > 0;
                s.add(p.doc, list.word, c, variant.weight, in_name);
            }
        }
    }

    /// Reads one list for the candidates alone: walking the list when it
    /// is short next to them, else seeking each candidate in it (both in
    /// slot order).
    fn read_for_candidates(&self, list: List, tfs: &[f32], s: &mut Scratch) {
        let Scored { variant, idf, .. } = list.scored;
        let strength = variant.weight * idf;
        let postings = &self.postings[variant.term as usize][..];
        let count = |s: &mut Scratch, at: usize| {
            let tf = tfs[at];
            let c = strength * tf * (K1 + 1.0) / (K1 + tf);
            if c > 0.0 {
                let p = &postings[at];
                let in_name = p.tf[Field::Name as usize] > 0;
                s.add(p.doc, list.word, c, variant.weight, in_name);
            }
        };
        if postings.len() <= WALK_RATIO * s.candidates.len() {
            for (at, p) in postings.iter().enumerate() {
                let row = s.row_of[p.doc as usize];
                if row != UNTOUCHED && s.chosen[row as usize] {
                    count(s, at);
                }
            }
            return;
        }
        if !s.sorted {
            let slots = &s.slots;
            s.candidates
                .sort_unstable_by_key(|row| slots[*row as usize]);
            s.sorted = true;
        }
        let mut at = 0;
        for k in 0..s.candidates.len() {
            let slot = s.slots[s.candidates[k] as usize];
            at = seek(postings, at, slot);
            match postings.get(at) {
                None => break,
                Some(p) if p.doc == slot => count(s, at),
                Some(_) => {}
            }
        }
    }

    /// Keeps as candidates the rows that may still reach `threshold` when
    /// the unread lists (`read..`) add the most they can, and may have
    /// every required word.
    fn narrow(&self, required: usize, read: usize, threshold: f32, s: &mut Scratch) {
        s.unread.iter_mut().for_each(|u| *u = 0.0);
        for list in &s.lists[read..] {
            let u = &mut s.unread[list.word];
            *u = u.max(list.scored.bound);
        }
        let most = 1.0 + NAME_COVERAGE;
        let n = s.words;
        for row in 0..s.rows {
            let mut bound = 0.0f32;
            let mut reachable = true;
            for (i, (b, u)) in s.best[row * n..][..n].iter().zip(&s.unread).enumerate() {
                let most_b = b.max(*u);
                reachable &= i >= required || most_b > 0.0;
                bound += most_b;
            }
            let chosen = reachable && bound * most >= threshold;
            if chosen {
                s.candidates.push(row as u32);
            }
            s.chosen.push(chosen);
        }
    }

    /// Scores `rows` (as read so far) that `admits` lets in and that have
    /// every required word, passing each that may be among the best `max`
    /// to `each` with its slot, score and words; returns the `max`-th best
    /// score (`floor` when fewer). A row is scored in full only when the
    /// sum of its words could reach the best `max` so far, or `floor`.
    #[allow(clippy::too_many_arguments)]
    fn best_rows(
        &self,
        required: usize,
        max: usize,
        floor: f32,
        admits: &impl Fn(u32) -> bool,
        rows: impl Iterator<Item = usize>,
        s: &mut Scratch,
        mut each: impl FnMut(u32, f32, u64),
    ) -> f32 {
        let most = 1.0 + NAME_COVERAGE;
        let n = s.words;
        s.top.clear();
        let mut cut = floor;
        for row in rows {
            let best = &s.best[row * n..][..n];
            if !best[..required].iter().all(|b| *b > 0.0) {
                continue;
            }
            // The coverage factor is at most `most`: a row whose words
            // alone fall short of the cut is below the best `max`.
            let slot = s.slots[row];
            let sum: f32 = best.iter().sum();
            if sum * most < cut || !admits(slot) {
                continue;
            }
            let (score, mask) = self.final_score(slot, best, &s.named[row * n..][..n]);
            if score < cut {
                continue;
            }
            each(slot, score, mask);
            if max > FEW {
                continue;
            }
            let at = s.top.partition_point(|f| *f >= score);
            s.top.insert(at, score);
            s.top.truncate(max);
            if s.top.len() == max {
                cut = cut.max(s.top[max - 1]);
            }
        }
        cut
    }

    /// A tool's score from its per-word bests and name weights, and the
    /// words it matched: the words' sum in query order, times the name
    /// coverage factor.
    fn final_score(&self, slot: u32, best: &[f32], named: &[f32]) -> (f32, u64) {
        let mut score = 0.0f32;
        let mut mask = 0u64;
        let mut hits = (0.0f32, 0u16);
        for (i, (&b, &w)) in best.iter().zip(named).enumerate() {
            if b > 0.0 {
                score += b;
                mask |= 1 << i;
            }
            if w > 0.0 {
                hits.0 += w;
                hits.1 += 1;
            }
        }
        let named = self.name_coverage(slot, hits);
        (score * (1.0 + NAME_COVERAGE * named), mask)
    }

    /// Fills the cache with the words of `terms` it lacks.
    fn prepare(&self, cache: &mut Cache, terms: &[&str]) {
        if cache.words.len() + terms.len() > MAX_CACHED_WORDS {
            cache.clear();
        }
        let avg = self.average_lengths();
        for term in terms {
            if !cache.words.contains_key(*term) {
                let word = self.word(term, &avg, cache);
                cache.words.insert((*term).into(), word);
            }
        }
    }

    /// Resolves one query word: its variants, each term once, with their
    /// capped idf and the most any posting of theirs contributes.
    fn word(&self, term: &str, avg: &[f32; FIELDS], cache: &mut Cache) -> Word {
        let mut found = Vec::new();
        self.variants(term, &mut found);
        let mut kept: Vec<Variant> = Vec::with_capacity(found.len());
        for v in found {
            if !kept.iter().any(|k| k.term == v.term) {
                kept.push(v);
            }
        }
        let cap = self.cap(kept.first());
        let variants = kept
            .iter()
            .map(|&variant| {
                let id = variant.term;
                let tfs = *cache.tf_at.entry(id).or_insert_with(|| {
                    let tfs = self.postings[id as usize]
                        .iter()
                        .map(|p| self.field_tf(&p.tf, p.doc as usize, avg))
                        .collect();
                    cache.tfs.push(tfs);
                    cache.tfs.len() - 1
                });
                let tf = cache.tfs[tfs].iter().copied().fold(0.0f32, f32::max);
                let idf = self.idf(id).min(cap);
                let bound = variant.weight * idf * tf * (K1 + 1.0) / (K1 + tf);
                Scored {
                    variant,
                    idf,
                    bound: bound * BOUND_SLACK,
                    tfs,
                }
            })
            .collect();
        Word {
            id: self.dict.get(term).copied(),
            variants,
        }
    }

    /// Each field's average length over the live tools (1 for an empty
    /// field).
    pub(super) fn average_lengths(&self) -> [f32; FIELDS] {
        let n = self.live.max(1) as f32;
        let mut avg = [1.0f32; FIELDS];
        for (f, total) in self.total_len.iter().enumerate() {
            if *total > 0 {
                avg[f] = *total as f32 / n;
            }
        }
        avg
    }

    /// A term's inverse document frequency (BM25's, never negative).
    pub(super) fn idf(&self, id: u32) -> f32 {
        let n = self.live.max(1) as f32;
        let df = self.postings[id as usize].len() as f32;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// The weighted, length-normalised term frequency of one posting over
    /// the fields (BM25F's sum before saturation).
    pub(super) fn field_tf(&self, tf_of: &[u16; FIELDS], slot: usize, avg: &[f32; FIELDS]) -> f32 {
        let len = &self.lens[slot];
        normed_tf(tf_of, &std::array::from_fn(|f| norm(f, len[f], avg)))
    }

    /// Fills `variants` with the index terms `term` (one of the query's
    /// `terms`) matches, and returns the cap on their idf: a related or
    /// prefix match never counts as rarer than the word typed, when the
    /// index has that word.
    pub(super) fn term_variants(
        &self,
        terms: &[&str],
        term: &str,
        variants: &mut Vec<Variant>,
    ) -> f32 {
        variants.clear();
        self.variants(term, variants);
        // A variant that is another word of the query, or an earlier
        // variant, is matched there already: counting it again would
        // count one word twice, and reading its postings again costs.
        let own: Vec<u32> = terms
            .iter()
            .filter_map(|t| self.dict.get(*t).copied())
            .collect();
        let mut kept = 0;
        for at in 0..variants.len() {
            let v = variants[at];
            let elsewhere = at > 0
                && (variants[..kept].iter().any(|k| k.term == v.term) || own.contains(&v.term));
            if !elsewhere {
                variants[kept] = v;
                kept += 1;
            }
        }
        variants.truncate(kept);
        self.cap(variants.first())
    }

    /// The cap on the idf of a word's variants, from its first: the typed
    /// word's idf when the index has it (a related or prefix match never
    /// counts as rarer than the word typed), else none.
    fn cap(&self, first: Option<&Variant>) -> f32 {
        match first {
            Some(v) if v.weight >= 1.0 => self.idf(v.term),
            _ => f32::INFINITY,
        }
    }

    /// How much of a tool's own name the query named, from 0 to 1: the
    /// share of its name words matched, and one word alone covers at most
    /// half, so a query sharing one generic word with a two-word name
    /// (`git_show`, `wait_for`) is not taken for naming it.
    fn name_coverage(&self, slot: u32, (matched, words): (f32, u16)) -> f32 {
        let own = self.meta[slot as usize].name_terms.max(1);
        let single = if words < 2 && own > 1 { 0.5 } else { 1.0 };
        (matched / f32::from(own)).min(1.0) * single
    }

    /// The index terms a query term matches, with how much each counts:
    /// the term itself; longer terms it begins (`repo` → `repository`);
    /// and the longest shorter term that begins it (`configuration` →
    /// `config`). Prefixes count [`PREFIX_WEIGHT`].
    fn variants(&self, term: &str, out: &mut Vec<Variant>) {
        let live = |id: &u32| !self.postings[*id as usize].is_empty();
        if let Some(&id) = self.dict.get(term).filter(|id| live(id)) {
            out.push(Variant {
                term: id,
                weight: 1.0,
                kind: MatchKind::Exact,
            });
        }
        for mate in lexicon::related(term) {
            if let Some(&id) = self.dict.get(&**mate).filter(|id| live(id)) {
                out.push(Variant {
                    term: id,
                    weight: RELATED_WEIGHT,
                    kind: MatchKind::Related,
                });
            }
        }
        let chars = term.chars().count();
        if chars < MIN_PREFIX_CHARS {
            return;
        }
        out.extend(
            self.dict
                .range::<str, _>((std::ops::Bound::Excluded(term), std::ops::Bound::Unbounded))
                .take_while(|(t, _)| t.starts_with(term))
                .filter(|(_, id)| live(id))
                .take(MAX_PREFIX_EXPANSIONS)
                .map(|(_, id)| Variant {
                    term: *id,
                    weight: PREFIX_WEIGHT,
                    kind: MatchKind::Prefix,
                }),
        );
        // Prefixes of MIN_FALLBACK_CHARS to MAX_FALLBACK_CHARS characters,
        // longest first: a bounded number of bounded lookups, however long
        // the word (counting each prefix's characters anew was quadratic).
        if let Some(id) = term
            .char_indices()
            .map(|(at, _)| at)
            .skip(MIN_FALLBACK_CHARS)
            .take(MAX_FALLBACK_CHARS + 1 - MIN_FALLBACK_CHARS)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .find_map(|at| self.dict.get(&term[..at]).filter(|id| live(id)))
        {
            out.push(Variant {
                term: *id,
                weight: PREFIX_WEIGHT,
                kind: MatchKind::Prefix,
            });
        }
    }
}

/// BM25F's length norm of a field of `len` words.
fn norm(field: usize, len: u32, avg: &[f32; FIELDS]) -> f32 {
    1.0 - LENGTH_NORM[field] + LENGTH_NORM[field] * len as f32 / avg[field]
}

/// The weighted term frequency of a posting over the fields, each divided
/// by its length norm.
fn normed_tf(tf_of: &[u16; FIELDS], norms: &[f32; FIELDS]) -> f32 {
    let mut tf = 0.0f32;
    for f in 0..FIELDS {
        if tf_of[f] > 0 {
            tf += WEIGHT[f] * f32::from(tf_of[f]) / norms[f];
        }
    }
    tf
}

/// The first position at or after `from` whose posting is of `doc` or a
/// later slot: a gallop, then a binary search, so reading a long list for
/// a few candidates costs a few steps per candidate.
fn seek(postings: &[Posting], from: usize, doc: u32) -> usize {
    if postings.get(from).is_none_or(|p| p.doc >= doc) {
        return from;
    }
    // Invariant: `postings[lo]` is before `doc`; `postings[hi]`, if any,
    // is not.
    let (mut lo, mut step) = (from, 1);
    let hi = loop {
        let probe = lo + step;
        if probe >= postings.len() {
            break postings.len();
        }
        if postings[probe].doc >= doc {
            break probe;
        }
        lo = probe;
        step *= 2;
    };
    lo + 1 + postings[lo + 1..hi].partition_point(|p| p.doc < doc)
}
