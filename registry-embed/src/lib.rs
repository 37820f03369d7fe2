//! A semantic ranker for `registry-core`'s tool search: sentence
//! embeddings computed on the CPU from a model directory on disk. Nothing
//! is ever downloaded.
//!
//! Two kinds of model, one trait ([`registry_core::search::Embedder`]):
//!
//! - [`StaticEmbedder`]: a static model in model2vec's format
//!   (potion-base-8M, the default): one vector per token, a text's vector
//!   the mean of its tokens'. Tens of microseconds per query.
//! - [`SentenceEmbedder`]: a BERT-family sentence-transformers model
//!   (all-MiniLM-L6-v2; bge and e5 share its layout, and a query prompt
//!   is honoured) run with [candle]. More accurate, milliseconds per
//!   query.
//!
//! [`load`] reads either from its directory. Give the model to a
//! [`ToolSearchIndex`] through a [`SemanticRanking`], and `tool_search`
//! ranks by meaning as well as by words: "what's the clock showing in
//! Tokyo" finds `get_current_time`.
//!
//! ```no_run
//! use std::sync::Arc;
//! use registry_core::search::{SemanticRanking, ToolSearchIndex};
//! use registry_core::{Flags, ToolRegistry, catalog::BaseTools};
//!
//! // A directory with tokenizer.json and model.safetensors (and
//! // config.json for a transformer).
//! let model = registry_embed::load("models/potion-base-8M")?;
//! let registry = ToolRegistry::new(BaseTools::linked(&Flags::new()).unwrap());
//! let index = Arc::new(ToolSearchIndex::with_semantic(&registry, SemanticRanking::new(model)));
//! # Ok::<(), registry_embed::LoadError>(())
//! ```
//!
//! # Choosing a model
//!
//! Measured on the search evaluation's dev split (408 tools, 127 intents,
//! through `tool_search`; `tests/it/search_models.rs`), release build on
//! a shared 2-core machine, one run; the held-out figures are in the
//! repository's `docs/performance.md`:
//!
//! | model | dims | recall@5, words and meaning (fusion 0.3 / 0.7) | by meaning alone | one query | index of 408 tools | weights |
//! |---|---|---|---|---|---|---|
//! | potion-base-8M (static, default) | 256 | 0.882 / 0.858 | 0.811 | 19 µs | 68 ms | 30 MB |
//! | potion-base-2M (static) | 64 | 0.882 / 0.787 | 0.669 | 17 µs | 61 ms | 8 MB |
//! | WordLlama l2_supercat (static) | 256 | 0.882 / 0.835 | 0.795 | 8 µs | 55 ms | 16 MB |
//! | all-MiniLM-L6-v2 (transformer) | 384 | 0.898 / 0.929 | 0.913 | 13.0 ms | 18.4 s | 91 MB |
//!
//! The default is the static model: it meets the query budget (a hybrid
//! query in under 2 ms at 10,000 tools) with about 700 times less work
//! per query and 270 times less per tool indexed, and gives up a few
//! points of recall to the transformer (held out: 0.758 against 0.798 at
//! 703 tools). Pick all-MiniLM-L6-v2, with
//! `Fusion::Scores { semantic_weight: 0.7 }`, where a few milliseconds
//! per search and seconds per indexed server are cheap next to a missed
//! tool. No package on the registries this project reaches ships
//! bge-small-en-v1.5 or a cross-encoder's weights.
//!
//! The model directory is what model2vec or sentence-transformers saves
//! (and what the Hugging Face hub holds): `tokenizer.json` and
//! `model.safetensors`; for a transformer also `config.json`, and
//! optionally `1_Pooling/config.json` (mean pooling when absent),
//! `sentence_bert_config.json` (its `max_seq_length` bounds the tokens
//! read per text) and `config_sentence_transformers.json` (its
//! `prompts.query` goes before queries).
//!
//! [candle]: https://github.com/huggingface/candle
//! [`ToolSearchIndex`]: registry_core::search::ToolSearchIndex
//! [`SemanticRanking`]: registry_core::search::SemanticRanking

#![forbid(unsafe_code)]

mod bert;
mod static_model;

pub use static_model::StaticEmbedder;

use std::path::{Path, PathBuf};

use candle_core::{DType, Tensor};
use candle_nn::VarBuilder;
use registry_core::search::{EmbedError, Embedder};
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

use bert::{Bert, Config, Pooling};

/// The environment variable the tests and examples read a model directory
/// from.
pub const MODEL_DIR_ENV: &str = "REGISTRY_EMBED_MODEL_DIR";

