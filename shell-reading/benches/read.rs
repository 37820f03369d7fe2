//! Classifying shell commands of 1, 16 and 64 KiB in the shapes that used
//! to be slow (a long wrapper chain, nested `nice`), plus ordinary ones
//! (a long pipeline, a long quoted argument). The cost should grow
//! linearly with the size.
//!
//! `cargo bench -p shell-reading --bench read`
//!
//! Under `cargo test --benches` divan runs every benchmark once.

use divan::{Bencher, black_box};
use shell_reading::classify;

fn main() {
    divan::main();
}

const SIZES: &[usize] = &[1 << 10, 16 << 10, 64 << 10];

/// `unit` repeated to about `bytes`, then `tail`.
fn repeat(unit: &str, tail: &str, bytes: usize) -> String {
    let mut text = unit.repeat((bytes - tail.len()) / unit.len());
    text.push_str(tail);
    text
}

#[divan::bench(args = SIZES)]
fn env_chain(bencher: Bencher, bytes: usize) {
    let command = repeat("env ", "rm x", bytes);
    bencher.bench(|| classify(black_box(&command)));
}

#[divan::bench(args = SIZES)]
fn nice_chain(bencher: Bencher, bytes: usize) {
    let command = repeat("nice ", "ls", bytes);
    bencher.bench(|| classify(black_box(&command)));
}

#[divan::bench(args = SIZES)]
fn pipeline(bencher: Bencher, bytes: usize) {
    let command = repeat("grep -n x a.txt | ", "wc -l", bytes);
    bencher.bench(|| classify(black_box(&command)));
}

#[divan::bench(args = SIZES)]
fn quoted_argument(bencher: Bencher, bytes: usize) {
    let command = format!("echo '{}'", "a b ".repeat((bytes - 8) / 4));
    bencher.bench(|| classify(black_box(&command)));
}
