//! What the embedder tests share: the model from the environment, and the
//! fusion the evaluation measures.

use registry_core::search::Fusion;

/// The fusion the evaluation measures: the default, chosen on the dev
/// split with potion-base-8M (see `Fusion::default`).
pub const FUSION: Fusion = Fusion::Scores {
    semantic_weight: 0.3,
};

/// Floors on the dev split's hybrid recall@5 at 408 and at 10,000 tools,
/// a little under what it measures there with potion-base-8M (0.882 and
/// 0.724) with [`FUSION`] and the default server weight, so a change that
/// makes search worse fails CI.
pub const DEV_FLOOR_AT5: [f64; 2] = [0.85, 0.69];

/// The model in `REGISTRY_EMBED_MODEL_DIR` (either kind, see
/// [`registry_embed::load`]), or `None` (the test is skipped, loudly)
/// when no directory is configured; CI sets `REGISTRY_EMBED_REQUIRED=1`
/// so a missing model fails there.
pub fn model() -> Option<std::sync::Arc<dyn registry_core::search::Embedder>> {
    match std::env::var_os(registry_embed::MODEL_DIR_ENV) {
        Some(dir) => Some(registry_embed::load(dir).expect("the model directory loads")),
        None => {
            assert!(
                std::env::var_os("REGISTRY_EMBED_REQUIRED").is_none(),
                "REGISTRY_EMBED_REQUIRED is set but REGISTRY_EMBED_MODEL_DIR is not"
            );
            eprintln!("skipped: set REGISTRY_EMBED_MODEL_DIR to a model directory");
            None
        }
    }
}

/// An embedder that remembers every vector it gave, so the evaluation's
/// several indexes over the same texts embed each text once.
#[derive(Debug)]
pub struct Remembering {
    inner: std::sync::Arc<dyn registry_core::search::Embedder>,
    seen: std::sync::Mutex<std::collections::HashMap<String, Vec<f32>>>,
}

impl Remembering {
    pub fn new(inner: std::sync::Arc<dyn registry_core::search::Embedder>) -> Self {
        Remembering {
            inner,
            seen: Default::default(),
        }
    }
}

impl registry_core::search::Embedder for Remembering {
    fn model_id(&self) -> &str {
        self.inner.model_id()
    }

    fn embed_query(&self, query: &str) -> Result<Vec<f32>, registry_core::search::EmbedError> {
        self.inner.embed_query(query)
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, registry_core::search::EmbedError> {
        let missing: Vec<&str> = {
            let seen = self.seen.lock().unwrap();
            let mut missing: Vec<&str> = texts
                .iter()
                .copied()
                .filter(|t| !seen.contains_key(*t))
                .collect();
            missing.sort_unstable();
            missing.dedup();
            missing
        };
        if !missing.is_empty() {
            let vectors = self.inner.embed(&missing)?;
            let mut seen = self.seen.lock().unwrap();
            for (text, v) in missing.into_iter().zip(vectors) {
                seen.insert(text.to_owned(), v);
            }
        }
        let seen = self.seen.lock().unwrap();
        Ok(texts.iter().map(|t| seen[*t].clone()).collect())
    }
}

/// The transformer in `REGISTRY_EMBED_BERT_DIR` (all-MiniLM-L6-v2, which
/// the reference checks are written for), or `None` (skipped, loudly;
/// a failure under `REGISTRY_EMBED_REQUIRED`).
pub fn bert() -> Option<registry_embed::SentenceEmbedder> {
    match std::env::var_os("REGISTRY_EMBED_BERT_DIR") {
        Some(dir) => Some(registry_embed::SentenceEmbedder::load(dir).expect("the model loads")),
        None => {
            assert!(
                std::env::var_os("REGISTRY_EMBED_REQUIRED").is_none(),
                "REGISTRY_EMBED_REQUIRED is set but REGISTRY_EMBED_BERT_DIR is not"
            );
            eprintln!("skipped: set REGISTRY_EMBED_BERT_DIR to all-MiniLM-L6-v2's directory");
            None
        }
    }
}
