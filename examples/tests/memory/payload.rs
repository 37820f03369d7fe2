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

/// What a payload is made of.
#[derive(Clone, Copy)]
pub enum Kind {
    /// Note text (quotes, backslashes and tabs to unescape).
    Note,
    /// Shell script (lines of several programs each).
    Script,
}

/// A provider's response, parsed from the text a runtime would be sent:
/// `prefix`, `bytes` bytes of `kind` as the body of a JSON string literal
/// escaped `depth` times (1: inside a JSON text; 2: inside a JSON string
/// inside a JSON text, as OpenAI's `arguments`), `suffix`. The
/// text is let go once parsed, as a runtime lets its response body go.
pub fn response(
    prefix: &str,
    kind: Kind,
    bytes: usize,
    depth: usize,
    suffix: &str,
) -> serde_json::Value {
    let line = match kind {
        Kind::Note => NOTE_LINE,
        Kind::Script => SCRIPT_LINE,
    };
    let len = repeated_len(line, bytes, depth);
    let mut text = String::with_capacity(prefix.len() + len + suffix.len());
    text.push_str(prefix);
    push_repeated(&mut text, line, bytes, depth);
    text.push_str(suffix);
    serde_json::from_str(&text).expect("the response parses")
}

/// `bytes` bytes of log output.
pub fn log(bytes: usize) -> String {
    let mut out = String::with_capacity(bytes);
    push_repeated(&mut out, LOG_LINE, bytes, 0);
    out
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
        let once = response("\"", Kind::Note, bytes, 1, "\"");
        assert_eq!(once.as_str().map(str::len), Some(bytes));

        let twice = response("\"", Kind::Script, bytes, 2, "\"");
        let inner = twice.as_str().expect("a string");
        let script: String = serde_json::from_str(&format!("\"{inner}\"")).unwrap();
        assert_eq!(script.len(), bytes);
        assert_eq!(log(bytes).len(), bytes);
    }
}
