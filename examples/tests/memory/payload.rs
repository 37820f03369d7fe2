//! The scenarios' payloads, written straight into the text that carries
//! them: a child never holds a payload twice just to set a scenario up,
//! so what its peak shows is what the registry did with it.

/// A line of a note as a model writes one: quotes, a backslash and a tab,
/// so the JSON text that carries it has escapes to undo.
const NOTE_LINE: &str = "- a line of a long note, \"quoted\" here, a \\ there,\tand a tab.\n";

/// A line of a shell script: several programs, so a reader that read it
/// would have work on every line.
const SCRIPT_LINE: &str = "echo 'step' && ls -la src | grep -v target; cat notes.txt\n";

/// A line of a tool's log output.
const LOG_LINE: &str = "2025-01-01T00:00:00Z INFO compiling registry-core v0.1.0 (step 42 of 99)\n";

/// `bytes` bytes of note text, as the body of a JSON string literal
/// escaped `depth` times (1: inside a JSON text; 2: inside a JSON string
/// inside a JSON text, as OpenAI's `arguments`), pushed onto `out`.
pub fn push_note(out: &mut String, bytes: usize, depth: usize) {
    push_repeated(out, NOTE_LINE, bytes, depth);
}

/// `bytes` bytes of shell script, escaped `depth` times, pushed onto `out`.
pub fn push_script(out: &mut String, bytes: usize, depth: usize) {
    push_repeated(out, SCRIPT_LINE, bytes, depth);
}

/// `bytes` bytes of log output.
pub fn log(bytes: usize) -> String {
    let mut out = String::with_capacity(bytes);
    push_repeated(&mut out, LOG_LINE, bytes, 0);
    out
}

/// The length of `bytes` bytes of note text once escaped `depth` times.
pub fn note_len(bytes: usize, depth: usize) -> usize {
    repeated_len(NOTE_LINE, bytes, depth)
}

/// The length of `bytes` bytes of shell script once escaped `depth` times.
pub fn script_len(bytes: usize, depth: usize) -> usize {
    repeated_len(SCRIPT_LINE, bytes, depth)
}

/// `line` repeated to exactly `bytes` bytes (the last copy cut short), each
/// piece escaped `depth` times.
fn push_repeated(out: &mut String, line: &str, bytes: usize, depth: usize) {
    let whole = escaped(line, depth);
    for _ in 0..bytes / line.len() {
        out.push_str(&whole);
    }
    out.push_str(&escaped(&line[..bytes % line.len()], depth));
}

fn repeated_len(line: &str, bytes: usize, depth: usize) -> usize {
    escaped(line, depth).len() * (bytes / line.len())
        + escaped(&line[..bytes % line.len()], depth).len()
}

/// `text` as the inside of a JSON string literal, `depth` times over.
fn escaped(text: &str, depth: usize) -> String {
    let mut text = text.to_owned();
    for _ in 0..depth {
        let literal = serde_json::to_string(&text).expect("a string serialises");
        text = literal[1..literal.len() - 1].to_owned();
    }
    text
}

#[test]
fn payloads_decode_to_their_size() {
    for bytes in [0, 1, 70, 1000] {
        let mut text = String::from("\"");
        push_note(&mut text, bytes, 1);
        text.push('"');
        assert_eq!(text.len(), note_len(bytes, 1) + 2);
        let once: String = serde_json::from_str(&text).unwrap();
        assert_eq!(once.len(), bytes);

        let mut twice = String::from("\"");
        push_script(&mut twice, bytes, 2);
        twice.push('"');
        assert_eq!(twice.len(), script_len(bytes, 2) + 2);
        let inner: String = serde_json::from_str(&twice).unwrap();
        let script: String = serde_json::from_str(&format!("\"{inner}\"")).unwrap();
        assert_eq!(script.len(), bytes);
        assert_eq!(log(bytes).len(), bytes);
    }
}
