//! The seam for ranking by meaning: an [`Embedder`] turns text into
//! vectors, [`Vectors`] keeps one per indexed tool (computed once per
//! definition, reused across plugin churn), and [`SemanticRanking`] says
//! how the cosine similarity of a query to each tool is fused with the
//! lexical score ([`Fusion`]).
//!
//! The core crate has no model: an adapter crate implements [`Embedder`]
//! (`registry-embed` runs all-MiniLM-L6-v2 from a local directory). A
//! failing embedder never loses a tool or a search: the tool stays
//! searchable by its words, and a query the embedder cannot read is
//! answered lexically.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use super::fields::split_mcp_name;
use super::index::Document;
use super::tokenize::split_name;

/// Turns text into vectors for semantic search.
///
/// Vectors may be of any length, the same for every text of one model;
/// they are compared by cosine similarity (the index normalises them).
/// Implementations must be deterministic: the same text gives the same
/// vector, so a catalog ranks the same in every process.
pub trait Embedder: Send + Sync + fmt::Debug {
    /// Names the model and its settings; vectors are cached under it, so
    /// two embedders with one id must give the same vectors.
    fn model_id(&self) -> &str;

    /// One vector per text, in order.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;
}

/// Why an [`Embedder`] gave no vectors.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("embedding with {model} failed: {reason}")]
pub struct EmbedError {
    /// The embedder's [`model_id`](Embedder::model_id).
    pub model: String,
    /// What went wrong.
    pub reason: String,
}

/// How the lexical and semantic rankings are combined.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Fusion {
    /// Each side's scores scaled to 0..1 over the candidates (min-max),
    /// then `(1 - semantic_weight) * lexical + semantic_weight * semantic`.
    Scores {
        /// From 0 (lexical only) to 1 (semantic only).
        semantic_weight: f32,
    },
    /// Reciprocal rank fusion: `(1 - w) / (k + lexical rank) + w / (k +
    /// semantic rank)`, ranks from 1; a side that did not rank a tool adds
    /// nothing. Robust to how either side's scores are spread.
    ReciprocalRank {
        /// The rank offset; 60 in the original paper.
        k: f32,
        /// From 0 (lexical only) to 1 (semantic only).
        semantic_weight: f32,
    },
}

/// The semantic weight of [`Fusion::default`].
const DEFAULT_SEMANTIC_WEIGHT: f32 = 0.7;

impl Default for Fusion {
    /// Normalised score fusion with the semantic side weighted 0.7: on the
    /// evaluation's dev split (all-MiniLM-L6-v2), score fusion did best
    /// from 0.4 to 0.8, and rank fusion did worse at every weight.
    fn default() -> Self {
        Fusion::Scores {
            semantic_weight: DEFAULT_SEMANTIC_WEIGHT,
        }
    }
}

impl Fusion {
    fn semantic_weight(self) -> f32 {
        match self {
            Fusion::Scores { semantic_weight }
            | Fusion::ReciprocalRank {
                semantic_weight, ..
            } if semantic_weight.is_finite() => semantic_weight.clamp(0.0, 1.0),
            // A NaN or infinite weight would make every fused score NaN.
            _ => DEFAULT_SEMANTIC_WEIGHT,
        }
    }
}

/// What a [`ToolSearchIndex`](super::ToolSearchIndex) needs to rank by
/// meaning: the embedder, how to fuse, and how many candidates each side
/// contributes.
#[derive(Debug, Clone)]
pub struct SemanticRanking {
    pub(crate) embedder: Arc<dyn Embedder>,
    pub(crate) fusion: Fusion,
    pub(crate) candidates: usize,
    pub(crate) server_weight: f32,
}

impl SemanticRanking {
    /// [`server_weight`](Self::server_weight) unless set. Chosen on the
    /// evaluation's dev split (all-MiniLM-L6-v2): at 10,000 tools (copies
    /// of each catalog under other servers) recall@5 is 0.118 without the
    /// server's meaning, 0.488 at 0.1, 0.535 at 0.5 and 0.559 at 1.0,
    /// while at 408 tools it moves within one query (0.906 to 0.921).
    pub const DEFAULT_SERVER_WEIGHT: f32 = 0.5;

