//! The seam for ranking by meaning: an [`Embedder`] turns text into
//! vectors (kept per indexed tool by the index's vector store, computed
//! once per text, reused across plugin churn), and [`SemanticRanking`] says
//! how the cosine similarity of a query to each tool is fused with the
//! lexical score ([`Fusion`]).
//!
//! The core crate has no model: an adapter crate implements [`Embedder`]
//! (`registry-embed` runs potion-base-8M, a static model, or
//! all-MiniLM-L6-v2, a transformer, from a local directory). A
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

    /// The vector of a search query. Models trained with an instruction
    /// before queries (bge's "Represent this sentence for searching
    /// relevant passages: ") add it here; by default a query is embedded
    /// like any text.
    fn embed_query(&self, query: &str) -> Result<Vec<f32>, EmbedError> {
        let mut vectors = self.embed(&[query])?;
        match vectors.len() {
            1 => Ok(vectors.remove(0)),
            n => Err(EmbedError {
                model: self.model_id().to_owned(),
                reason: format!("{n} vectors for one query"),
            }),
        }
    }
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
const DEFAULT_SEMANTIC_WEIGHT: f32 = 0.3;

impl Default for Fusion {
    /// Normalised score fusion with the semantic side weighted 0.3, chosen
    /// on the evaluation's dev split with the default model
    /// (potion-base-8M, static) and the default server weight: recall@5
    /// 0.882 at 408 tools and 0.724 at 10,000, against 0.858 and 0.669 at
    /// 0.7; rank fusion was level or worse at every weight. A transformer
    /// (all-MiniLM-L6-v2), whose meaning is worth more, did best at 0.7
    /// (`Fusion::Scores { semantic_weight: 0.7 }`).
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
    /// evaluation's dev split with the default model and fusion: at 10,000
    /// tools (the dev catalogs and synthetic servers made from them)
    /// recall@5 is 0.724 at 0.1, 0.693 at 0.25 and 0.677 at 0.5, while at
    /// 408 tools it does not move (0.882). (With copies of each catalog
    /// under other server names as distractors, and all-MiniLM-L6-v2, the
    /// server's meaning was what told copies apart: 0.118 without it.)
    pub const DEFAULT_SERVER_WEIGHT: f32 = 0.1;

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
pub(crate) const MAX_EMBEDDED_CHARS: usize = 4_000;

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
    // Two slots of one name (a pooled tool indexed beside the registry's)
    // end by slot, so no order comes from the map.
    named.sort_by(|a, b| {
        b.1.total_cmp(&a.1)
            .then_with(|| a.2.cmp(b.2))
            .then_with(|| a.0.cmp(&b.0))
    });
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
