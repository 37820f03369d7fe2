//! A semantic ranker for `registry-core`'s tool search: sentence
//! embeddings computed on the CPU with [candle], from a model directory on
//! disk. Nothing is ever downloaded.
//!
//! [`SentenceEmbedder`] implements [`registry_core::search::Embedder`]
//! for BERT-family sentence-transformers models (all-MiniLM-L6-v2, the
//! model the evaluation uses; also bge-small and e5-small, which share its
//! layout). Give it to a [`ToolSearchIndex`] through a
//! [`SemanticRanking`], and `tool_search` ranks by meaning as well as by
//! words: "what's the clock showing in Tokyo" finds `get_current_time`.
//!
//! ```no_run
//! use std::sync::Arc;
//! use registry_core::search::{Fusion, SemanticRanking, ToolSearchIndex};
//! use registry_core::{Flags, ToolRegistry, catalog::BaseTools};
//! use registry_embed::SentenceEmbedder;
//!
//! // A directory with config.json, tokenizer.json and model.safetensors.
//! let model = SentenceEmbedder::load("models/all-MiniLM-L6-v2")?;
//! let registry = ToolRegistry::new(BaseTools::linked(&Flags::new()).unwrap());
//! let ranking = SemanticRanking::new(Arc::new(model))
//!     .fusion(Fusion::Scores { semantic_weight: 0.5 });
//! let index = Arc::new(ToolSearchIndex::with_semantic(&registry, ranking));
//! # Ok::<(), registry_embed::LoadError>(())
//! ```
//!
//! The model directory is what sentence-transformers saves (and what the
//! Hugging Face hub holds): `config.json`, `tokenizer.json`,
//! `model.safetensors`, and optionally `1_Pooling/config.json` (mean
//! pooling when absent) and `sentence_bert_config.json` (its
//! `max_seq_length` bounds the tokens read per text).
//!
//! [candle]: https://github.com/huggingface/candle
//! [`ToolSearchIndex`]: registry_core::search::ToolSearchIndex
//! [`SemanticRanking`]: registry_core::search::SemanticRanking

#![forbid(unsafe_code)]

mod bert;

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
        Ok(SentenceEmbedder {
            tokenizer,
            model,
            // The weights' size tells two checkpoints under one directory
            // name apart; the token limit changes the vectors too.
            id: format!("{name}:{}B:{max_tokens}tok", weights.len()),
        })
    }

    /// The model named by [`MODEL_DIR_ENV`], if that variable is set.
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