    /// Ranking with `embedder`, [`Fusion::default`], 50 candidates a
    /// side, and the server's name weighted
    /// [`DEFAULT_SERVER_WEIGHT`](Self::DEFAULT_SERVER_WEIGHT).
    pub fn new(embedder: Arc<dyn Embedder>) -> Self {
        SemanticRanking {
            embedder,
            fusion: Fusion::default(),
            candidates: 50,
            server_weight: Self::DEFAULT_SERVER_WEIGHT,
        }
    }

    /// How much the meaning of an MCP tool's server name counts beside
    /// its own text (0 to ignore it): what ranks `github`'s `create_issue`
    /// over another server's same tool for "open a bug on my repo".
    pub fn server_weight(mut self, weight: f32) -> Self {
        self.server_weight = if weight.is_finite() {
            weight.max(0.0)
        } else {
            0.0
        };
        self
    }

    /// How the two rankings are combined.
    pub fn fusion(mut self, fusion: Fusion) -> Self {
        self.fusion = fusion;
        self
    }

    /// How many of its best tools each side contributes before fusing
    /// (at least the results asked for).
    pub fn candidates(mut self, candidates: usize) -> Self {
        self.candidates = candidates.max(1);
        self
    }
}

/// At most this much of a tool's text is embedded: models read a few
/// hundred tokens, and a hostile description must not cost more.
const MAX_EMBEDDED_CHARS: usize = 4_000;

/// The text embedded for a tool: its own name's words, its hint, and its
/// description. The server is embedded on its own (one vector per
/// server), so one catalog served under several names shares its tools'
/// vectors.
pub(crate) fn embedding_text(doc: &Document<'_>) -> String {
    let own = split_mcp_name(doc.name).map_or(doc.name, |(_, own)| own);
    let mut text = split_name(own).join(" ");
    text.push_str(": ");
    if let Some(hint) = doc.hint {
        text.push_str(hint);
        text.push_str(". ");
    }
    text.push_str(doc.description);
    if let Some((at, _)) = text.char_indices().nth(MAX_EMBEDDED_CHARS) {
        text.truncate(at);
    }
    text
}

/// The text embedded for a tool's MCP server: its name's words
/// (`google_maps` → `google maps`), `None` for a tool of no server. It
/// is what tells the same tool of two servers apart by meaning
/// (`create_issue` of `github` or of `gitlab`), at one vector per server.
pub(crate) fn server_text(doc: &Document<'_>) -> Option<String> {
    split_mcp_name(doc.name).map(|(server, _)| split_name(server).join(" "))
}

/// A cache key: the embedded text itself (one model per cache), so two
/// texts never share a vector by accident.
type TextKey = Arc<str>;

/// A tool waiting for its vectors: its slot, its text and its server's.
#[derive(Debug, Clone)]
pub(crate) struct Pending {
    pub(crate) slot: usize,
    pub(crate) text: String,
    pub(crate) server: Option<String>,
}

impl Pending {
    /// What `doc` in `slot` needs embedded.
    pub(crate) fn of(slot: usize, doc: &Document<'_>) -> Self {
        Pending {
            slot,
            text: embedding_text(doc),
            server: server_text(doc),
        }
    }
}

/// One vector per indexed slot (and one per server), unit length, and a
/// cache of vectors by text so a tool that leaves and comes back (a
/// server's refresh) or a second tool with the same text is not embedded
/// again.
pub(crate) struct Vectors {
    ranking: SemanticRanking,
    /// Per slot, its tool's vector (`None`: empty slot, or not yet).
    by_slot: Vec<Option<Arc<[f32]>>>,
    /// Per slot, its server's vector.
    server_by_slot: Vec<Option<Arc<[f32]>>>,
    /// Per slot, the keys of its texts (tool, server).
    keys: Vec<(Option<TextKey>, Option<TextKey>)>,
    cache: HashMap<TextKey, Arc<[f32]>>,
    dims: Option<usize>,
}

impl fmt::Debug for Vectors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Vectors")
            .field("model", &self.ranking.embedder.model_id())
            .field("vectors", &self.by_slot.iter().flatten().count())
            .field("cached", &self.cache.len())
            .finish()
    }
}

impl Vectors {
    pub(crate) fn new(ranking: SemanticRanking) -> Self {
        Vectors {
            ranking,
            by_slot: Vec::new(),
            server_by_slot: Vec::new(),
            keys: Vec::new(),
            cache: HashMap::new(),
            dims: None,
        }
    }