/// Texts embedded in one forward pass: bounds the memory of a batch
/// (attention is quadratic in the longest text of it).
const BATCH: usize = 32;

/// Why a model directory could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A JSON file is not what a sentence-transformers model has.
    #[error("{path} is not a model configuration: {reason}")]
    Config {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// `tokenizer.json` could not be read as a tokenizer.
    #[error("{path} is not a tokenizer: {reason}")]
    Tokenizer {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The weights do not fit the configuration.
    #[error("the weights in {path} do not fit the model: {reason}")]
    Weights {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// A sentence-transformers BERT model on the CPU: text in, one unit
/// vector out.
pub struct SentenceEmbedder {
    tokenizer: Tokenizer,
    model: Bert,
    id: String,
    /// Put before every query (not before tools' texts).
    query_prefix: Option<String>,
}

impl std::fmt::Debug for SentenceEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SentenceEmbedder")
            .field("model", &self.id)
            .field("dimensions", &self.model.hidden)
            .finish()
    }
}

#[derive(serde::Deserialize)]
struct PoolingConfig {
    #[serde(default)]
    pooling_mode_cls_token: bool,
    #[serde(default = "yes")]
    pooling_mode_mean_tokens: bool,
}

fn yes() -> bool {
    true
}

#[derive(serde::Deserialize)]
struct SentenceConfig {
    max_seq_length: Option<usize>,
}

/// The part of `config_sentence_transformers.json` read: the prompt a
/// model was trained to see before queries.
#[derive(serde::Deserialize)]
struct Prompts {
    #[serde(default)]
    prompts: std::collections::BTreeMap<String, String>,
}

/// Loads the model in `dir`, of either kind: a transformer
/// ([`SentenceEmbedder`]: its `config.json` describes BERT layers) or a
/// static model ([`StaticEmbedder`]: model2vec's directory, whose
/// `config.json` has no layers or is absent).
pub fn load(dir: impl AsRef<Path>) -> Result<std::sync::Arc<dyn Embedder>, LoadError> {
    #[derive(serde::Deserialize)]
    struct Kind {
        num_hidden_layers: Option<usize>,
    }
    let dir = dir.as_ref();
    let config = dir.join("config.json");
    let layered = config.exists() && json::<Kind>(&config)?.num_hidden_layers.is_some();
    Ok(if layered {
        std::sync::Arc::new(SentenceEmbedder::load(dir)?)
    } else {
        std::sync::Arc::new(StaticEmbedder::load(dir)?)
    })
}

fn read(path: &Path) -> Result<Vec<u8>, LoadError> {
    std::fs::read(path).map_err(|source| LoadError::Read {
        path: path.to_owned(),
        source,
    })
}

fn json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, LoadError> {
    serde_json::from_slice(&read(path)?).map_err(|err| LoadError::Config {
        path: path.to_owned(),
        reason: err.to_string(),
    })
}

impl SentenceEmbedder {
    /// Loads the model in `dir` (see the crate docs for its files).
    pub fn load(dir: impl AsRef<Path>) -> Result<Self, LoadError> {
        let dir = dir.as_ref();
        let config_path = dir.join("config.json");
        let config: Config = json(&config_path)?;
        let pooling = match dir.join("1_Pooling/config.json") {
            p if p.exists() => {
                let pooling: PoolingConfig = json(&p)?;
                match (
                    pooling.pooling_mode_mean_tokens,
                    pooling.pooling_mode_cls_token,
                ) {
                    (true, false) => Pooling::Mean,
                    (false, true) => Pooling::Cls,
                    _ => {
                        return Err(LoadError::Config {
                            path: p,
                            reason: "only mean or CLS pooling, one of them, is supported".into(),
                        });
                    }
                }
            }
            _ => Pooling::Mean,
        };
        let max_tokens = match dir.join("sentence_bert_config.json") {
            p if p.exists() => json::<SentenceConfig>(&p)?.max_seq_length,
            _ => None,
        }
        .unwrap_or(config.max_position_embeddings)
        .min(config.max_position_embeddings);

        let tokenizer_path = dir.join("tokenizer.json");
        let bad_tokenizer = |reason: String| LoadError::Tokenizer {
            path: tokenizer_path.clone(),
            reason,
        };
        let mut tokenizer = Tokenizer::from_bytes(read(&tokenizer_path)?)
            .map_err(|e| bad_tokenizer(e.to_string()))?;
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: max_tokens,
                ..TruncationParams::default()
            }))
            .map_err(|e| bad_tokenizer(e.to_string()))?;
        tokenizer.with_padding(Some(PaddingParams {
            strategy: PaddingStrategy::BatchLongest,
            ..PaddingParams::default()
        }));

        let weights_path = dir.join("model.safetensors");
        let weights = read(&weights_path)?;
        let bad_weights = |err: candle_core::Error| LoadError::Weights {
            path: weights_path.clone(),
            reason: err.to_string(),
        };
        let device = bert::device();
        let tensors =
            candle_core::safetensors::load_buffer(&weights, &device).map_err(bad_weights)?;
        let vb = VarBuilder::from_tensors(tensors, DType::F32, &device);
        let model = Bert::load(vb, &config, pooling).map_err(bad_weights)?;
        let name = dir.file_name().map_or_else(
            || dir.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let query_prefix = match dir.join("config_sentence_transformers.json") {
            p if p.exists() => json::<Prompts>(&p)?
                .prompts
                .remove("query")
                .filter(|p| !p.is_empty()),
            _ => None,
        };
        Ok(SentenceEmbedder {
            tokenizer,
            model,
            // The weights' size tells two checkpoints under one directory
            // name apart; the token limit changes the vectors too.
            id: format!("{name}:{}B:{max_tokens}tok", weights.len()),
            query_prefix: None,
        }
        .with_query_prefix(query_prefix.unwrap_or_default()))
    }

    /// Puts `prefix` before every query (never before a tool's text), as
    /// models trained with a query instruction expect: bge-small-en-v1.5's
    /// is "Represent this sentence for searching relevant passages: ".
    /// Read from `config_sentence_transformers.json`'s `prompts.query`
    /// when the directory has one.
    pub fn with_query_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.query_prefix = Some(prefix.into()).filter(|p| !p.is_empty());
        // One id, one set of vectors, queries included.
        let base = self
            .id
            .split(":query=")
            .next()
            .unwrap_or_default()
            .to_owned();
        self.id = match &self.query_prefix {
            Some(prefix) => format!("{base}:query={prefix}"),
            None => base,
        };
        self
    }

    /// The transformer named by [`MODEL_DIR_ENV`], if that variable is
    /// set (a directory of either kind: use [`load`] for that).
    pub fn from_env() -> Option<Result<Self, LoadError>> {
        std::env::var_os(MODEL_DIR_ENV).map(Self::load)
    }

    /// The length of the vectors.
    pub fn dimensions(&self) -> usize {
        self.model.hidden
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| e.to_string())?;
        let rows = encodings.len();
        let tokens = encodings.first().map_or(0, |e| e.get_ids().len());
        if tokens == 0 {
            return Ok(vec![vec![0.0; self.model.hidden]; rows]);
        }
        let device = bert::device();
        let flat = |get: &dyn Fn(&tokenizers::Encoding) -> &[u32]| -> Result<Tensor, String> {
            let data: Vec<u32> = encodings
                .iter()
                .flat_map(|e| get(e).iter().copied())
                .collect();
            Tensor::from_vec(data, (rows, tokens), &device).map_err(|e| e.to_string())
        };
        let ids = flat(&|e| e.get_ids())?;
        let types = flat(&|e| e.get_type_ids())?;
        let mask = flat(&|e| e.get_attention_mask())?;
        let pooled = self
            .model
            .embed(&ids, &types, &mask)
            .and_then(|x| bert::normalise(&x))
            .and_then(|x| x.to_vec2::<f32>())
            .map_err(|e| e.to_string())?;
        Ok(pooled)
    }
}

impl Embedder for SentenceEmbedder {
    fn model_id(&self) -> &str {
        &self.id
    }

    fn embed_query(&self, query: &str) -> Result<Vec<f32>, EmbedError> {
        let text = match &self.query_prefix {
            Some(prefix) => format!("{prefix}{query}"),
            None => query.to_owned(),
        };
        let mut vectors = self.embed(&[&text])?;
        Ok(vectors.pop().unwrap_or_default())
    }

    /// Embeds in batches of texts of similar length (less padding), and
    /// returns the vectors in the order of `texts`.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].len());
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        for chunk in order.chunks(BATCH) {
            let batch: Vec<&str> = chunk.iter().map(|&i| texts[i]).collect();
            let vectors = self.embed_batch(&batch).map_err(|reason| EmbedError {
                model: self.id.clone(),
                reason,
            })?;
            for (&i, v) in chunk.iter().zip(vectors) {
                out[i] = v;
            }
        }
        Ok(out)
    }
}
