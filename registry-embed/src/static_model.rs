//! Static embeddings (model2vec's format): a table of one vector per
//! token, and a text's vector is the mean of its tokens' rows. No
//! attention, no layers: a query costs its tokenization and a few hundred
//! additions (microseconds), against milliseconds for a transformer.
//!
//! The directory is what model2vec saves: `tokenizer.json`,
//! `model.safetensors` with the table as `embeddings` (`[vocab, dims]`,
//! f32, f16 or bf16; WordLlama's `embedding.weight` is read the same
//! way) and optionally per-token `weights` (`[vocab]`) and a
//! vocabulary `mapping` (`[vocab]`, token id to table row, for quantised
//! vocabularies), and `config.json` (its `normalize` is honoured by the
//! index anyway: vectors are compared by cosine).

use std::path::Path;

use candle_core::{DType, Tensor};
use registry_core::search::{EmbedError, Embedder};
use tokenizers::Tokenizer;

use crate::{LoadError, read};

/// Tokens read per text: model2vec's own default limit.
const MAX_TOKENS: usize = 512;

/// A static (model2vec) embedding model: text in, one vector out, by
/// averaging token vectors.
pub struct StaticEmbedder {
    tokenizer: Tokenizer,
    /// The table, row-major: `rows * dims` values.
    table: Vec<f32>,
    dims: usize,
    /// Per token id, its row (`None`: the identity).
    mapping: Option<Vec<u32>>,
    /// Per token id, its weight in the mean (`None`: every token 1).
    weights: Option<Vec<f32>>,
    /// Token ids never averaged (the unknown and padding tokens).
    skip: Vec<u32>,
    id: String,
}

impl std::fmt::Debug for StaticEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StaticEmbedder")
            .field("model", &self.id)
            .field("dimensions", &self.dims)
            .finish()
    }
}

impl StaticEmbedder {
    /// Loads the model in `dir` (see the module docs for its files).
    pub fn load(dir: impl AsRef<Path>) -> Result<Self, LoadError> {
        let dir = dir.as_ref();
        let tokenizer_path = dir.join("tokenizer.json");
        let bad_tokenizer = |reason: String| LoadError::Tokenizer {
            path: tokenizer_path.clone(),
            reason,
        };
        let mut tokenizer = Tokenizer::from_bytes(read(&tokenizer_path)?)
            .map_err(|e| bad_tokenizer(e.to_string()))?;
        // Truncated by hand below: the tokenizer's own settings (padding
        // for batches, a model's limit) are not what a mean of rows needs.
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(None)
            .map_err(|e| bad_tokenizer(e.to_string()))?;
        let skip: Vec<u32> = ["[UNK]", "[PAD]", "<unk>", "<pad>"]
            .iter()
            .filter_map(|t| tokenizer.token_to_id(t))
            .collect();

        let weights_path = dir.join("model.safetensors");
        let bytes = read(&weights_path)?;
        let bad = |reason: String| LoadError::Weights {
            path: weights_path.clone(),
            reason,
        };
        let tensors = candle_core::safetensors::load_buffer(&bytes, &crate::bert::device())
            .map_err(|e| bad(e.to_string()))?;
        // model2vec names the table `embeddings`; WordLlama (a static
        // model of the same shape) `embedding.weight`.
        let table = ["embeddings", "embedding.weight"]
            .iter()
            .find_map(|name| tensors.get(*name))
            .ok_or_else(|| bad("no `embeddings` tensor".into()))?;
        let (rows, dims) = table.dims2().map_err(|_| {
            bad(format!(
                "`embeddings` is {:?}, not [vocab, dims]",
                table.dims()
            ))
        })?;
        if rows == 0 || dims == 0 {
            return Err(bad(format!("`embeddings` is empty: [{rows}, {dims}]")));
        }
        let table = flat_f32(table).map_err(|e| bad(format!("`embeddings`: {e}")))?;
        let vocab = tokenizer.get_vocab_size(true);
        let mapping = match tensors.get("mapping") {
            Some(m) => {
                let m: Vec<u32> = m
                    .to_dtype(DType::I64)
                    .and_then(|m| m.to_vec1::<i64>())
                    .map_err(|e| bad(format!("`mapping`: {e}")))?
                    .into_iter()
                    .map(|row| u32::try_from(row).ok().filter(|r| (*r as usize) < rows))
                    .collect::<Option<_>>()
                    .ok_or_else(|| bad(format!("`mapping` names a row outside 0..{rows}")))?;
                Some(m)
            }
            None if rows < vocab => {
                return Err(bad(format!(
                    "{rows} rows for a vocabulary of {vocab} tokens, and no `mapping`"
                )));
            }
            None => None,
        };
        let weights = match tensors.get("weights") {
            Some(w) => {
                let w = w
                    .to_dtype(DType::F32)
                    .and_then(|w| w.to_vec1::<f32>())
                    .map_err(|e| bad(format!("`weights`: {e}")))?;
                // A mean with negative or non-finite weights is no mean:
                // its direction could flip.
                if let Some(at) = w.iter().position(|x| !x.is_finite() || *x < 0.0) {
                    return Err(bad(format!(
                        "`weights` holds {} at token {at}; weights are finite and not negative",
                        w[at]
                    )));
                }
                Some(w)
            }
            None => None,
        };
        let name = dir.file_name().map_or_else(
            || dir.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        Ok(StaticEmbedder {
            tokenizer,
            table,
            dims,
            mapping,
            weights,
            skip,
            id: format!("{name}:static:{}B", bytes.len()),
        })
    }

    /// The length of the vectors.
    pub fn dimensions(&self) -> usize {
        self.dims
    }

    /// The mean of `text`'s token rows (zeros for a text with no known
    /// token: the index then leaves the tool to its words).
    fn embed_one(&self, text: &str) -> Result<Vec<f32>, String> {
        let encoding = self
            .tokenizer
            .encode(text, false)
            .map_err(|e| e.to_string())?;
        let mut sum = vec![0.0f32; self.dims];
        let mut total = 0.0f32;
        for &token in encoding.get_ids().iter().take(MAX_TOKENS) {
            if self.skip.contains(&token) {
                continue;
            }
            let row = match &self.mapping {
                Some(m) => match m.get(token as usize) {
                    Some(row) => *row as usize,
                    None => continue,
                },
                None => token as usize,
            };
            let weight = self
                .weights
                .as_ref()
                .map_or(1.0, |w| w.get(token as usize).copied().unwrap_or(0.0));
            let Some(values) = self.table.get(row * self.dims..(row + 1) * self.dims) else {
                continue;
            };
            for (s, v) in sum.iter_mut().zip(values) {
                *s += weight * v;
            }
            total += weight;
        }
        if total > 0.0 {
            sum.iter_mut().for_each(|s| *s /= total);
        }
        Ok(sum)
    }
}

/// A 2-D tensor of any float type as row-major f32 values.
fn flat_f32(t: &Tensor) -> candle_core::Result<Vec<f32>> {
    t.to_dtype(DType::F32)?.flatten_all()?.to_vec1::<f32>()
}

impl Embedder for StaticEmbedder {
    fn model_id(&self) -> &str {
        &self.id
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        texts
            .iter()
            .map(|t| self.embed_one(t))
            .collect::<Result<_, _>>()
            .map_err(|reason| EmbedError {
                model: self.id.clone(),
                reason,
            })
    }
}