    pub(crate) fn ranking(&self) -> &SemanticRanking {
        &self.ranking
    }

    /// The embedder, to call without holding the index's lock.
    pub(crate) fn embedder(&self) -> Arc<dyn Embedder> {
        Arc::clone(&self.ranking.embedder)
    }

    /// Records each pending tool's texts and gives it what the cache
    /// already has; returns the distinct texts still to embed, sorted.
    pub(crate) fn plan(&mut self, items: &[Pending]) -> Vec<TextKey> {
        let mut needed: Vec<TextKey> = Vec::new();
        for item in items {
            self.ensure(item.slot);
            let text: TextKey = item.text.as_str().into();
            let server: Option<TextKey> = item.server.as_deref().map(Into::into);
            for key in std::iter::once(&text).chain(server.as_ref()) {
                if !self.cache.contains_key(key) {
                    needed.push(Arc::clone(key));
                }
            }
            self.keys[item.slot] = (Some(text), server);
        }
        needed.sort_unstable();
        needed.dedup();
        self.assign(items);
        self.prune();
        needed
    }

    /// Calls `embedder` on `texts`, checking it gave one vector per text.
    pub(crate) fn embed_texts(
        embedder: &dyn Embedder,
        texts: &[TextKey],
    ) -> Result<Vec<Vec<f32>>, EmbedError> {
        let plain: Vec<&str> = texts.iter().map(|k| &**k).collect();
        let vectors = guarded(embedder, &plain)?;
        if vectors.len() != texts.len() {
            return Err(EmbedError {
                model: embedder.model_id().to_owned(),
                reason: format!("{} vectors for {} texts", vectors.len(), texts.len()),
            });
        }
        Ok(vectors)
    }

    /// Caches what [`embed_texts`](Self::embed_texts) gave for `texts`
    /// and hands the vectors to those of `items` still waiting for them
    /// (a tool removed meanwhile, or its slot reused, is skipped). A
    /// vector the embedder gave unusable (logged in `accept`) leaves its
    /// tool to the words: trying again would give the same vector.
    pub(crate) fn install(
        &mut self,
        texts: Vec<TextKey>,
        vectors: Vec<Vec<f32>>,
        items: &[Pending],
    ) {
        for (key, vector) in texts.into_iter().zip(vectors) {
            if let Some(v) = self.accept(vector) {
                self.cache.insert(key, v);
            }
        }
        self.assign(items);
    }

    /// Whether `item`'s slot still waits for `item`'s text (not removed,
    /// not reused by another tool).
    pub(crate) fn is_current(&self, item: &Pending) -> bool {
        self.keys
            .get(item.slot)
            .and_then(|(text, _)| text.as_deref())
            .is_some_and(|text| text == item.text)
    }

    /// Gives the current items their vectors from the cache.
    fn assign(&mut self, items: &[Pending]) {
        for item in items {
            if !self.is_current(item) {
                continue;
            }
            let (text, server) = &self.keys[item.slot];
            self.by_slot[item.slot] = text.as_ref().and_then(|k| self.cache.get(k)).cloned();
            self.server_by_slot[item.slot] =
                server.as_ref().and_then(|k| self.cache.get(k)).cloned();
        }
    }

    /// A vector of the model's length, normalised; `None` (logged) for a
    /// wrong length or a zero or non-finite vector.
    /// The model's length is that of the first vector accepted, so one
    /// bad vector cannot fix a wrong length for the life of the index.
    fn accept(&mut self, vector: Vec<f32>) -> Option<Arc<[f32]>> {
        let dims = self.dims.unwrap_or(vector.len());
        let v = unit(vector, dims)?;
        self.dims = Some(dims);
        Some(v)
    }

    fn ensure(&mut self, slot: usize) {
        if self.by_slot.len() <= slot {
            self.by_slot.resize(slot + 1, None);
            self.server_by_slot.resize(slot + 1, None);
            self.keys.resize(slot + 1, (None, None));
        }
    }

    fn forget(&mut self, slot: usize) {
        if slot < self.by_slot.len() {
            self.by_slot[slot] = None;
            self.server_by_slot[slot] = None;
            self.keys[slot] = (None, None);
        }
    }

