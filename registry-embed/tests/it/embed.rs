//! The embedders on real weights: the default model (potion-base-8M,
//! static, from `REGISTRY_EMBED_MODEL_DIR`) and the transformer
//! (all-MiniLM-L6-v2, from `REGISTRY_EMBED_BERT_DIR`); `.ci/run` installs
//! both.

use std::sync::Arc;

use registry_core::search::Embedder;

use crate::model::{bert, model};

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn both() -> Vec<Arc<dyn Embedder>> {
    let mut out = Vec::new();
    out.extend(model());
    out.extend(bert().map(|b| Arc::new(b) as Arc<dyn Embedder>));
    out
}

#[test]
fn similar_meanings_are_closer_than_unrelated_ones() {
    for model in both() {
        let texts = [
            "what's the clock showing in Tokyo",
            "get current time: Get current time in a specific timezones",
            "delete a branch from the repository",
        ];
        let v = model.embed(&texts).unwrap();
        assert_eq!(v.len(), 3);
        assert!(v.iter().all(|x| x.len() == v[0].len() && !x.is_empty()));
        let (near, far) = (cosine(&v[0], &v[1]), cosine(&v[0], &v[2]));
        eprintln!("{}: near {near:.4} far {far:.4}", model.model_id());
        assert!(
            near > far + 0.1,
            "{}: near {near} far {far}",
            model.model_id()
        );
    }
}

/// The cosines of three sentences, each vector made unit length.
fn three(model: &dyn Embedder) -> [f32; 3] {
    let v = model
        .embed(&[
            "The weather is lovely today.",
            "It's so sunny outside!",
            "He drove to the stadium.",
        ])
        .unwrap();
    let unit = |x: &Vec<f32>| {
        let n = x.iter().map(|a| a * a).sum::<f32>().sqrt();
        x.iter().map(|a| a / n).collect::<Vec<f32>>()
    };
    let v: Vec<Vec<f32>> = v.iter().map(unit).collect();
    [
        cosine(&v[0], &v[1]),
        cosine(&v[0], &v[2]),
        cosine(&v[1], &v[2]),
    ]
}

/// The similarities sentence-transformers' own quick start prints for
/// all-MiniLM-L6-v2 (its README, `model.similarity`): the same model,
/// read by another implementation, to three decimals.
#[test]
fn the_transformer_matches_the_reference_implementation() {
    let Some(model) = bert() else { return };
    let got = three(&model);
    eprintln!("{got:?}");
    for (got, want) in got.iter().zip([0.6660, 0.1046, 0.1411]) {
        assert!((got - want).abs() < 5e-4, "{got} against {want}");
    }
}

/// potion-base-8M's similarities as model2vec computes them (the Python
/// `tokenizers` package splitting without special tokens, unknown tokens
/// dropped, the rows averaged, in numpy), to three decimals: the same
/// tokens and the same table, read by this crate.
#[test]
fn the_static_model_matches_the_reference_computation() {
    let Some(model) = model() else { return };
    if !model.model_id().contains(":static:") {
        return;
    }
    let got = three(&*model);
    eprintln!("{got:?}");
    for (got, want) in got.iter().zip([0.5115, 0.0739, 0.1735]) {
        assert!((got - want).abs() < 5e-4, "{got} against {want}");
    }
}

/// A query is embedded with the model's query prompt, and only a query.
#[test]
fn a_query_prefix_goes_before_queries_only() {
    let Some(model) = bert() else { return };
    let plain = model.embed_query("delete a branch").unwrap();
    let model = model.with_query_prefix("query: ");
    let prefixed = model.embed_query("delete a branch").unwrap();
    let by_hand = model.embed(&["query: delete a branch"]).unwrap().remove(0);
    assert_eq!(prefixed, by_hand);
    assert_ne!(plain, prefixed);
    assert_eq!(
        model.embed(&["delete a branch"]).unwrap().remove(0),
        plain,
        "a tool's text is embedded without the prefix"
    );
}

