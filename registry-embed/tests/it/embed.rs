//! The embedder on real weights (all-MiniLM-L6-v2, from the directory
//! named by `REGISTRY_EMBED_MODEL_DIR`; `.ci/run` installs it).

use registry_core::search::Embedder;

use crate::model::model;

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[test]
fn similar_meanings_are_closer_than_unrelated_ones() {
    let Some(model) = model() else { return };
    let texts = [
        "what's the clock showing in Tokyo",
        "get current time: Get current time in a specific timezones",
        "delete a branch from the repository",
    ];
    let v = model.embed(&texts).unwrap();
    assert_eq!(v.len(), 3);
    assert!(v.iter().all(|v| v.len() == 384));
    let (near, far) = (cosine(&v[0], &v[1]), cosine(&v[0], &v[2]));
    eprintln!("near {near:.4} far {far:.4}");
    assert!(near > far + 0.1, "near {near} far {far}");
}

/// The similarities sentence-transformers' own quick start prints for
/// all-MiniLM-L6-v2 (its README, `model.similarity`): the same model,
/// read by another implementation, to three decimals.
#[test]
fn matches_the_reference_implementation() {
    let Some(model) = model() else { return };
    let v = model
        .embed(&[
            "The weather is lovely today.",
            "It's so sunny outside!",
            "He drove to the stadium.",
        ])
        .unwrap();
    let got = [
        cosine(&v[0], &v[1]),
        cosine(&v[0], &v[2]),
        cosine(&v[1], &v[2]),
    ];
    eprintln!("{got:?}");
    for (got, want) in got.iter().zip([0.6660, 0.1046, 0.1411]) {
        assert!((got - want).abs() < 5e-4, "{got} against {want}");
    }
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
