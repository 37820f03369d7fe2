//! Results made of blocks: images, audio, structured values, links and
//! documents reach the caller intact; the character cap holds the text of
//! the whole result, the byte limit its binary blocks, and each says what
//! it cut; a spill writes binary blocks to files too.

use crate::execute_support;

use std::num::NonZeroUsize;

use execute_support::*;
use registry_core::{
    Json, ToolBuilder, ToolCall, ToolCallResult, ToolHandle, ToolOutput,
    declare::{ContentBlock, EmbeddedResource, Image, ResourceLink, ResultCap},
    execute::ExecutorConfig,
};
use serde_json::{Value, json};

/// `shot`: `images` images of `bytes` bytes each, between two texts of
/// `text` characters.
fn shot(cap: ResultCap) -> ToolHandle {
    ToolBuilder::new("shot", "Takes screenshots.")
        .read_only(true)
        .max_result_chars(cap)
        .build(|args: Value, _cx| async move {
            let text = "t".repeat(args["text"].as_u64().unwrap_or(1) as usize);
            let mut out = ToolOutput::text(text.clone());
            for i in 0..args["images"].as_u64().unwrap_or(1) {
                let bytes = vec![i as u8; args["bytes"].as_u64().unwrap_or(4) as usize];
                out = out.with(Image::new(bytes, "image/png"));
            }
            Ok(out.with(ContentBlock::text(text)))
        })
        .unwrap()
}

fn chars(n: usize) -> ResultCap {
    ResultCap::Chars(NonZeroUsize::new(n).unwrap())
}

fn run(
    config: ExecutorConfig,
    tools: Vec<ToolHandle>,
    calls: Vec<ToolCall>,
) -> Vec<ToolCallResult> {
    let exec = registry_of(tools).executor().config(config).build();
    paused_runtime().block_on(exec.run_turn(calls))
}

fn call(args: Value) -> ToolCall {
    ToolCall::new("c1", "shot", args)
}

#[test]
fn blocks_within_their_limits_arrive_as_they_were_made() {
    let results = run(
        ExecutorConfig::new(),
        vec![shot(chars(1_000))],
        vec![call(json!({ "text": 3, "images": 2, "bytes": 10 }))],
    );
    let blocks = results[0].blocks();
    assert_eq!(blocks.len(), 4, "{blocks:?}");
    assert_eq!(blocks[0], ContentBlock::text("ttt"));
    assert_eq!(
        blocks[1],
        ContentBlock::Image(Image::new(vec![0u8; 10], "image/png"))
    );
    assert_eq!(
        blocks[2],
        ContentBlock::Image(Image::new(vec![1u8; 10], "image/png"))
    );
    // Text-only readers see every block named.
    assert_eq!(
        results[0].content(),
        "ttt\n[image: image/png, 10 bytes]\n[image: image/png, 10 bytes]\nttt"
    );
}

#[test]
fn the_character_cap_holds_the_text_of_the_whole_result_and_keeps_the_images() {
    let results = run(
        ExecutorConfig::new(),
        vec![shot(chars(300))],
        vec![call(json!({ "text": 200, "images": 1, "bytes": 10 }))],
    );
    let blocks = results[0].blocks();
    // Two 200-character texts cut to one text block of at most 300
    // characters, where the first text was; the image kept.
    assert_eq!(blocks.len(), 2, "{blocks:?}");
    let ContentBlock::Text(text) = &blocks[0] else {
        panic!("{blocks:?}")
    };
    assert!(text.chars().count() <= 300, "{}", text.chars().count());
    assert!(text.contains("[output truncated: showing"), "{text}");
    assert!(text.contains("of 401 characters"), "{text}");
    assert!(matches!(blocks[1], ContentBlock::Image(_)));
}

#[test]
fn images_over_the_byte_limit_are_named_and_left_out_without_a_spill_dir() {
    let results = run(
        ExecutorConfig::new().max_result_bytes(Some(25)),
        vec![shot(chars(1_000))],
        vec![call(json!({ "text": 1, "images": 3, "bytes": 10 }))],
    );
    let blocks = results[0].blocks();
    assert!(matches!(blocks[1], ContentBlock::Image(_)));
    assert!(matches!(blocks[2], ContentBlock::Image(_)));
    let ContentBlock::Text(notice) = &blocks[3] else {
        panic!("{blocks:?}")
    };
    assert_eq!(
        notice,
        "[image (image/png, 10 bytes) not included: over this result's limit of 25 bytes of binary content]"
    );
    assert!(results[0].binary_spills().is_empty());
}

