//! The vectors of a semantic ranking: one row per indexed slot in one
//! contiguous matrix (scored with eight running sums, which the compiler
//! turns into SIMD), one vector per distinct MCP server, a cache of
//! vectors by text (plugin churn embeds only texts it has not seen), and
//! a bounded cache of query vectors (a repeated query is not embedded
//! again).
//!
//! Owns: which slot has which vector, and the cosine of a query to every
//! admitted slot. Never calls the embedder under the index's lock: the
//! index plans what to embed, embeds unlocked, and installs the result.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::Arc;

use super::index::Document;
use super::semantic::{
    EmbedError, Embedder, MAX_EMBEDDED_CHARS, SemanticRanking, embedding_text, server_text,
};

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

/// No server: the slot's server similarity is 0.
const NO_SERVER: u32 = u32::MAX;

/// The vectors of one index.
pub(crate) struct Vectors {
    ranking: SemanticRanking,
    /// Per slot, the keys of its texts (tool, server).
    keys: Vec<(Option<TextKey>, Option<TextKey>)>,
    /// Row-major, `dims` values per slot; a slot without a vector has
    /// zeros there and `false` in `has_row`.
    matrix: Vec<f32>,
    has_row: Vec<bool>,
    /// Per slot, its server's row in `servers` ([`NO_SERVER`]: none).
    server_of: Vec<u32>,
    /// Distinct server vectors, and the text each came from.
    servers: Vec<Arc<[f32]>>,
    server_ids: HashMap<TextKey, u32>,
    cache: HashMap<TextKey, Arc<[f32]>>,
    dims: Option<usize>,
}

impl fmt::Debug for Vectors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Vectors")
            .field("model", &self.ranking.embedder.model_id())
            .field("vectors", &self.has_row.iter().filter(|h| **h).count())
            .field("cached", &self.cache.len())
            .finish()
    }
}

