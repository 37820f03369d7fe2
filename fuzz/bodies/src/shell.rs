//! `shell`: the shell command reader.
//!
//! Properties: `read`, `classify` and `read_paths` never panic (the
//! fuzzer's timeout holds them to linear time: libFuzzer fails an input
//! that takes seconds); and a differential one. A command the reader
//! calls literal (one simple command, every word a plain literal, no
//! assignment, redirection or hazard) is read the same after a round
//! trip through quoting: each word put in single quotes, as a caller
//! building a command line would, must give the same words and the same
//! classification. A reader that took the quotes for part of a word, or
//! gave a quoted word a meaning its bare spelling lacks, would decide on
//! text the shell reads differently.

use shell_reading::syntax::Command;
use shell_reading::{Context, MAX_COMMAND_BYTES, Reading, classify_reading, read, read_paths};

/// The input as one command line.
pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let reading = read(text);
    let class = classify_reading(&reading);
    let _ = read_paths(&reading);
    let Some(words) = literal_words(&reading) else {
        return;
    };
    let quoted = words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ");
    if quoted.len() > MAX_COMMAND_BYTES {
        return;
    }
    let again = read(&quoted);
    assert!(
        again.is_checkable(),
        "{text:?} reads as literal words {words:?}; quoted as {quoted:?} it is not checkable: {:?}",
        again.hazards()
    );
    assert_eq!(
        literal_words(&again).as_ref(),
        Some(&words),
        "{text:?} and its quoting {quoted:?} read as different words"
    );
    assert_eq!(
        runs(&again),
        runs(&reading),
        "{text:?} and its quoting {quoted:?} run different programs"
    );
    assert_eq!(
        classify_reading(&again),
        class,
        "{text:?} and its quoting {quoted:?} classify differently"
    );
}

/// The words of a command line that is one simple command of literal
/// words: no assignment, redirection, pipeline, list or compound around
/// it, no here-document, and nothing the reader calls a hazard.
fn literal_words(reading: &Reading) -> Option<Vec<String>> {
    if !reading.is_checkable() || !reading.hazards().is_empty() {
        return None;
    }
    let script = reading.script()?;
    let [item] = script.items.as_slice() else {
        return None;
    };
    if item.background || !item.and_or.rest.is_empty() || !script.heredocs.is_empty() {
        return None;
    }
    let pipeline = &item.and_or.first;
    let [Command::Simple(simple)] = pipeline.commands.as_slice() else {
        return None;
    };
    if pipeline.negated || !simple.assignments.is_empty() || !simple.redirects.is_empty() {
        return None;
    }
    let mut words = Vec::new();
    for word in &simple.words {
        if word.dynamic || !word.substitutions.is_empty() || word.evaluates {
            return None;
        }
        words.push(word.text.clone());
    }
    (!words.is_empty()).then_some(words)
}

/// Every run as its words and where it stands: what a rule or a
/// classifier reads.
fn runs(reading: &Reading) -> Vec<(Vec<String>, Context)> {
    reading
        .runs()
        .iter()
        .map(|run| {
            let words = run.words_from(0).map(|word| word.text.clone()).collect();
            (words, run.context)
        })
        .collect()
}

/// `word` in single quotes, each `'` in it written `'\''`.
fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}