#[test]
fn a_spill_writes_binary_blocks_to_files_too() {
    let dir = tempfile::tempdir().unwrap();
    let results = run(
        ExecutorConfig::new()
            .spill_dir(dir.path())
            .max_result_bytes(Some(15)),
        vec![shot(chars(1_000))],
        vec![call(json!({ "text": 1, "images": 2, "bytes": 10 }))],
    );
    let files = results[0].binary_spills();
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(files[0].starts_with(dir.path()));
    assert_eq!(files[0].extension().unwrap(), "png");
    assert_eq!(std::fs::read(&files[0]).unwrap(), vec![1u8; 10]);
    let ContentBlock::Text(notice) = &results[0].blocks()[2] else {
        panic!("{:?}", results[0].blocks())
    };
    assert!(
        notice.ends_with(&format!("; saved in {}]", files[0].display())),
        "{notice}"
    );
}

#[test]
fn structured_links_and_documents_pass_through() {
    #[derive(serde::Serialize, schemars::JsonSchema)]
    struct Report {
        pages: u32,
    }
    let tool = ToolBuilder::new("report", "Makes a report.")
        .read_only(true)
        .build(|_: Value, _cx| async move {
            let mut out =
                registry_core::declare::IntoToolOutput::into_tool_output(Json(Report { pages: 2 }))
                    .unwrap();
            out = out
                .with(ResourceLink::new("file:///r.pdf", "r.pdf").media_type("application/pdf"))
                .with(EmbeddedResource::document(
                    "r.pdf",
                    b"%PDF-1.7".to_vec(),
                    "application/pdf",
                ));
            Ok(out)
        })
        .unwrap();
    let results = run(
        ExecutorConfig::new(),
        vec![tool],
        vec![ToolCall::new("c1", "report", json!({}))],
    );
    let blocks = results[0].blocks();
    assert_eq!(blocks[0], ContentBlock::Json(json!({ "pages": 2 })));
    assert!(matches!(&blocks[1], ContentBlock::ResourceLink(link) if link.name == "r.pdf"));
    assert!(matches!(&blocks[2], ContentBlock::Resource(r) if r.name.as_deref() == Some("r.pdf")));
}

#[test]
fn a_result_of_empty_text_blocks_says_it_had_no_output_but_an_image_alone_is_output() {
    let empty = ToolBuilder::new("empty", "Says nothing.")
        .read_only(true)
        .build(|_: Value, _cx| async move {
            Ok(ToolOutput::new([
                ContentBlock::text(""),
                ContentBlock::text(""),
            ]))
        })
        .unwrap();
    let picture = ToolBuilder::new("picture", "Draws.")
        .read_only(true)
        .build(|_: Value, _cx| async move { Ok(ToolOutput::image(vec![1u8, 2], "image/gif")) })
        .unwrap();
    let results = run(
        ExecutorConfig::new(),
        vec![empty, picture],
        vec![
            ToolCall::new("a", "empty", json!({})),
            ToolCall::new("b", "picture", json!({})),
        ],
    );
    assert_eq!(results[0].content(), "(`empty` completed with no output)");
    assert_eq!(
        results[1].blocks(),
        [ContentBlock::Image(Image::new(vec![1u8, 2], "image/gif"))]
    );
}

/// Text the model reads counts toward the character cap whatever block it
/// is in: an embedded text resource and a resource link included. A
/// binary spill does not take the result out of the turn budget.
#[test]
fn text_in_resources_is_capped_and_binary_spills_stay_in_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    let big = ToolBuilder::new("big", "Returns a long embedded document and an image.")
        .read_only(true)
        .max_result_chars(ResultCap::Unbounded)
        .build(|_: Value, _cx| async move {
            Ok(ToolOutput::new([
                EmbeddedResource::text("mem://doc", "d".repeat(50_000)).into(),
                Image::new(vec![7u8; 40], "image/png").into(),
            ]))
        })
        .unwrap();
    let capped = ToolBuilder::new("capped", "Returns a long embedded document.")
        .read_only(true)
        .max_result_chars(chars(1_000))
        .build(|_: Value, _cx| async move {
            Ok(ToolOutput::new([EmbeddedResource::text(
                "mem://doc",
                "d".repeat(5_000),
            )
            .into()]))
        })
        .unwrap();
    let results = run(
        ExecutorConfig::new()
            .spill_dir(dir.path())
            .max_result_bytes(Some(10))
            .turn_budget(Some(10_000)),
        vec![big, capped],
        vec![
            ToolCall::new("a", "big", json!({})),
            ToolCall::new("b", "capped", json!({})),
        ],
    );
    // The per-tool cap holds the text resource.
    assert!(
        results[1].content().chars().count() <= 1_000,
        "{}",
        results[1].content().len()
    );
    // The image spilled (over 10 bytes), and the text still went to the
    // turn budget: spilled too, with its own file.
    assert_eq!(results[0].binary_spills().len(), 1);
    let text_file = results[0]
        .spilled_to()
        .expect("the text was spilled for the budget");
    assert!(
        std::fs::read_to_string(text_file)
            .unwrap()
            .contains(&"d".repeat(1_000))
    );
    assert!(results[0].content().chars().count() < 10_000);
}