    /// Forgets a slot's vectors; the cache keeps them (bounded, see
    /// [`prune`](Self::prune)) for a tool with the same text that comes
    /// back.
    pub(crate) fn remove(&mut self, slot: usize) {
        self.forget(slot);
    }

    /// Bounds the cache: past twice what live slots use plus 1,024, it
    /// keeps only what they use. Called when a batch is planned, after the
    /// tools that came back have their texts recorded, so a refresh that
    /// removes a server's tools and adds them again reuses every vector.
    fn prune(&mut self) {
        let live = self.keys.iter().filter(|(t, _)| t.is_some()).count();
        if self.cache.len() > 2 * live + 1024 {
            let keep: std::collections::HashSet<TextKey> = self
                .keys
                .iter()
                .flat_map(|(t, s)| t.iter().chain(s.iter()))
                .cloned()
                .collect();
            self.cache.retain(|k, _| keep.contains(k));
        }
    }

    /// The unit vector of a query; `None` (logged) when the embedder
    /// cannot read it.
    pub(crate) fn query(embedder: &dyn Embedder, text: &str, dims: usize) -> Option<Arc<[f32]>> {
        let text = match text.char_indices().nth(MAX_EMBEDDED_CHARS) {
            Some((at, _)) => &text[..at],
            None => text,
        };
        match guarded(embedder, &[text]) {
            Ok(mut vectors) if vectors.len() == 1 => unit(vectors.remove(0), dims),
            Ok(_) => None,
            Err(error) => {
                tracing::warn!(%error, "query answered by words only");
                None
            }
        }
    }

    /// The length of the vectors, once one was accepted.
    pub(crate) fn dims(&self) -> Option<usize> {
        self.dims
    }

    /// How close `query` is to a slot's tool: the cosine similarity to
    /// its text, plus [`SemanticRanking::server_weight`] times that to its
    /// server's name.
    pub(crate) fn similarity(&self, query: &[f32], slot: usize) -> Option<f32> {
        let cos = |v: &[f32]| dot(v, query);
        let v = self.by_slot.get(slot)?.as_ref()?;
        if v.len() != query.len() {
            return None;
        }
        let server = match self.server_by_slot.get(slot) {
            Some(Some(s)) if self.ranking.server_weight > 0.0 => {
                self.ranking.server_weight * cos(s)
            }
            _ => 0.0,
        };
        Some(cos(v) + server)
    }
}

/// `embedder.embed(texts)`, with a panic in the embedder (a model crate
/// on an input it did not expect) turned into an error: a search or a
/// sync must not unwind because of it, and the tools are not lost.
fn guarded(embedder: &dyn Embedder, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| embedder.embed(texts))).unwrap_or_else(
        |panic| {
            Err(EmbedError {
                model: embedder.model_id().to_owned(),
                reason: format!(
                    "the embedder panicked: {}",
                    crate::text::panic_message(&*panic)
                ),
            })
        },
    )
}

/// The dot product, in eight running sums: one sequential sum of floats
/// cannot be vectorised (its order is fixed), eight can, and a query at
/// 10,000 tools is 3.8 million products.
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut sums = [0.0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            sums[i] += x[i] * y[i];
        }
    }
    sums.iter().sum::<f32>() + tail
}

/// `vector` scaled to unit length; `None` (logged) for a length other than
/// `dims` or a zero or non-finite vector.
fn unit(mut vector: Vec<f32>, dims: usize) -> Option<Arc<[f32]>> {
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    if vector.len() != dims || !norm.is_finite() || norm == 0.0 {
        tracing::warn!(
            len = vector.len(),
            dims,
            "the embedder gave an unusable vector"
        );
        return None;
    }
    vector.iter_mut().for_each(|x| *x /= norm);
    Some(vector.into())
}

