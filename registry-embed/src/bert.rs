//! The BERT encoder, inference only: embeddings, self-attention layers,
//! and pooling of the last hidden states into one vector per text.
//!
//! Written against the weight names of Hugging Face's `BertModel`
//! checkpoints (`embeddings.*`, `encoder.layer.N.*`), which every
//! sentence-transformers BERT model (all-MiniLM-L6-v2, bge-small, e5-small)
//! uses. Dropout is absent: this is the model as evaluated.

use candle_core::{D, DType, Device, Module, Tensor};
use candle_nn::{Embedding, LayerNorm, Linear, VarBuilder, embedding, layer_norm, linear};
use serde::Deserialize;

/// The part of a `config.json` the encoder reads.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Config {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    pub max_position_embeddings: usize,
    #[serde(default = "two")]
    pub type_vocab_size: usize,
    #[serde(default = "layer_norm_eps")]
    pub layer_norm_eps: f64,
    #[serde(default = "gelu")]
    pub hidden_act: String,
}

fn two() -> usize {
    2
}
fn layer_norm_eps() -> f64 {
    1e-12
}
fn gelu() -> String {
    "gelu".to_owned()
}

/// How the token vectors become one vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pooling {
    /// The mean over the text's tokens (sentence-transformers' default).
    Mean,
    /// The `[CLS]` token's vector.
    Cls,
}

struct Layer {
    query: Linear,
    key: Linear,
    value: Linear,
    attention_out: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    output_norm: LayerNorm,
}

pub(crate) struct Bert {
    words: Embedding,
    positions: Embedding,
    token_types: Embedding,
    norm: LayerNorm,
    layers: Vec<Layer>,
    heads: usize,
    head_dim: usize,
    pooling: Pooling,
    pub(crate) hidden: usize,
}

impl Bert {
    pub(crate) fn load(
        vb: VarBuilder,
        config: &Config,
        pooling: Pooling,
    ) -> candle_core::Result<Self> {
        if config.num_attention_heads == 0
            || !config
                .hidden_size
                .is_multiple_of(config.num_attention_heads)
        {
            return Err(candle_core::Error::Msg(format!(
                "hidden_size {} is not a multiple of num_attention_heads {}",
                config.hidden_size, config.num_attention_heads
            )));
        }
        if config.hidden_act != "gelu" {
            return Err(candle_core::Error::Msg(format!(
                "hidden_act `{}` is not supported (only `gelu`)",
                config.hidden_act
            )));
        }
        let (h, eps) = (config.hidden_size, config.layer_norm_eps);
        let e = vb.pp("embeddings");
        let layers = (0..config.num_hidden_layers)
            .map(|i| {
                let l = vb.pp(format!("encoder.layer.{i}"));
                let a = l.pp("attention");
                Ok(Layer {
                    query: linear(h, h, a.pp("self.query"))?,
                    key: linear(h, h, a.pp("self.key"))?,
                    value: linear(h, h, a.pp("self.value"))?,
                    attention_out: linear(h, h, a.pp("output.dense"))?,
                    attention_norm: layer_norm(h, eps, a.pp("output.LayerNorm"))?,
                    intermediate: linear(h, config.intermediate_size, l.pp("intermediate.dense"))?,
                    output: linear(config.intermediate_size, h, l.pp("output.dense"))?,
                    output_norm: layer_norm(h, eps, l.pp("output.LayerNorm"))?,
                })
            })
            .collect::<candle_core::Result<Vec<_>>>()?;
        Ok(Bert {
            words: embedding(config.vocab_size, h, e.pp("word_embeddings"))?,
            positions: embedding(
                config.max_position_embeddings,
                h,
                e.pp("position_embeddings"),
            )?,
            token_types: embedding(config.type_vocab_size, h, e.pp("token_type_embeddings"))?,
            norm: layer_norm(h, eps, e.pp("LayerNorm"))?,
            layers,
            heads: config.num_attention_heads,
            head_dim: h / config.num_attention_heads,
            pooling,
            hidden: h,
        })
    }

    /// One pooled vector per row of `ids` (`[batch, tokens]`, padded with
    /// `mask` 0), as a `[batch, hidden]` tensor.
    pub(crate) fn embed(
        &self,
        ids: &Tensor,
        types: &Tensor,
        mask: &Tensor,
    ) -> candle_core::Result<Tensor> {
        let (batch, tokens) = ids.dims2()?;
        let device = ids.device();
        let positions = Tensor::arange(0u32, tokens as u32, device)?.unsqueeze(0)?;
        let x = (self.words.forward(ids)? + self.token_types.forward(types)?)?
            .broadcast_add(&self.positions.forward(&positions)?)?;
        let mut x = self.norm.forward(&x)?;
        // Padding gets a large negative bias, so softmax gives it nothing.
        let mask_f = mask.to_dtype(DType::F32)?;
        let bias = ((mask_f.ones_like()? - &mask_f)? * -1e4)?.reshape((batch, 1, 1, tokens))?;
        let scale = 1.0 / (self.head_dim as f64).sqrt();
        for layer in &self.layers {
            let heads = |t: Tensor| -> candle_core::Result<Tensor> {
                t.reshape((batch, tokens, self.heads, self.head_dim))?
                    .transpose(1, 2)?
                    .contiguous()
            };
            let q = heads(layer.query.forward(&x)?)?;
            let k = heads(layer.key.forward(&x)?)?;
            let v = heads(layer.value.forward(&x)?)?;
            let scores = (q.matmul(&k.t()?.contiguous()?)? * scale)?.broadcast_add(&bias)?;
            let probs = candle_nn::ops::softmax_last_dim(&scores)?;
            let context = probs.matmul(&v)?.transpose(1, 2)?.contiguous()?.reshape((
                batch,
                tokens,
                self.heads * self.head_dim,
            ))?;
            let attended = layer
                .attention_norm
                .forward(&(layer.attention_out.forward(&context)? + &x)?)?;
            let inner = layer.intermediate.forward(&attended)?.gelu_erf()?;
            x = layer
                .output_norm
                .forward(&(layer.output.forward(&inner)? + &attended)?)?;
        }
        match self.pooling {
            Pooling::Cls => x.narrow(1, 0, 1)?.squeeze(1),
            Pooling::Mean => {
                let m = mask_f.unsqueeze(2)?;
                let summed = x.broadcast_mul(&m)?.sum(1)?;
                let counts = m.sum(1)?.clamp(1.0, f64::MAX)?;
                summed.broadcast_div(&counts)
            }
        }
    }
}

/// The CPU: the one device these small models need.
pub(crate) fn device() -> Device {
    Device::Cpu
}

/// Each row scaled to unit length.
pub(crate) fn normalise(x: &Tensor) -> candle_core::Result<Tensor> {
    let norms = x
        .sqr()?
        .sum_keepdim(D::Minus1)?
        .sqrt()?
        .clamp(1e-12, f64::MAX)?;
    x.broadcast_div(&norms)
}