/// A model directory that is not one says which file and what is wrong;
/// nothing panics.
#[test]
fn a_bad_model_directory_is_a_clear_error() {
    let missing = registry_embed::SentenceEmbedder::load("/nonexistent/model").unwrap_err();
    assert!(
        missing
            .to_string()
            .contains("/nonexistent/model/config.json"),
        "{missing}"
    );
    let dir = std::env::temp_dir().join(format!("registry-embed-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.json"), r#"{"hidden_size": "wide"}"#).unwrap();
    let bad = registry_embed::SentenceEmbedder::load(&dir).unwrap_err();
    assert!(
        matches!(bad, registry_embed::LoadError::Config { .. }),
        "{bad}"
    );
    assert!(bad.to_string().contains("config.json"), "{bad}");
    std::fs::write(
        dir.join("config.json"),
        r#"{"vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
            "intermediate_size": 16, "max_position_embeddings": 16}"#,
    )
    .unwrap();
    std::fs::write(dir.join("tokenizer.json"), "not json").unwrap();
    let bad = registry_embed::SentenceEmbedder::load(&dir).unwrap_err();
    assert!(
        matches!(bad, registry_embed::LoadError::Tokenizer { .. }),
        "{bad}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A static model directory that is not one names the file and what is
/// wrong.
#[test]
fn a_bad_static_model_is_a_clear_error() {
    let dir =
        std::env::temp_dir().join(format!("registry-embed-bad-static-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let missing = registry_embed::StaticEmbedder::load(&dir).unwrap_err();
    assert!(missing.to_string().contains("tokenizer.json"), "{missing}");
    std::fs::write(
        dir.join("tokenizer.json"),
        r#"{"version":"1.0","model":{"type":"WordLevel","vocab":{"[UNK]":0,"a":1,"b":2},"unk_token":"[UNK]"},
            "pre_tokenizer":{"type":"Whitespace"}}"#,
    )
    .unwrap();
    std::fs::write(dir.join("model.safetensors"), b"not safetensors").unwrap();
    let bad = registry_embed::StaticEmbedder::load(&dir).unwrap_err();
    assert!(
        matches!(bad, registry_embed::LoadError::Weights { .. }),
        "{bad}"
    );
    assert!(bad.to_string().contains("model.safetensors"), "{bad}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A static model written here (three tokens, two dimensions): a text's
/// vector is the mean of its known tokens' rows, the unknown token never
/// counts, and f16 tables are read as well as f32.
#[test]
fn a_static_model_averages_its_tokens_rows() {
    fn safetensors(dtype: &str, data: &[u8], rows: usize) -> Vec<u8> {
        let header = format!(
            r#"{{"embeddings":{{"dtype":"{dtype}","shape":[{rows},2],"data_offsets":[0,{}]}}}}"#,
            data.len()
        );
        let mut header = header.into_bytes();
        while header.len() % 8 != 0 {
            header.push(b' ');
        }
        let mut out = (header.len() as u64).to_le_bytes().to_vec();
        out.extend(header);
        out.extend(data);
        out
    }
    let dir = std::env::temp_dir().join(format!("registry-embed-static-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("tokenizer.json"),
        r#"{"version":"1.0","model":{"type":"WordLevel","vocab":{"[UNK]":0,"alpha":1,"beta":2},"unk_token":"[UNK]"},
            "pre_tokenizer":{"type":"Whitespace"}}"#,
    )
    .unwrap();
    let rows: [f32; 6] = [9.0, 9.0, 1.0, 0.0, 0.0, 3.0];
    let f32_bytes: Vec<u8> = rows.iter().flat_map(|x| x.to_le_bytes()).collect();
    // The same values in f16: 9.0, 1.0, 0.0 and 3.0 are exact there.
    let f16_bits: [u16; 6] = [0x4880, 0x4880, 0x3c00, 0, 0, 0x4200];
    let f16_bytes: Vec<u8> = f16_bits.iter().flat_map(|x| x.to_le_bytes()).collect();
    for (dtype, data) in [("F32", f32_bytes), ("F16", f16_bytes)] {
        std::fs::write(dir.join("model.safetensors"), safetensors(dtype, &data, 3)).unwrap();
        let model = registry_embed::StaticEmbedder::load(&dir).unwrap();
        assert_eq!(model.dimensions(), 2);
        let v = model
            .embed(&["alpha beta", "alpha", "gamma", "alpha gamma"])
            .unwrap();
        assert_eq!(v[0], [0.5, 1.5], "{dtype}");
        assert_eq!(v[1], [1.0, 0.0], "{dtype}");
        assert_eq!(v[2], [0.0, 0.0], "{dtype}: nothing known, nothing averaged");
        assert_eq!(v[3], [1.0, 0.0], "{dtype}: the unknown word does not count");
        let loaded = registry_embed::load(&dir).unwrap();
        assert_eq!(loaded.embed(&["beta"]).unwrap()[0], [0.0, 3.0]);
    }
    // A table shorter than the vocabulary, with no mapping, is refused.
    std::fs::write(
        dir.join("model.safetensors"),
        safetensors("F32", &[0; 16], 2),
    )
    .unwrap();
    let short = registry_embed::StaticEmbedder::load(&dir).unwrap_err();
    assert!(
        short.to_string().contains("2 rows for a vocabulary of 3"),
        "{short}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