impl Vectors {
    pub(crate) fn new(ranking: SemanticRanking) -> Self {
        Vectors {
            ranking,
            keys: Vec::new(),
            matrix: Vec::new(),
            has_row: Vec::new(),
            server_of: Vec::new(),
            servers: Vec::new(),
            server_ids: HashMap::new(),
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
        let vectors = guarded(embedder, |e| e.embed(&plain))?;
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

    /// Gives the current items their rows from the cache.
    fn assign(&mut self, items: &[Pending]) {
        let Some(dims) = self.dims else { return };
        self.matrix.resize(self.has_row.len() * dims, 0.0);
        for item in items {
            if !self.is_current(item) {
                continue;
            }
            let (text, server) = self.keys[item.slot].clone();
            let row = &mut self.matrix[item.slot * dims..(item.slot + 1) * dims];
            match text.as_ref().and_then(|k| self.cache.get(k)) {
                Some(v) => {
                    row.copy_from_slice(v);
                    self.has_row[item.slot] = true;
                }
                None => {
                    row.fill(0.0);
                    self.has_row[item.slot] = false;
                }
            }
            self.server_of[item.slot] = match server {
                Some(key) => match self.server_ids.get(&key) {
                    Some(id) => *id,
                    None => match self.cache.get(&key) {
                        Some(v) => {
                            let id = u32::try_from(self.servers.len()).unwrap_or(NO_SERVER);
                            self.servers.push(Arc::clone(v));
                            self.server_ids.insert(key, id);
                            id
                        }
                        None => NO_SERVER,
                    },
                },
                None => NO_SERVER,
            };
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
        if self.has_row.len() <= slot {
            self.has_row.resize(slot + 1, false);
            self.server_of.resize(slot + 1, NO_SERVER);
            self.keys.resize(slot + 1, (None, None));
            if let Some(dims) = self.dims {
                self.matrix.resize((slot + 1) * dims, 0.0);
            }
        }
    }

    /// Forgets a slot's vectors; the cache keeps them (bounded, see
    /// [`prune`](Self::prune)) for a tool with the same text that comes
    /// back.
    pub(crate) fn remove(&mut self, slot: usize) {
        if slot < self.has_row.len() {
            self.has_row[slot] = false;
            self.server_of[slot] = NO_SERVER;
            self.keys[slot] = (None, None);
        }
    }

    /// Bounds the cache: past twice what live slots use plus 1,024, it
    /// keeps only what they use. Called when a batch is planned, after the
    /// tools that came back have their texts recorded, so a refresh that
    /// removes a server's tools and adds them again reuses every vector.
    /// Server vectors are few (one per server name) and kept.
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
        match guarded(embedder, |e| e.embed_query(text)) {
            Ok(vector) => unit(vector, dims),
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

    /// How close `query` is to each of `slots` that has a vector: the
    /// cosine similarity to its text, plus
    /// [`SemanticRanking::server_weight`] times that to its server's
    /// name (computed once per server, not per tool).
    pub(crate) fn similarities(&self, query: &[f32], slots: &[u32]) -> Vec<(u32, f32)> {
        let Some(dims) = self.dims.filter(|d| *d == query.len()) else {
            return Vec::new();
        };
        let weight = self.ranking.server_weight;
        let per_server: Vec<f32> = if weight > 0.0 {
            self.servers
                .iter()
                .map(|s| weight * dot(s, query))
                .collect()
        } else {
            vec![0.0; self.servers.len()]
        };
        slots
            .iter()
            .filter(|&&slot| self.has_row.get(slot as usize).copied().unwrap_or(false))
            .map(|&slot| {
                let s = slot as usize;
                let row = &self.matrix[s * dims..(s + 1) * dims];
                let server = per_server
                    .get(self.server_of[s] as usize)
                    .copied()
                    .unwrap_or(0.0);
                (slot, dot(row, query) + server)
            })
            .collect()
    }
}

/// How many query vectors an index remembers.
const QUERY_CACHE: usize = 512;

/// Query vectors by query text, oldest forgotten first: a model asking
/// the same thing again (a retry, a second session of the same prompt)
/// costs a hash lookup, not an embedding.
#[derive(Debug, Default)]
pub(crate) struct QueryCache {
    vectors: HashMap<Box<str>, Arc<[f32]>>,
    order: VecDeque<Box<str>>,
}

impl QueryCache {
    pub(crate) fn get(&self, query: &str) -> Option<Arc<[f32]>> {
        self.vectors.get(query).cloned()
    }

    pub(crate) fn put(&mut self, query: &str, vector: Arc<[f32]>) {
        if self.vectors.contains_key(query) {
            return;
        }
        if self.order.len() >= QUERY_CACHE
            && let Some(oldest) = self.order.pop_front()
        {
            self.vectors.remove(&oldest);
        }
        self.order.push_back(query.into());
        self.vectors.insert(query.into(), vector);
    }
}

/// `call(embedder)`, with a panic in the embedder (a model crate on an
/// input it did not expect) turned into an error: a search or a sync must
/// not unwind because of it, and the tools are not lost.
fn guarded<T>(
    embedder: &dyn Embedder,
    call: impl FnOnce(&dyn Embedder) -> Result<T, EmbedError>,
) -> Result<T, EmbedError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| call(embedder))).unwrap_or_else(
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
/// 10,000 tools is millions of products.
pub(crate) fn dot(a: &[f32], b: &[f32]) -> f32 {
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn the_query_cache_forgets_the_oldest_first() {
        let mut cache = QueryCache::default();
        let v: Arc<[f32]> = vec![1.0].into();
        for i in 0..QUERY_CACHE + 1 {
            cache.put(&format!("q{i}"), Arc::clone(&v));
        }
        assert!(cache.get("q0").is_none());
        assert!(cache.get("q1").is_some());
        assert!(cache.get(&format!("q{QUERY_CACHE}")).is_some());
        assert_eq!(cache.vectors.len(), QUERY_CACHE);
    }
}