/// Fuses a lexical and a semantic ranking of candidates (each best first,
/// with its scores) into one, best first; ties break by `name`.
pub(crate) fn fuse<'a>(
    fusion: Fusion,
    lexical: &[(u32, f32)],
    semantic: &[(u32, f32)],
    name: impl Fn(u32) -> &'a str,
) -> Vec<(u32, f32)> {
    let w = fusion.semantic_weight();
    // Keyed by slot for adding; ordered below, so hash order never leaks.
    let mut fused: HashMap<u32, f32> = HashMap::with_capacity(lexical.len() + semantic.len());
    let mut add = |slot: u32, score: f32| *fused.entry(slot).or_default() += score;
    match fusion {
        Fusion::Scores { .. } => {
            for (side, weight) in [(lexical, 1.0 - w), (semantic, w)] {
                // A side weighted 0 adds no candidates either: weight 0 is
                // the other ranking exactly.
                if weight <= 0.0 {
                    continue;
                }
                let (lo, hi) = side
                    .iter()
                    .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), (_, s)| {
                        (lo.min(*s), hi.max(*s))
                    });
                // The lexical side scales from zero (a score of 0 is no
                // match at all); the semantic side from its worst candidate
                // (cosines of unrelated texts are not 0).
                let lo = if std::ptr::eq(side, lexical) { 0.0 } else { lo };
                let span = (hi - lo).max(f32::EPSILON);
                for (slot, score) in side {
                    add(*slot, weight * (score - lo) / span);
                }
            }
        }
        Fusion::ReciprocalRank { k, .. } => {
            let k = if k.is_finite() { k.max(0.0) } else { 60.0 };
            for (side, weight) in [(lexical, 1.0 - w), (semantic, w)] {
                if weight <= 0.0 {
                    continue;
                }
                for (rank, (slot, _)) in side.iter().enumerate() {
                    add(*slot, weight / (k + rank as f32 + 1.0));
                }
            }
        }
    }
    let mut named: Vec<(u32, f32, &str)> = fused
        .into_iter()
        .map(|(slot, score)| (slot, score, name(slot)))
        .collect();
    named.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.2.cmp(b.2)));
    named
        .into_iter()
        .map(|(slot, score, _)| (slot, score))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_is_embedded_as_its_own_name_and_description() {
        let text = embedding_text(&Document {
            name: "mcp__github__create_issue",
            aliases: &[],
            hint: None,
            description: "Create a new issue in a GitHub repository.",
        });
        assert_eq!(
            text,
            "create issue: Create a new issue in a GitHub repository."
        );
    }

    #[test]
    fn dot_products_match_the_plain_sum() {
        for n in [0, 1, 7, 8, 9, 384, 385] {
            let a: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin()).collect();
            let b: Vec<f32> = (0..n).map(|i| (i as f32 * 0.11).cos()).collect();
            let plain: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            assert!((dot(&a, &b) - plain).abs() < 1e-4, "{n}");
        }
    }

    #[test]
    fn score_fusion_weighs_both_sides() {
        let lexical = [(1, 10.0), (2, 5.0)];
        let semantic = [(2, 0.9), (3, 0.5), (1, 0.1)];
        let names = |s: u32| ["t0", "t1", "t2", "t3"][s as usize];
        let lexical_only = fuse(
            Fusion::Scores {
                semantic_weight: 0.0,
            },
            &lexical,
            &semantic,
            names,
        );
        assert_eq!(lexical_only[0].0, 1);
        let semantic_only = fuse(
            Fusion::Scores {
                semantic_weight: 1.0,
            },
            &lexical,
            &semantic,
            names,
        );
        assert_eq!(semantic_only[0].0, 2);
        let even = fuse(
            Fusion::Scores {
                semantic_weight: 0.5,
            },
            &lexical,
            &semantic,
            names,
        );
        // 2: 0.5 * 0.5 + 0.5 * 1.0 beats 1: 0.5 * 1.0 + 0.5 * 0.0.
        assert_eq!(even.iter().map(|x| x.0).collect::<Vec<_>>(), [2, 1, 3]);
    }

    #[test]
    fn rank_fusion_ignores_score_scale_and_breaks_ties_by_name() {
        let lexical = [(1, 1000.0), (2, 0.001)];
        let semantic = [(2, 0.9), (1, 0.8)];
        let fused = fuse(
            Fusion::ReciprocalRank {
                k: 60.0,
                semantic_weight: 0.5,
            },
            &lexical,
            &semantic,
            |s| ["", "b", "a"][s as usize],
        );
        // Each is first once and second once: a tie, broken by name.
        assert_eq!(fused[0].0, 2);
        assert!((fused[0].1 - fused[1].1).abs() < 1e-9);
    }
}
